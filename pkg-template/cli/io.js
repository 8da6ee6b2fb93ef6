// What the commands share: reading a file or stdin, one-line errors, colour.
// Commands never touch `process`: everything comes through `io`
// (`{ stdout, stderr, stdin, env, isTTY, cwd, fs? }`, see main.js).

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants, writeSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fileSource } from "../node.js";
import { textOr } from "./tree-view.js";

/** Bad usage or unreadable input: exit code 2, with a one-line reason. */
export class UsageError extends Error {
  constructor(message, exitCode = 2) {
    super(message);
    this.name = "UsageError";
    this.exitCode = exitCode;
  }
}

/** The file system the commands use: `io.fs` (tests inject failures there) or node:fs/promises. */
export function fsOf(io) {
  return io.fs ?? nodeFs;
}

/** An absolute path, resolved against `io.cwd`. */
export function absolute(io, path) {
  return resolve(io.cwd ?? ".", path);
}

/** A one-line reason for an error from the file system, naming the path. */
export function describeFsError(path, error) {
  const reasons = {
    ENOENT: "no such file or directory",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EISDIR: "is a directory",
    ENOTDIR: "not a directory",
    EEXIST: "already exists",
    ENOSPC: "no space left on device",
    EROFS: "read-only file system",
  };
  const reason = reasons[error?.code] ?? String(error?.message ?? error).split("\n")[0];
  // Node decodes the command line as UTF-8, with U+FFFD for bytes that are
  // not: a file so named cannot be named from there, by any JS program
  if (error?.code === "ENOENT" && String(path).includes("\uFFFD"))
    return `${path}: ${reason} (if its name has bytes that are not UTF-8, Node cannot take it from the command line: give the file on standard input as \`-\`, or rename it)`;
  return `${path}: ${reason}`;
}

