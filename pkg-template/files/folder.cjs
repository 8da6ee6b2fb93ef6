"use strict";
// A folder of session files (Node, Bun, Deno): find the `.jsonl` files, then
// read each one's `sessionInfo` (or its usage), several at a time. A file that
// cannot be read, or is no session, becomes an `error` on its row: one bad
// file never stops a listing. `listSessions` is the public entry
// (session-tree/node); `session-tree list` and the manager's `list` use it,
// `session-tree usage` uses `readUsage`.

const {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFile: readFileCallback,
  readSync,
  stat: statCallback,
} = require("node:fs");
const nodeFs = require("node:fs/promises");
const { join, resolve, sep } = require("node:path");
const { fileSource, inspectSession, sessionInfo, UsageLedger } = require("../node.cjs");

/**
 * The `.jsonl` files in `dir` (and, with `recursive`, in its subfolders), as
 * absolute paths, sorted by file name, descending, within each folder (the
 * order pi's list reads them in, which decides ties of equal times).
 * Throws when `dir` itself cannot be read; a subfolder that cannot be read is
 * passed to `onError(path, error)` and skipped. With `confine` (a real path,
 * what `serve` shares), links to folders are not followed and a linked file
 * is kept only when it resolves inside `confine`.
 *
 * With `rawNames` (and the real file system), a path with a name that is not
 * UTF-8 comes as a Buffer of its bytes: Node decodes names to strings with
 * U+FFFD in place of such bytes, and that string names no file. Without it,
 * such a path is the decoded string, as pi's list has it (and cannot read).
 */
async function findSessions(dir, options = {}) {
  const { recursive = false, onError = () => {}, fs = nodeFs, confine } = options;
  const raw = options.rawNames === true && fs === nodeFs;
  const top = resolve(dir);
  const found = [];
  const pending = [top];
  // Each real folder is read once: links to folders are followed, and a
  // link back up the tree (`up -> ..`) would otherwise list its files again
  // at every level until ELOOP, and two such links double the paths at each
  // level (2^40 of them: the listing never ended).
  const seen = new Set();
  while (pending.length > 0) {
    const folder = pending.shift();
    const real = await realFolder(fs, folder, raw);
    if (seen.has(real)) continue;
    seen.add(real);
    let dirents;
    let rawHere = raw;
    try {
      dirents = await fs.readdir(folder, raw ? { withFileTypes: true, encoding: "buffer" } : { withFileTypes: true });
      // Bun 1.4 answers that with Buffers, not entries: names as strings there
      if (raw && dirents.some((d) => !Buffer.isBuffer(d?.name))) {
        rawHere = false;
        dirents = await fs.readdir(folder, { withFileTypes: true });
      }
    } catch (error) {
      if (folder === top) throw error;
      onError(String(folder), error);
      continue;
    }
    const files = [];
    const subfolders = [];
    for (const dirent of dirents) {
      const name = String(dirent.name);
      const path = rawHere ? joinRaw(folder, dirent.name) : join(folder, name);
      if (name.endsWith(".jsonl") && !dirent.isDirectory()) {
        if (!confine || !dirent.isSymbolicLink() || (await inside(fs, path, confine))) files.push({ name, path });
      } else if (recursive && dirent.isDirectory()) subfolders.push(path);
      else if (recursive && !confine && dirent.isSymbolicLink() && (await isFolder(fs, path))) subfolders.push(path);
    }
    files.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const file of files) found.push(file.path);
    subfolders.sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
    pending.push(...subfolders);
  }
  return found;
}

/**
 * `folder` (a string, or a Buffer if a name on it is not UTF-8) joined with
 * the name `bytes`: a string while every name is UTF-8, else a Buffer.
 */
function joinRaw(folder, bytes) {
  const name = bytes.toString("utf8");
  if (typeof folder === "string" && Buffer.from(name, "utf8").equals(bytes)) return join(folder, name);
  return Buffer.concat([Buffer.from(folder), Buffer.from(sep), bytes]);
}

/** Whether the link at `path` resolves inside the real folder `root`. */
async function inside(fs, path, root) {
  try {
    return (await fs.realpath(path)).startsWith(root + sep);
  } catch {
    return false;
  }
}

