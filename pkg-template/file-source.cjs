"use strict";
// fileSource(path): a byte source over a file descriptor, for Node, Bun and
// Deno (their `node:fs`). getTree, sessionInfo and countEntries read such a
// source a piece at a time, and getTree's nodes read each entry by its byte
// range when asked, so a file of any size opens in memory that grows with
// its entries, not its text. The file is only ever read.
const fs = require("node:fs");

function fileSource(path) {
  const name = String(path);
  const fd = fs.openSync(path, "r");
  let stat;
  try {
    stat = fs.fstatSync(fd, { bigint: true });
    if (stat.isDirectory()) throw Object.assign(new Error(`${name}: is a directory`), { code: "EISDIR" });
    if (!stat.isFile()) throw new Error(`${name}: not a regular file`);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  const size = Number(stat.size);
  let open = true;
  // A read of a file that is no longer the one measured at open would mix
  // old and new bytes: every read first checks that its size and
  // modification time are those of the start.
  const changed = (how) => new Error(`${name} changed while it was read (${how}); nothing read from it was used`);
  const source = {
    name,
    size,
    read(offset, length) {
      if (!open) throw new Error(`${name}: the file source is closed`);
      if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0)) {
        throw new RangeError(`${name}: read(${offset}, ${length}) is not a range of bytes`);
      }
      if (offset + length > size) {
        throw new RangeError(`${name}: read(${offset}, ${length}) ends past its ${size} bytes`);
      }
      const now = fs.fstatSync(fd, { bigint: true });
      if (now.size !== stat.size) throw changed(`it was ${size} bytes, now ${now.size}`);
      if (now.mtimeNs !== stat.mtimeNs) throw changed("it was written to");
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const n = fs.readSync(fd, out, done, length - done, offset + done);
        if (n === 0) throw changed(`it ended at byte ${offset + done}, not ${size}`);
        done += n;
      }
      return out;
    },
    close() {
      if (open) {
        open = false;
        fs.closeSync(fd);
      }
    },
  };
  if (typeof Symbol.dispose === "symbol") source[Symbol.dispose] = source.close;
  return source;
}

module.exports = { fileSource };