async function readStream(stream) {
  if (!stream) throw new UsageError("-: no standard input");
  const chunks = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * The bytes of `file` (`-`: all of stdin). A file that cannot be read throws
 * a UsageError (exit 2) whose message names it and says why.
 */
export async function readInput(io, file) {
  if (file === "-") return readStream(io.stdin);
  try {
    return await fsOf(io).readFile(absolute(io, file));
  } catch (error) {
    throw new UsageError(describeFsError(file, error));
  }
}

/**
 * The options of a function that reads a byte source: `SESSION_TREE_PIECE_SIZE`
 * sets how many bytes it reads at a time (tests make it tiny).
 */
export function readOptions(io) {
  const piece = io.env?.SESSION_TREE_PIECE_SIZE;
  if (!piece) return {};
  const pieceSize = Number(piece);
  // checked here, so a bad setting is a usage error naming it, not the library's complaint about an option
  if (!(/^\d+$/.test(piece) && Number.isSafeInteger(pieceSize) && pieceSize >= 1))
    throw new UsageError(
      `SESSION_TREE_PIECE_SIZE must be a whole number of bytes, at least 1, not ${printable(piece)}`,
    );
  return { pieceSize };
}

/**
 * The input of `file` for the library's functions: a file source, read a
 * piece at a time (a file of any size, in memory that does not grow with
 * it); stdin, and files under an injected file system (the tests'), as
 * bytes. `{ input, close() }`; a file that cannot be opened throws a
 * UsageError naming it.
 */
export async function openInput(io, file) {
  if (file === "-" || io.fs !== undefined) return { input: await readInput(io, file), close() {} };
  const path = absolute(io, file);
  let stat;
  try {
    stat = await nodeFs.stat(path);
  } catch (error) {
    throw new UsageError(describeFsError(file, error));
  }
  // A pipe or a device (`<(zcat s.jsonl.gz)`, /dev/stdin) has no size to read
  // by piece, and is read once: it is read whole, as stdin is, and handed on
  // as a source like any file. (Opening it as a file source first would block
  // until a writer came, then drop what the writer had sent.)
  if (!stat.isFile() && !stat.isDirectory())
    return { input: memorySource(file, await readInput(io, file)), close() {} };
  let source;
  try {
    source = fileSource(path);
  } catch (error) {
    throw new UsageError(describeFsError(file, error));
  }
  return { input: source, close: () => source.close() };
}

/** A byte source (`fileSource`'s shape) over `bytes` held in memory. */
function memorySource(name, bytes) {
  return {
    name,
    size: bytes.length,
    read(offset, length) {
      if (!(Number.isSafeInteger(offset) && Number.isSafeInteger(length) && offset >= 0 && length >= 0)) {
        throw new RangeError(`${name}: read(${offset}, ${length}) is not a range of bytes`);
      }
      if (offset + length > bytes.length) {
        throw new RangeError(`${name}: read(${offset}, ${length}) ends past its ${bytes.length} bytes`);
      }
      return bytes.subarray(offset, offset + length);
    },
    close() {},
  };
}

/**
 * Runs `use(input)` on `file` opened by `openInput`, then closes it. A file
 * that changes while it is read is an error of its input (exit 2), not of
 * the program.
 */
export async function withInput(io, file, use) {
  const { input, close } = await openInput(io, file);
  try {
    return await use(input);
  } catch (error) {
    if (/ changed while it was read /.test(error?.message)) throw new UsageError(error.message);
    // A value longer than a JS string can be (a tool result of over 512 MiB in V8) is a limit
    // of the input, as it is for pi, not a fault of the program.
    if (error instanceof RangeError && / could not be read back: /.test(error.message))
      throw new UsageError(`${file}: ${error.message}`);
    throw error;
  } finally {
    close();
  }
}

/**
 * `withInput` for a command that goes through several files: one that cannot
 * be read is reported on stderr and recorded in `results` as `{ file, error }`,
 * and gives `null`, so the command goes on with the next file.
 */
export async function inputOrReport(io, command, file, results, use) {
  try {
    return await withInput(io, file, use);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    line(io.stderr, `session-tree ${command}: ${printable(error.message)}`);
    results.push({ file, error: error.message });
    return null;
  }
}

/** The name to show for an input: `<stdin>` for `-`. */
export function displayName(file) {
  return file === "-" ? "<stdin>" : file;
}

/** Writes one line (a newline is added) to a stream of `io`. */
export function line(stream, text = "") {
  stream.write(`${text}\n`);
}

/** Prints `value` as JSON, two-space indented, to stdout. */
export function printJson(io, value) {
  line(io.stdout, jsonText(value, 2));
}

/**
 * `JSON.stringify(value, null, indent)`, also for a value nested deeper than
 * its recursion goes: `JSON.parse` reads a file's arrays a million levels
 * deep, `JSON.stringify` runs out of stack after some thousands. Such a value
 * is written by a loop instead (for what JSON.parse and the library make:
 * plain objects and arrays, strings, numbers, booleans, null, undefined), and
 * indented its first 64 levels only: below that, indentation would grow with
 * the square of the depth.
 */
export function jsonText(value, indent = 0) {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return deepJson(value, indent);
  }
}

function deepJson(value, indent) {
  const out = [];
  const indented = (depth) => indent > 0 && depth <= 64;
  const pad = (depth) => (indented(depth) ? `\n${" ".repeat(indent * depth)}` : "");
  // A scalar's text, or undefined for what an object leaves out.
  const scalar = (v) => (typeof v === "number" && !Number.isFinite(v) ? "null" : JSON.stringify(v));
  const open = [];
  const write = (v, depth) => {
    if (v === null || typeof v !== "object") {
      out.push(scalar(v) ?? "null");
      return;
    }
    const array = Array.isArray(v);
    out.push(array ? "[" : "{");
    open.push({ v, keys: array ? null : Object.keys(v), i: 0, depth, any: false });
  };
  write(value, 0);
  while (open.length > 0) {
    const top = open.at(-1);
    const length = top.keys === null ? top.v.length : top.keys.length;
    if (top.i === length) {
      open.pop();
      out.push(top.any ? pad(top.depth) : "", top.keys === null ? "]" : "}");
      continue;
    }
    const key = top.keys === null ? null : top.keys[top.i];
    const v = top.keys === null ? top.v[top.i] : top.v[key];
    top.i++;
    // An object leaves out members JSON cannot write (undefined, functions).
    if (key !== null && (v === undefined || typeof v === "function" || typeof v === "symbol")) continue;
    out.push(top.any ? "," : "", pad(top.depth + 1));
    top.any = true;
    if (key !== null) out.push(JSON.stringify(key), indented(top.depth + 1) ? ": " : ":");
    write(v, top.depth + 1);
  }
  return out.join("");
}