/**
 * The folder `path` names, links resolved (the path itself if that fails: the
 * read will say why); with `raw`, its bytes as Latin-1 text, so two names that
 * differ only in bytes that are not UTF-8 stay two.
 */
async function realFolder(fs, path, raw) {
  try {
    return raw ? (await fs.realpath(path, { encoding: "buffer" })).toString("latin1") : await fs.realpath(path);
  } catch {
    return raw ? Buffer.from(path).toString("latin1") : path;
  }
}

async function isFolder(fs, path) {
  try {
    return (await fs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** A one-line reason for a failed read: the system's code and message, without the stack. */
function describeError(error) {
  if (error && typeof error === "object" && typeof error.message === "string") {
    return error.message.split("\n")[0];
  }
  return String(error);
}

/**
 * Reads every file of `paths` (strings, or Buffers for names that are not
 * UTF-8: `findSessions`' `rawNames`) and returns, in the same order,
 * `{ path, rawPath?, info, error, problems? }` (`path` a string, a Buffer
 * path decoded as Node decodes names; `rawPath` that Buffer): `info` is the file's `sessionInfo`
 * (its `mtime` as the last fallback for `modified`, as pi's list does) or
 * null; `error` is null, or a one-line reason when the file could not be read
 * or is not a session. With `inspect: true`, `problems` holds the file's
 * `inspectSession` diagnostics. `concurrency` files are read at once (default
 * 32); `onProgress(done, total)` is called after each file. Never throws for
 * a file.
 */
async function readSessionInfos(paths, options = {}) {
  const { concurrency = 32, onProgress, inspect = false, fs = nodeFs, signal } = options;
  // an injected `fs` (tests) is used as given
  const open = options.fs ? (path) => fs.readFile(path) : openSession;
  const results = new Array(paths.length);
  let next = 0;
  let done = 0;
  const readOne = async (at) => {
    // a Buffer path (a name that is not UTF-8) is read by its bytes; the row
    // names it as Node decodes it, its bytes beside as `rawPath`
    const path = String(at);
    const raw = typeof at === "string" ? {} : { rawPath: at };
    const row = await readRow(at, path);
    return { ...row, ...raw };
  };
  const readRow = async (at, path) => {
    let input;
    try {
      input = await open(at);
    } catch (error) {
      return { path, info: null, error: describeError(error) };
    }
    try {
      const info = sessionInfo(input);
      // the file's mtime is the last fallback for `modified` (no activity, no
      // valid header time), as in pi's list: only then is the file stat'ed
      if (info !== null && info.modified === undefined) {
        try {
          info.modified = (await fs.stat(at)).mtime;
        } catch (error) {
          return { path, info: null, error: describeError(error) };
        }
      }
      const row = {
        path,
        info,
        error: info === null ? "not a pi session: no session header" : null,
      };
      if (inspect) row.problems = inspectSession(input);
      return row;
    } catch (error) {
      return { path, info: null, error: describeError(error) };
    } finally {
      input.close?.();
    }
  };
  const worker = async () => {
    while (next < paths.length) {
      signal?.throwIfAborted();
      const index = next++;
      results[index] = await readOne(paths[index]);
      done++;
      onProgress?.(done, paths.length);
    }
  };
  const workers = Math.max(1, Math.min(concurrency, paths.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/**
 * What the session files at `paths` (absolute, as pi's `parentSession` names
 * them) cost: each file is read and added to a `UsageLedger`, which counts
 * the entries that forks and branched copies share with their source once.
 * Returns `{ ledger, skipped }`, `skipped` the `{ path, error }` of files that
 * could not be read. `onProgress(done, total)` is called after each file.
 * Never throws for a file.
 *
 * Files are read one after another with `readSync` into one reused buffer,
 * which the ledger copies from: reading a folder's many small files this way
 * takes about half the CPU time of `readFile` (a new buffer each, and a
 * thread pool), and the adding, not the disk, is what a usage read waits
 * for. With an injected `fs` (tests), its `readFile`, `concurrency` files at
 * once (default 16).
 */
async function readUsage(paths, options = {}) {
  const { concurrency = 16, onProgress, fs } = options;
  const ledger = new UsageLedger();
  const skipped = [];
  let done = 0;
  // `read(path)` gives the file's bytes (or a promise of them); a failure to
  // read or add it skips the file
  const add = async (path, read) => {
    try {
      ledger.add(path, await read(path));
    } catch (error) {
      skipped.push({ path, error: describeError(error) });
    }
    done++;
    onProgress?.(done, paths.length);
  };
  if (fs) {
    let next = 0;
    const worker = async () => {
      while (next < paths.length) await add(paths[next++], (path) => fs.readFile(path));
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, paths.length)) }, worker));
  } else {
    const reader = new ReusedBuffer();
    for (const path of paths) await add(path, (p) => reader.read(p));
  }
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ledger, skipped };
}

/** Reads whole files into one buffer that grows as needed and is reused from file to file. */
/**
 * Throws for what a folder of sessions may hold that is no file to read: a
 * FIFO or a device (a link to /dev/zero) would block the listing or never
 * end. (A folder named *.jsonl fails its read, with EISDIR.)
 */
function refuseSpecial(path, stat) {
  if (!stat.isFile() && !stat.isDirectory()) throw new Error(`${path}: not a regular file`);
}

class ReusedBuffer {
  buffer = Buffer.allocUnsafe(1 << 20);

  /** The bytes of the file at `path`: a view of the buffer, valid until the next read. */
  read(path) {
    // O_NONBLOCK: a FIFO named *.jsonl opens at once instead of waiting for a
    // writer, and is refused below (a regular file reads as without it).
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      refuseSpecial(path, fstatSync(fd));
      let size = 0;
      for (;;) {
        if (size === this.buffer.length) {
          const bigger = Buffer.allocUnsafe(this.buffer.length * 2);
          this.buffer.copy(bigger, 0, 0, size);
          this.buffer = bigger;
        }
        const n = readSync(fd, this.buffer, size, this.buffer.length - size, null);
        if (n === 0) return this.buffer.subarray(0, size);
        size += n;
      }
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * A session file to read: up to a MiB, its bytes (the fastest for a folder's
 * many small files); a bigger one, a file source read a piece at a time (in
 * memory that does not grow with the file), to be closed.
 */
async function openSession(path) {
  const size = await new Promise((resolve, reject) => {
    statCallback(path, (error, stat) => {
      if (error) return reject(error);
      try {
        refuseSpecial(path, stat);
        resolve(stat.size);
      } catch (refused) {
        reject(refused);
      }
    });
  });
  // node:fs's callback readFile reads a file in about half the time of the
  // promise one
  return size > 1 << 20 ? fileSource(path) : readWhole(path);
}

/** `readFile` of node:fs (its callback form) as a promise. */
function readWhole(path) {
  return new Promise((resolve, reject) => {
    readFileCallback(path, (error, bytes) => (error ? reject(error) : resolve(bytes)));
  });
}

/** Newest `modified` first; rows without one (errors) last; ties keep their order. */
function newestFirst(rows) {
  const time = (row) => {
    const t = row.info?.modified instanceof Date ? row.info.modified.getTime() : Number.NaN;
    return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
  };
  return rows
    .map((row, index) => ({ row, index, t: time(row) }))
    .sort((a, b) => (b.t === a.t ? a.index - b.index : b.t > a.t ? 1 : -1))
    .map(({ row }) => row);
}

/**
 * Every session file in `dir` (with `recursive`, in its subfolders too), read
 * with `sessionInfo`: `{ path, info, error }` rows, newest first (files of
 * equal time in descending name order, as pi's list). `onProgress(done,
 * total)` after each file; `signal` aborts between files (the promise
 * rejects with its reason). Throws only when `dir` itself cannot be read; a
 * subfolder that cannot be read goes to `onError(path, error)`.
 */
async function listSessions(dir, options = {}) {
  const { recursive = false, onProgress, onError, signal, concurrency, inspect, fs } = options;
  signal?.throwIfAborted();
  const paths = await findSessions(dir, { recursive, onError, fs, rawNames: true });
  signal?.throwIfAborted();
  return newestFirst(await readSessionInfos(paths, { onProgress, signal, concurrency, inspect, fs }));
}

module.exports = { findSessions, readSessionInfos, readUsage, listSessions, describeError };
