// A byte source over a session file that `session-tree serve` serves, for the
// worker to open a large file by piece as it opens a picked one (large.js):
// each `read(offset, length)` is one HTTP range request, synchronous (allowed
// in a Web Worker, where the package's readers need their bytes at once).
// The page never holds the whole file.
//
// Every request carries `x-session-tree-since: SIZE HEAD` (the size and the
// hash of the first bytes, live.js's headHash, when the file was opened):
// the server answers 412 once the file is no longer that one or that one
// grown by appends, and the read throws an Error naming the file, never a
// mix of old and new bytes. Appends alone change nothing read below SIZE.

import { LARGE_FROM } from "./large.js";
import { HEAD_BYTES, headHash } from "./live.js";

/**
 * One synchronous range request: `{ status, bytes }` (`bytes` a Uint8Array).
 * `XHR` is the XMLHttpRequest constructor (the worker's own by default).
 */
export function syncRange(url, offset, length, since, XHR = globalThis.XMLHttpRequest) {
  const xhr = new XHR();
  xhr.open("GET", url, false);
  xhr.responseType = "arraybuffer";
  xhr.setRequestHeader("range", `bytes=${offset}-${offset + length - 1}`);
  xhr.setRequestHeader("x-session-tree-since", since);
  xhr.send();
  return { status: xhr.status, bytes: new Uint8Array(xhr.response ?? new ArrayBuffer(0)) };
}

/**
 * The source of `url` as opened: `size` bytes whose first bytes hash to
 * `head` (live.js's headHash). `name` is what errors call it. `request` makes
 * one range request (syncRange's signature; tests pass their own).
 */
export function remoteSource({ url, size, head, name = url }, { request = syncRange } = {}) {
  if (!(Number.isSafeInteger(size) && size >= 0)) throw new TypeError(`${name}: size must be a number of bytes`);
  if (!/^[0-9a-f]{8}$/.test(String(head))) throw new TypeError(`${name}: head must be the hash of its first bytes`);
  const since = `${size} ${head}`;
  return {
    name,
    size,
    read(offset, length) {
      // NaN and negative numbers fail this too; a fraction makes a Range the server refuses.
      if (!(offset >= 0 && length >= 0 && offset + length <= size)) {
        throw new RangeError(`${name}: read(${offset}, ${length}) is not a range of its ${size} bytes`);
      }
      if (length === 0) return new Uint8Array(0);
      const { status, bytes } = request(url, offset, length, since);
      if (status === 412) {
        throw new Error(`${name} changed on the server while it was read (rewritten or cut); reopen it`);
      }
      if (status !== 206)
        throw new Error(`${name}: reading bytes ${offset}-${offset + length - 1} failed (HTTP ${status})`);
      if (bytes.length !== length) {
        throw new Error(`${name} changed on the server while it was read (${bytes.length} bytes came, not ${length})`);
      }
      return bytes;
    },
  };
}

/**
 * What the page opens a served session with: a file under `largeFrom` bytes
 * whole (`source` an ArrayBuffer), a larger one as `{ remote: { url, size,
 * head } }`, which the worker reads by range; `offset` and `head` are where
 * following it starts (its size and headHash as opened). The first request
 * asks for the first bytes only: its answer gives the size and the head, and
 * is the whole file when that is small. `url` must be absolute (the worker
 * reads it too); `fetchImpl` is `fetch` (tests pass their own).
 */
export async function fetchSession(url, { largeFrom = LARGE_FROM, fetchImpl = globalThis.fetch } = {}) {
  const ok = async (res) => {
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).trim()}`);
    return res;
  };
  const first = await ok(await fetchImpl(url, { headers: { range: `bytes=0-${HEAD_BYTES - 1}` } }));
  const firstBytes = new Uint8Array(await first.arrayBuffer());
  const size = Number(first.headers.get("x-file-size") ?? Number.NaN);
  if (first.status === 200 || size === firstBytes.length) {
    return { source: firstBytes.buffer, offset: firstBytes.length, head: headHash(firstBytes) };
  }
  if (!Number.isSafeInteger(size)) throw new Error("the server did not say the size of the file");
  if (size < largeFrom) {
    const bytes = new Uint8Array(await (await ok(await fetchImpl(url))).arrayBuffer());
    return { source: bytes.buffer, offset: bytes.length, head: headHash(bytes) };
  }
  const head = headHash(firstBytes);
  return { source: { remote: { url, size, head } }, offset: size, head, byPiece: true };
}