/**
 * Writes `lines` to `stream`, a newline after each, a batch of about 64 K
 * characters at a time (one string of a large tree's output would be
 * hundreds of MB; lines held longer live long enough for the garbage
 * collector to move them to the old generation), waiting for a full stream
 * to drain.
 */
export async function writeLines(stream, lines) {
  let batch = [];
  let size = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const ok = stream.write(`${batch.join("\n")}\n`);
    batch = [];
    size = 0;
    if (!ok && typeof stream.once === "function") await new Promise((done) => stream.once("drain", done));
  };
  for (const text of lines) {
    batch.push(text);
    size += text.length;
    if (size >= 1 << 16) await flush();
  }
  await flush();
}

/** `JSON.stringify([...values], null, 2)`'s lines, a value at a time (`values`: any iterable). */
export function* jsonLines(values) {
  let held;
  for (const value of values) {
    if (held === undefined) yield "[";
    else yield `  ${held},`;
    held = jsonText(value, 2).replaceAll("\n", "\n  ");
  }
  if (held === undefined) {
    yield "[]";
    return;
  }
  yield `  ${held}`;
  yield "]";
}

/**
 * Colour functions for a stream: active only when that stream is a TTY
 * (`io.isTTY` for stdout, `stream.isTTY` otherwise) and `NO_COLOR` is unset
 * or empty (no-color.org).
 */
export function colours(io, stream = io.stdout) {
  const tty = stream === io.stdout ? Boolean(io.isTTY) : Boolean(stream?.isTTY);
  const noColor = typeof io.env?.NO_COLOR === "string" && io.env.NO_COLOR !== "";
  const on = tty && !noColor;
  const sgr = (open, close) => (text) => (on ? `\x1b[${open}m${text}\x1b[${close}m` : String(text));
  return {
    enabled: on,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
    gray: sgr(90, 39),
  };
}

/**
 * Text safe to print on one line of a terminal: control characters (C0, DEL
 * and C1, line breaks and escape included) become spaces, so a file's text can
 * neither break a line nor send escape sequences. A value that has no string
 * (see `textOr`) is "?".
 */
