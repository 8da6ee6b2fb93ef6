// Reading a session file a piece at a time, for `serve`'s list, search index,
// search and follow: no file is ever held whole, whatever its size. The file
// is read through the package's `fileSource`, whose every read first checks
// that the file is still the one opened (a file truncated, rewritten or
// appended to while it is read gives an error naming it, never a mix of old
// and new bytes); the lines are cut as search-text.js's LineCutter cuts them.

import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { fileSource } from "../../node.js";
import { LineCutter } from "./search-text.js";

/** How many bytes a piece is, unless SESSION_TREE_PIECE_SIZE says otherwise (the package's default too). */
export const PIECE_SIZE = 1 << 20;

// Between two yields to the event loop: however small the pieces, a long read
// lets the server answer other requests, and a short one does not wait.
const YIELD_EVERY = 4 << 20;

/**
 * A `fileSource` over `abs`, a file inside `root` (both real paths), or null
 * when it is gone, unreadable, or a symlink leading out of `root`. Its
 * errors name `rel`, never a path outside DIR. Close it when done.
 */
export async function openSession(root, abs, rel) {
  try {
    if ((await lstat(abs)).isSymbolicLink()) {
      const real = await realpath(abs);
      if (!real.startsWith(root + path.sep)) return null;
    }
    return renamed(fileSource(abs), abs, rel);
  } catch {
    return null;
  }
}

/** `source` with `abs` replaced by `rel` in the messages of the errors its reads throw. */
function renamed(source, abs, rel) {
  const read = source.read.bind(source);
  source.read = (offset, length) => {
    try {
      return read(offset, length);
    } catch (error) {
      if (typeof error?.message === "string") error.message = error.message.split(abs).join(rel);
      throw error;
    }
  };
  return source;
}

/** Waits for the event loop to run once (pending requests are answered meanwhile). */
export const yieldNow = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Calls `onLine(raw)` for every line of `source` (a byte source), in order,
 * as `text.split(LINE_BREAK)` of its whole text would give them, reading
 * `pieceSize` bytes at a time. Stops early once `done()` is true. A read
 * that fails (the file changed) rejects with its error.
 */
export async function forEachLine(source, onLine, { pieceSize = PIECE_SIZE, done = () => false } = {}) {
  const cutter = new LineCutter();
  let sinceYield = 0;
  for (let at = 0; at < source.size; ) {
    const n = Math.min(pieceSize, source.size - at);
    for (const line of cutter.push(source.read(at, n))) {
      onLine(line);
      if (done()) return;
    }
    at += n;
    sinceYield += n;
    if (sinceYield >= YIELD_EVERY) {
      sinceYield = 0;
      await yieldNow();
    }
  }
  for (const line of cutter.end()) {
    onLine(line);
    if (done()) return;
  }
}
