// blobSource(blob): a byte source over a `Blob` or `File`, for a browser's
// Web Worker, where `FileReaderSync` reads a slice synchronously. getTree,
// sessionInfo, countEntries and the context functions read such a source a
// piece at a time, so a file of any size opens without being held whole.
// The blob is only ever read.

export function blobSource(blob) {
  if (typeof Blob === "undefined" || !(blob instanceof Blob)) {
    throw new TypeError(`blobSource: blob must be a Blob or File, got ${describe(blob)}`);
  }
  if (typeof FileReaderSync !== "function") {
    throw new Error("blobSource needs FileReaderSync, which only a Web Worker has: open the blob in a Worker");
  }
  const name = typeof blob.name === "string" && blob.name ? blob.name : "the blob";
  const size = blob.size;
  const reader = new FileReaderSync();
  return {
    name,
    size,
    read(offset, length) {
      if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0)) {
        throw new RangeError(`${name}: read(${offset}, ${length}) is not a range of bytes`);
      }
      if (offset + length > size)
        throw new RangeError(`${name}: read(${offset}, ${length}) ends past its ${size} bytes`);
      let buffer;
      try {
        buffer = reader.readAsArrayBuffer(blob.slice(offset, offset + length));
      } catch (error) {
        // A File changed on disk since it was picked is unreadable (NotReadableError).
        throw new Error(
          `${name} could not be read at byte ${offset} (${error?.name ?? "Error"}: ${error?.message}); it may have changed since it was opened`,
        );
      }
      if (buffer.byteLength !== length) {
        throw new Error(
          `${name} changed while it was read (it gave ${buffer.byteLength} bytes at offset ${offset} where ${length} were asked); nothing read from it was used`,
        );
      }
      return new Uint8Array(buffer);
    },
  };
}

function describe(v) {
  if (v === null) return "null";
  if (typeof v !== "object") return typeof v;
  return v.constructor?.name ?? "an object";
}