export function printable(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
  return textOr(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

/** Multi-line text safe to print: control characters other than `\n` and tab become spaces (`\r\n` is `\n`). */
export function printableText(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
  const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
  return String(text).replace(/\r\n/g, "\n").replace(controls, " ");
}

/** Text on one line: line breaks and tabs as spaces, trimmed. */
export function oneLine(text) {
  return String(text)
    .replace(/[\r\n\t]+/g, " ")
    .trim();
}

/** At most `max` characters, with `…` when cut. */
export function clip(text, max) {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
}

/** A date as `YYYY-MM-DD HH:MM` in local time; `-` for a missing or invalid one. */
export function formatDate(date) {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) return "-";
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A Date as JSON gives it (`toISOString`), or null for a missing or invalid one. */
export function isoDate(date) {
  return date instanceof Date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}

/**
 * Writes `data` to `path` atomically: into a temporary file beside it, which
 * then replaces `path` by a rename, so `path` holds either the old bytes or the
 * new ones, never a part. With `backup`, the old file is first copied to
 * `path + ".bak"`, which must not exist yet. The temporary file is removed
 * when anything fails.
 */
export async function writeAtomic(io, path, data, { backup = false, mode } = {}) {
  const fs = fsOf(io);
  const dir = resolve(path, "..");
  const base = path.slice(dir.length + 1);
  const temp = resolve(dir, `.${base}.${randomBytes(6).toString("hex")}.tmp`);
  let handle;
  try {
    handle = await fs.open(temp, "wx", mode ?? 0o644);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    if (mode !== undefined) await fs.chmod(temp, mode);
    if (backup) await fs.copyFile(path, `${path}.bak`, constants.COPYFILE_EXCL);
    await fs.rename(temp, path);
  } catch (error) {
    if (handle) await handle.close().catch(() => {});
    await fs.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/**
 * A guard over the files a command creates and means to rename, remove or
 * finish before it ends (`migrate`'s temporary files and its `-o` output):
 * `await guard.watch(path)` before creating one, `await guard.keep(path)`
 * once it is whole and stays, `guard.close()` when done. Work
 * that runs synchronously for long (a migration in wasm) lets no signal
 * handler run, so the default action kills the process mid-write: the paths
 * are handed to a small process of its own (`remove-at-exit.js`, detached,
 * so the terminal's Ctrl-C does not reach it), which removes those still
 * there once this process has ended, however it ended. `watch` and `keep`
 * resolve once that process has answered the line: only then is it surely
 * its (Bun calls a pipe write's callback before the bytes are in the pipe,
 * and a migration that follows at once holds the event loop, so the line
 * would go with the process). If that process cannot be started (Deno
 * without `--allow-run`) or has ended, the guard does nothing (the files
 * are still removed on every error the command sees).
 */
export function leftoverGuard() {
  const none = { watch: async () => {}, keep: async () => {}, close() {} };
  let child;
  // the lines sent and not yet answered, oldest first
  const waiting = [];
  let gone = false;
  const end = () => {
    gone = true;
    for (const done of waiting.splice(0)) done();
  };
  try {
    child = spawn(process.execPath, [fileURLToPath(new URL("./remove-at-exit.js", import.meta.url))], {
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
      windowsHide: true,
    });
    child.on("error", end);
    child.on("exit", end);
    child.stdin.on("error", end);
    child.stdout.on("error", end);
    child.stdout.on("end", end);
    // one newline per line received
    child.stdout.on("data", (bytes) => {
      for (const byte of bytes) if (byte === 10) waiting.shift()?.();
      if (waiting.length === 0) child.stdout.unref?.();
    });
    // the command's end never waits for it
    child.unref();
    child.stdin.unref?.();
    child.stdout.unref?.();
  } catch {
    // Deno without --allow-run throws here, or in unref() (its child has no process then)
    try {
      child?.kill();
    } catch {}
    return none;
  }
  const send = (what, path) =>
    new Promise((done) => {
      if (gone || !child.stdin.writable) return done();
      waiting.push(done);
      // held while an answer is awaited: with nothing else to do, Node would end the command here
      child.stdout.ref?.();
      child.stdin.write(`${JSON.stringify([what, path])}\n`);
    });
  return {
    watch: (path) => send("watch", path),
    keep: (path) => send("keep", path),
    close() {
      child.stdin.end();
    },
  };
}

/**
 * Writes `data` to `path`, a new file: an existing `path` is refused (exit 2),
 * and a write that fails half-way removes what it wrote.
 */
export async function writeNew(io, path, data) {
  const fs = fsOf(io);
  const target = absolute(io, path);
  let handle;
  try {
    handle = await fs.open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  } catch (error) {
    throw new UsageError(describeFsError(path, error));
  }
  try {
    await handle.writeFile(data);
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => {});
    await fs.rm(target, { force: true }).catch(() => {});
    throw new UsageError(describeFsError(path, error));
  }
}

/**
 * A progress line on stderr (`label: done/total`), only when stderr is a
 * terminal and the work has taken a while (`io.progressAfterMs`, 400 ms).
 */
export function progress(io, label) {
  const stream = io.stderr;
  const delay = io.progressAfterMs ?? 400;
  const now = io.now ?? (() => performance.now());
  const start = now();
  let shown = false;
  let last = 0;
  return {
    update(done, total) {
      if (!stream?.isTTY) return;
      const t = now();
      if (t - start < delay || (shown && t - last < 100 && done !== total)) return;
      shown = true;
      last = t;
      stream.write(`\r\x1b[K${label}: ${done}/${total}`);
    },
    clear() {
      if (shown) stream.write("\r\x1b[K");
    },
  };
}

/**
 * A function that writes bytes to `stream` before it returns, for a writer
 * called from synchronous work (a migration streamed by `migrate`): a
 * stream with a file descriptor (the process's stdout) is written with
 * `writeSync`, so a slow reader slows the work instead of the bytes piling
 * up in memory; any other stream (the tests') with `write`.
 */
export function syncWriter(stream) {
  if (typeof stream?.fd !== "number") return (bytes) => stream.write(bytes);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  return (bytes) => {
    let done = 0;
    while (done < bytes.length) {
      try {
        done += writeSync(stream.fd, bytes, done, bytes.length - done);
      } catch (error) {
        // A non-blocking pipe that is full: wait for the reader.
        if (error?.code === "EAGAIN") {
          Atomics.wait(pause, 0, 0, 5);
          continue;
        }
        // a closed pipe stays EPIPE (the command ends quietly); a full disk is the output's fault
        if (error?.code === "EPIPE" || typeof error?.code !== "string") throw error;
        throw new UsageError(`cannot write to ${describeFsError("standard output", error)}`);
      }
    }
  };
}
