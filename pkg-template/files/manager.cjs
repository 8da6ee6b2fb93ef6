"use strict";
// pi's file-backed SessionManager (1.6.0, API for API) on `Session`: the
// format, the tree and the context are Session's; this file decides where a
// session's bytes go and when, and what happens when writing them fails.
// The durability and locking rules are in write.cjs and lock.cjs.

const fs = require("node:fs");
const path = require("node:path");
const { Session, parseSession } = require("../node.cjs");
const { findSessions, readSessionInfos } = require("./folder.cjs");
const lock = require("./lock.cjs");
const {
  expandPath,
  resolvePath,
  pathsEqual,
  getAgentDir,
  sessionDirPath,
  getDefaultSessionDir,
  sessionFileName,
} = require("./paths.cjs");
const { Appender, appendText, createText, publishText } = require("./write.cjs");

const TOKEN = Symbol("SessionManager");
const DURABILITY = ["flush", "fsync", "batch"];
/** How long "batch" lets appends wait for their fsync. */
const BATCH_MS = 200;
const NEWLINE = Buffer.from("\n");
/** `statSync`'s options for a lookup that may find nothing (one object for every append). */
const NO_THROW = Object.freeze({ throwIfNoEntry: false });
/** pi's discovery reads at most this much of a file looking for its header. */
const HEADER_SCAN_BYTES = 1024 * 1024;

// --- reading files as pi does --------------------------------------------------

// Lines are decoded one at a time. A byte order mark at the start of the
// file is skipped, as everywhere in session-tree (pi's loader keeps it, so
// its header line fails to parse and pi refuses the file).
const lineDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The first session header among the lines of `bytes` (before `limit`): lines
 * before it (oh-my-pi's `title` line, any other entry, blank or malformed
 * lines) are passed over, as pi's repository now reads a file; pi 1.6 looks
 * at the first entry only. `undefined` if none.
 */
function firstHeader(bytes, limit = bytes.length) {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (start < Math.min(bytes.length, limit)) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const line = lineDecoder.decode(bytes.subarray(start, end));
    start = end + 1;
    if (!line.trim()) continue;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isHeader(value)) return value;
  }
  return undefined;
}

function isHeader(entry) {
  return entry !== null && typeof entry === "object" && entry.type === "session" && typeof entry.id === "string";
}

/**
 * A session file's bytes and header (null when the file is no pi session).
 * A valid file that does not end in a newline (a torn last line) gets one,
 * as pi repairs it, when `repair` allows writing: the fragment stays in the
 * file as a line of its own and the next append starts on a new line.
 */
function readSessionFile(file, repair) {
  let bytes = fs.readFileSync(file);
  const header = firstHeader(bytes);
  if (!header) return { bytes, header: null };
  if (bytes[bytes.length - 1] !== 0x0a) {
    if (repair) appendText(file, "\n", false);
    bytes = Buffer.concat([bytes, NEWLINE]);
  }
  return { bytes, header };
}

/**
 * `readSessionFile` and `Session.open` of its bytes in one: the file is read
 * straight into the module's memory (`Session.openFilled`), with no `Buffer`
 * in between (on a 100 MB session, reading into a new `Buffer` and copying
 * it in cost a fifth of the open). `session` is undefined when
 * the file has no header (`size`: how many bytes it has then).
 */
function openSessionFile(file, repair) {
  const fd = fs.openSync(file, "r");
  let header = null;
  let size = 0;
  let grew = false;
  let session;
  try {
    session = Session.openFilled(fs.fstatSync(fd).size, (memory, at, length) => {
      const view = new Uint8Array(memory.buffer, at, length);
      // One byte more than the file had: a file that fills it grew since.
      const room = view.length - 1;
      let n = 0;
      for (;;) {
        const read = fs.readSync(fd, view, n, room - n, null);
        if (read === 0) break;
        n += read;
        if (n === room) {
          grew = true;
          return -1;
        }
      }
      size = n;
      header = firstHeader(view.subarray(0, n)) ?? null;
      if (!header) return -1;
      if (view[n - 1] !== 0x0a) {
        if (repair) appendText(file, "\n", false);
        view[n++] = 0x0a;
      }
      return n;
    });
  } finally {
    fs.closeSync(fd);
  }
  if (grew) {
    // It grew between its stat and its read (a writer that ignores the
    // lock): read whole, however long it now is, as readFileSync reads.
    const { bytes, header: found } = readSessionFile(file, repair);
    return { session: found ? Session.open(bytes) : undefined, header: found, size: bytes.length };
  }
  return { session, header, size };
}

/** The header of a session file, read from its start only; null if unreadable or none. */
function readHeader(file) {
  let fd;
  try {
    fd = fs.openSync(file, "r");
    const chunks = [];
    let total = 0;
    const chunk = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n > 0) {
        chunks.push(Buffer.from(chunk.subarray(0, n)));
        total += n;
      }
      const bytes = Buffer.concat(chunks);
      const header = firstHeader(bytes, n === 0 ? bytes.length : bytes.lastIndexOf(0x0a) + 1);
      if (header !== undefined) return header;
      if (n === 0 || total >= HEADER_SCAN_BYTES) return null;
    }
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * pi's `loadEntriesFromFile`: the entries of a session file (header
 * included, not migrated), `[]` if it is missing or no pi session. Blank,
 * malformed and falsy lines are skipped. A torn last line is repaired as
 * pi does, unless another live process holds the file's write lock.
 */
function loadEntriesFromFile(filePath) {
  const file = expandPath(filePath);
  if (!fs.existsSync(file)) return [];
  const { bytes, header } = readSessionFile(file, !lock.isLockedByOther(file));
  if (!header) return [];
  // parseSession keeps falsy values (pi's string parser does); the file loader skips them
  return parseSession(bytes).filter(Boolean);
}

const headerCwd = (header) => (typeof header?.cwd === "string" ? header.cwd : undefined);
const cwdMatches = (cwd, resolvedCwd) => cwd !== undefined && cwd !== "" && pathsEqual(resolvePath(cwd), resolvedCwd);

function mtimeOf(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * The newest file (by mtime) in `sessionDir` with a header (and `cwd`, if
 * given) that `accept` takes; null if none.
 */
function mostRecent(sessionDir, cwd, accept = () => true) {
  const dir = expandPath(sessionDir);
  const resolvedCwd = cwd ? resolvePath(cwd) : undefined;
  try {
    const files = fs
      .readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => path.join(dir, name))
      // one file that cannot be stat'ed (a dangling link, a file removed since
      // the readdir) is passed over, not the end of the search (pi's stat,
      // outside its guard, makes the whole answer null)
      .map((file) => ({ file, mtime: mtimeOf(file) }))
      .filter(({ mtime }) => mtime !== null)
      .sort((a, b) => b.mtime - a.mtime);
    for (const { file } of files) {
      const header = readHeader(file);
      if (header && (!resolvedCwd || cwdMatches(headerCwd(header), resolvedCwd)) && accept(file)) return file;
    }
  } catch {
    // a folder that cannot be read has no recent session, as in pi
  }
  return null;
}

/** pi's `findMostRecentSession`: the newest file (by mtime) in `sessionDir` with a header (and `cwd`, if given). */
function findMostRecentSession(sessionDir, cwd) {
  return mostRecent(sessionDir, cwd);
}

// --- listing ------------------------------------------------------------------

/** The text of a user or assistant message, as pi's list searches it. */
function messageText(message) {
  if (!message || typeof message.role !== "string" || !("content" in message)) return "";
  if (message.role !== "user" && message.role !== "assistant") return "";
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => block?.type === "text")
    .map((block) => block.text)
    .join(" ");
}

/** pi's `SessionInfo` for a `listSessions` row; `allMessagesText` is read from the file when first asked for. */
function toPiInfo(row) {
  const { info } = row;
  const out = {
    path: row.path,
    id: info.id,
    cwd: info.cwd,
    name: info.name,
    parentSessionPath: info.parentSession,
    created: info.created,
    modified: info.modified,
    messageCount: info.messageCount,
    firstMessage: info.firstMessage,
  };
  let text;
  Object.defineProperty(out, "allMessagesText", {
    enumerable: true,
    configurable: true,
    get() {
      if (text === undefined) {
        try {
          text = parseSession(fs.readFileSync(row.path))
            .filter((entry) => entry?.type === "message")
            .map((entry) => messageText(entry.message))
            .filter((t) => t)
            .join(" ");
        } catch {
          text = "";
        }
      }
      return text;
    },
  });
  return out;
}

const newestFirst = (infos) => infos.sort((a, b) => b.modified.getTime() - a.modified.getTime());

async function listFiles(files, onProgress, signal) {
  const rows = await readSessionInfos(files, {
    signal,
    concurrency: 16,
    onProgress: onProgress ? (done, total) => onProgress(done, total) : undefined,
  });
  return rows.filter((row) => row.info !== null).map(toPiInfo);
}

/**
 * Makes the folder `dir` (and those above it) if missing. A file where a
 * folder must be makes Node say `EEXIST … mkdir '<dir>'` (or `ENOTDIR`),
 * naming neither the file in the way nor why: the error says which path is
 * a file, with pi's code for it (`ENOTDIR`).
 */
function makeFolder(dir) {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (error) {
    if (error?.code !== "EEXIST" && error?.code !== "ENOTDIR") throw error;
    const there = (p) => {
      try {
        return fs.lstatSync(p);
      } catch {
        return null;
      }
    };
    // the nearest path on the way that is there: it is no folder
    let blocker = dir;
    let stat = there(blocker);
    while (stat === null && path.dirname(blocker) !== blocker) stat = there((blocker = path.dirname(blocker)));
    const what = stat?.isSymbolicLink() ? "a symbolic link to no folder" : "a file, not a folder";
    throw Object.assign(
      new Error(`ENOTDIR: not a directory: the session folder ${dir} cannot be made, as ${blocker} is ${what}`, {
        cause: error,
      }),
      { code: "ENOTDIR", path: blocker },
    );
  }
}

// --- the manager -------------------------------------------------------------

function checkOptions(options) {
  const durability = options?.durability ?? "flush";
  if (!DURABILITY.includes(durability))
    throw new TypeError(`durability must be "flush", "fsync" or "batch", not ${JSON.stringify(durability)}`);
  const lockTimeout = options?.lockTimeout ?? 0;
  if (typeof lockTimeout !== "number" || Number.isNaN(lockTimeout) || lockTimeout < 0)
    throw new TypeError(`lockTimeout must be a number of milliseconds >= 0, not ${String(lockTimeout)}`);
  return { durability, lockTimeout, readOnly: options?.readOnly === true };
}

/** Managers with an fsync still owed ("batch"): synced when the process exits. */
const owed = new Set();
let exitHook = false;

const isConversation = (message) =>
  message !== null && typeof message === "object" && (message.role === "user" || message.role === "assistant");

class SessionManager {
  #cwd;
  #dir;
  #persist;
  #file;
  /** @type {Session} */
  #session;
  /** Whether the file holds this session (else nothing is written until the first user or assistant message). */
  #flushed = false;
  /** The file whose write lock this manager holds. */
  #locked;
  /** That lock's key, as `lock.acquire` returned it (the file the path leads to). */
  #lockKey;
  /** That file held open for appends (an `Appender`), from the first append on. */
  #out;
  #durability;
  #lockTimeout;
  #readOnly;
  #timer;
  #syncError;
  #closed = false;

  /** Use the static constructors (`create`, `open`, `continueRecent`, `inMemory`, `forkFrom`). */
  constructor(token, cwd, dir, persist, options) {
    if (token !== TOKEN)
      throw new TypeError(
        "SessionManager has no public constructor: use SessionManager.create, open, continueRecent, inMemory or forkFrom",
      );
    const { durability, lockTimeout, readOnly } = checkOptions(options);
    this.#cwd = resolvePath(cwd);
    this.#dir = dir;
    this.#persist = persist;
    this.#durability = durability;
    this.#lockTimeout = lockTimeout;
    this.#readOnly = readOnly;
    if (persist && dir && !readOnly && !fs.existsSync(dir)) makeFolder(dir);
  }

  // --- constructors ----------------------------------------------------------

  /** A new session in `sessionDir` (default: pi's folder for `cwd`); no file until the first user or assistant message. */
  static create(cwd, sessionDir, options) {
    const dir = sessionDir ? expandPath(sessionDir) : getDefaultSessionDir(cwd);
    const manager = new SessionManager(TOKEN, cwd, dir, true, options);
    manager.newSession(options);
    return manager;
  }

  /**
   * Opens a session file for writing (taking its lock), or read-only with
   * `{ readOnly: true }`. A missing file is a new session that keeps the path;
   * a 0-byte file gets a header; a v1/v2 file is migrated and rewritten.
   */
  static open(filePath, sessionDir, cwdOverride, options) {
    const file = resolvePath(filePath);
    const dir = sessionDir ? expandPath(sessionDir) : path.dirname(file);
    const manager = new SessionManager(TOKEN, cwdOverride ?? process.cwd(), dir, true, options);
    manager.#setFile(file, cwdOverride === undefined);
    return manager;
  }

  /**
   * The most recent session of `cwd` in `sessionDir` (default: pi's folder)
   * that no other live process is writing, or a new one.
   */
  static continueRecent(cwd, sessionDir, options) {
    const dir = sessionDir ? expandPath(sessionDir) : getDefaultSessionDir(cwd);
    const filter = sessionDir !== undefined && !pathsEqual(dir, sessionDirPath(cwd));
    // a second agent in the same project continues the latest session nobody is writing
    const free = options?.readOnly ? undefined : (file) => !lock.isLockedByOther(file);
    const recent = mostRecent(dir, filter ? cwd : undefined, free);
    const manager = new SessionManager(TOKEN, cwd, dir, true, options);
    if (recent) manager.#setFile(recent, false);
    else manager.newSession();
    return manager;
  }

  /** A session that is never written: new, or from `entries` (with or without a header). */
  static inMemory(cwd = process.cwd(), options, entries) {
    const manager = new SessionManager(TOKEN, cwd, "", false, undefined);
    if (entries?.length && entries.some((entry) => entry?.type === "session")) {
      manager.#session = Session.open(entries);
    } else {
      manager.newSession(options);
      if (entries?.length) manager.#session.appendJsonl(`${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
    }
    return manager;
  }

  /**
   * Copies every entry of `sourcePath` under a new header (its `parentSession`
   * the source, its `cwd` `targetCwd`) into a new file in `sessionDir`
   * (default: pi's folder for `targetCwd`), published by rename, and opens it.
   */
  static forkFrom(sourcePath, targetCwd, sessionDir, options) {
    const source = resolvePath(sourcePath);
    const target = resolvePath(targetCwd);
    const read = fs.existsSync(source) ? readSessionFile(source, !lock.isLockedByOther(source)) : { header: null };
    if (!read.header) throw new Error(`Cannot fork: source session file is empty or invalid: ${source}`);
    const dir = sessionDir ? expandPath(sessionDir) : getDefaultSessionDir(target);
    if (!fs.existsSync(dir)) makeFolder(dir);
    const manager = new SessionManager(TOKEN, target, dir, true, options);
    const from = Session.open(read.bytes);
    let text;
    try {
      text = from.fork({ cwd: target, id: options?.id ?? null, parentSession: source });
    } finally {
      from.free();
    }
    const header = JSON.parse(text.slice(0, text.indexOf("\n")));
    const file = path.join(dir, sessionFileName(header.timestamp, header.id));
    manager.#publishNew(file, text);
    return manager;
  }

  /** The file in `sessionDir` (default: pi's folder for `cwd`) whose header has id `id`. */
  static findById(cwd, id, sessionDir) {
    const dir = sessionDir ? expandPath(sessionDir) : getDefaultSessionDir(cwd);
    const filter = sessionDir !== undefined && !pathsEqual(dir, sessionDirPath(cwd));
    const resolvedCwd = resolvePath(cwd);
    try {
      for (const name of fs.readdirSync(dir)) {
        if (!name.endsWith(".jsonl")) continue;
        const file = path.join(dir, name);
        const header = readHeader(file);
        if (header?.id !== id) continue;
        if (filter && !cwdMatches(headerCwd(header), resolvedCwd)) continue;
        return file;
      }
    } catch {
      // best effort, as pi
    }
    return undefined;
  }

  /** pi's session list for `cwd`: `SessionInfo`s, newest first. */
  static async list(cwd, sessionDir, onProgress, signal) {
    const dir = sessionDir ? expandPath(sessionDir) : getDefaultSessionDir(cwd);
    const filter = sessionDir !== undefined && !pathsEqual(dir, sessionDirPath(cwd));
    const resolvedCwd = resolvePath(cwd);
    signal?.throwIfAborted();
    let files;
    try {
      files = await findSessions(dir);
    } catch {
      return [];
    }
    const infos = await listFiles(files, onProgress, signal);
    return newestFirst(infos.filter((info) => !filter || cwdMatches(info.cwd, resolvedCwd)));
  }

  /** Every session of every project (`sessionDir`: one folder instead), newest first. */
  static async listAll(sessionDirOrOnProgress, onProgressOrSignal, signal) {
    const dir = typeof sessionDirOrOnProgress === "string" ? expandPath(sessionDirOrOnProgress) : undefined;
    const onProgress =
      typeof sessionDirOrOnProgress === "function"
        ? sessionDirOrOnProgress
        : typeof onProgressOrSignal === "function"
          ? onProgressOrSignal
          : undefined;
    const abort =
      typeof sessionDirOrOnProgress === "string" || typeof onProgressOrSignal === "function"
        ? signal
        : (onProgressOrSignal ?? signal);
    abort?.throwIfAborted();
    let files = [];
    try {
      if (dir) files = await findSessions(dir);
      else {
        const root = path.join(getAgentDir(), "sessions");
        if (!fs.existsSync(root)) return [];
        const folders = (await fs.promises.readdir(root, { withFileTypes: true }))
          .filter((d) => d.isDirectory() || d.isSymbolicLink())
          .map((d) => path.join(root, d.name));
        for (const folder of folders) files.push(...(await findSessions(folder).catch(() => [])));
      }
    } catch {
      return [];
    }
    return newestFirst(await listFiles(files, onProgress, abort));
  }

  // --- file state ------------------------------------------------------------

  /**
   * Opens `file` in this manager (pi's `_setSessionFile`), under its lock
   * unless read-only. The file is locked and read before the current one is
   * given back: one that cannot be taken (another process writes it, it is no
   * session) leaves this manager on its own file, lock and session. (pi has
   * already switched its file then, and its next appends go into the file
   * it refused.)
   */
  #setFile(file, cwdFromHeader) {
    if (!fs.existsSync(file)) {
      this.newSession();
      this.#file = file;
      return;
    }
    const key = this.#readOnly ? undefined : lock.acquire(file, this.#lockTimeout);
    let session;
    let written = true;
    let cwd = this.#cwd;
    try {
      const read = openSessionFile(file, !this.#readOnly);
      session = read.session;
      if (read.header) {
        if (cwdFromHeader && headerCwd(read.header) !== undefined) cwd = resolvePath(headerCwd(read.header));
        if (session.migrated && !this.#readOnly) publishText(file, session.toJsonl(), true);
      } else {
        if (read.size > 0) throw new Error(`Session file is not a valid pi session: ${file}`);
        // an empty file: a new session, whose header is written into it now
        session = Session.create({ cwd, id: null });
        if (this.#readOnly) written = false;
        else {
          const text = session.toJsonl();
          publishText(file, text, true);
          session.free();
          session = undefined;
          session = Session.open(text);
          session.takePendingLines();
        }
      }
    } catch (error) {
      session?.free();
      if (key !== undefined) lock.release(key);
      throw error;
    }
    this.#let_go();
    this.#replace(session);
    this.#cwd = cwd;
    this.#file = file;
    this.#flushed = written;
    if (key !== undefined) {
      this.#locked = file;
      this.#lockKey = key;
    }
  }

  /** Writes a new file in one piece (a fork, a branched session) under its lock, then makes it this manager's. */
  #publishNew(file, text) {
    const session = Session.open(text);
    let key;
    try {
      key = lock.acquire(file, this.#lockTimeout);
      try {
        publishText(file, text, false);
      } catch (error) {
        lock.release(key);
        throw error;
      }
    } catch (error) {
      session.free();
      throw error;
    }
    this.#let_go();
    this.#replace(session);
    this.#file = file;
    this.#locked = file;
    this.#lockKey = key;
    this.#flushed = true;
  }

  /** The session, for a read or a leaf move; a closed manager has none. */
  get #live() {
    this.#checkOpen();
    return this.#session;
  }

  /**
   * Throws for a closed manager: its session's memory is given back, and a
   * file it switched to would hold a lock nothing releases.
   */
  #checkOpen() {
    if (this.#closed) throw new Error(`session manager is closed: ${this.#file}`);
  }

  #replace(session) {
    const old = this.#session;
    this.#session = session;
    if (old && old !== session) old.free();
  }

  /** Gives back the current file: syncs what "batch" owes, closes it, releases the lock. */
  #let_go() {
    this.#syncNow();
    this.#closeOut();
    this.#unlock();
  }

  /** Takes `file`'s write lock (waiting up to lockTimeout). */
  #lock(file) {
    this.#lockKey = lock.acquire(file, this.#lockTimeout);
    this.#locked = file;
  }

  #unlock() {
    if (this.#locked === undefined) return;
    lock.release(this.#lockKey);
    this.#locked = undefined;
    this.#lockKey = undefined;
  }

  #syncNow() {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      owed.delete(this);
      try {
        this.#out?.sync();
      } catch (error) {
        this.#syncError = error;
      }
    }
  }

  #scheduleSync() {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#syncNow(), BATCH_MS);
    this.#timer.unref?.();
    owed.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on("exit", () => {
        for (const manager of [...owed]) manager.#syncNow();
      });
    }
  }

  /**
   * Runs one append on the session and stores its line. If storing fails,
   * the file is left as it was and the session as it was before the append,
   * with the leaf at `leafAfterFailure` (pi's rollback; by default the new
   * entry's parent), and the error is thrown.
   */
  #append(run, conversation, leafAfterFailure) {
    this.#checkOpen();
    if (this.#readOnly) throw new Error(`session opened read-only, cannot append: ${this.#file}`);
    const result = run();
    if (!this.#persist || !this.#file) return result;
    // A view of the session's buffer in wasm memory: written before the next
    // call into the module (which may reuse it), and never kept.
    const bytes = this.#session.takePendingView();
    try {
      if (this.#syncError) {
        const error = this.#syncError;
        this.#syncError = undefined;
        throw new Error(`an earlier fsync of ${this.#file} failed: ${error.message}`, { cause: error });
      }
      if (!this.#flushed) {
        if (conversation) this.#writeWhole();
      } else if (bytes.length > 0) {
        // a file removed under a running session (its folder deleted, say) is
        // written again whole: an appended line alone would have no header.
        // The path is looked up on every append, as pi's appendFileSync does:
        // a file replaced under the writer (an editor's rename) gets the line,
        // not the unlinked file the descriptor still holds, and a file whose
        // size is not the writer's (another writer's torn line) is checked
        // for its last newline first.
        const now = fs.statSync(this.#file, NO_THROW);
        if (now === undefined) this.#writeWhole();
        else {
          if (this.#out !== undefined && !this.#out.holds(now)) this.#closeOut();
          this.#out ??= new Appender(this.#file);
          // A file emptied under the writer (truncated by another program)
          // lost its header with the rest: a line alone would leave a file
          // that no longer opens, so the whole session goes into it, as into
          // a removed one. (`bytes` is not read after toJsonl: the call into
          // the module may reuse its memory.)
          const data = now.size === 0 ? this.#session.toJsonl() : bytes;
          this.#out.append(data, this.#durability === "fsync", now.size);
          if (this.#durability === "batch") this.#scheduleSync();
        }
      }
    } catch (error) {
      this.#rollback(leafAfterFailure);
      throw error;
    }
    return result;
  }

  /** Creates the file with the whole session (header and every entry), under its lock, its folder made if missing. */
  #writeWhole() {
    const file = this.#file;
    this.#closeOut();
    makeFolder(path.dirname(file));
    if (this.#locked === file && !fs.existsSync(lock.lockPath(this.#lockKey))) {
      // the folder went away with the lock file in it: take the lock again
      this.#unlock();
    }
    if (this.#locked !== file) this.#lock(file);
    const text = this.#session.toJsonl();
    try {
      createText(file, text, this.#durability !== "flush");
    } catch (error) {
      this.#unlock();
      throw error;
    }
    this.#flushed = true;
    this.#reopen(text);
  }

  /**
   * The session read back from `text`, leaf kept. A new Session holds its
   * lines back until the first user or assistant message; once the file
   * exists, an opened one hands out every line as it is appended.
   */
  #reopen(text, leafId = this.#session.leafId) {
    const session = Session.open(text);
    if (leafId === null || leafId === undefined) session.resetLeaf();
    else session.branch(leafId);
    session.takePendingLines();
    this.#replace(session);
  }

  #closeOut() {
    const out = this.#out;
    this.#out = undefined;
    out?.close();
  }

  /**
   * The session without its last line (the append that could not be stored),
   * leaf at `leafId` (by default the parent that line names).
   */
  #rollback(leafId) {
    const text = this.#session.toJsonl();
    const cut = text.lastIndexOf("\n", text.length - 2) + 1;
    this.#reopen(text.slice(0, cut), leafId === undefined ? JSON.parse(text.slice(cut)).parentId : leafId);
  }

  // --- pi's instance API -------------------------------------------------------

  /** Switches to another session file (pi's `setSessionFile`), giving back the current one. */
  setSessionFile(sessionFile) {
    this.#checkOpen();
    this.#setFile(resolvePath(sessionFile), false);
  }

  /** Starts a new session in this manager's folder; returns its future file (undefined in memory). */
  newSession(options) {
    this.#checkOpen();
    this.#let_go();
    const session = Session.create({ cwd: this.#cwd, id: options?.id ?? null, parentSession: options?.parentSession });
    this.#replace(session);
    this.#flushed = false;
    if (this.#persist) {
      const header = session.header;
      this.#file = path.join(this.#dir, sessionFileName(header.timestamp, header.id));
    }
    return this.#file;
  }

  isPersisted() {
    return this.#persist;
  }
  getCwd() {
    return this.#cwd;
  }
  getSessionDir() {
    return this.#dir;
  }
  usesDefaultSessionDir() {
    return pathsEqual(this.#dir, sessionDirPath(this.#cwd));
  }
  getSessionId() {
    return this.#live.header?.id ?? "";
  }
  getSessionFile() {
    return this.#file;
  }
  getHeader() {
    return this.#live.header;
  }
  getLeafId() {
    return this.#live.leafId;
  }
  getLeafEntry() {
    return this.#live.getLeafEntry();
  }
  getEntry(id) {
    return this.#live.getEntry(id);
  }
  getChildren(id) {
    return this.#live.getChildren(id);
  }
  getLabel(id) {
    return this.#live.getLabel(id);
  }
  getBranch(fromId) {
    return this.#live.getBranch(fromId);
  }
  getEntries() {
    return this.#live.getEntries();
  }
  getTree() {
    return this.#live.getTree();
  }
  getSessionName() {
    return this.#live.getSessionName();
  }
  getEntryCount() {
    return this.#live.getEntryCount();
  }
  buildSessionContext(leafId) {
    return this.#live.buildSessionContext(leafId);
  }
  buildContextEntries(leafId) {
    return this.#live.buildContextEntries(leafId);
  }
  buildSessionProjection(leafId) {
    return this.#live.buildSessionProjection(leafId);
  }
  currentSystemMessage(leafId) {
    return this.#live.currentSystemMessage(leafId);
  }
  diagnostics() {
    return this.#live.diagnostics();
  }

  appendMessage(message) {
    return this.#append(() => this.#session.appendMessage(message), isConversation(message));
  }
  appendThinkingLevelChange(thinkingLevel) {
    return this.#append(() => this.#session.appendThinkingLevelChange(thinkingLevel));
  }
  appendModelChange(provider, modelId) {
    return this.#append(() => this.#session.appendModelChange(provider, modelId));
  }
  appendCompaction(summary, firstKeptEntryId, tokensBefore, details, fromHook, usage) {
    return this.#append(() =>
      this.#session.appendCompaction(summary, firstKeptEntryId, tokensBefore, details, fromHook, usage),
    );
  }
  appendUsage(kind, provider, model, usage, note) {
    return this.#append(() => this.#session.appendUsage(kind, provider, model, usage, note));
  }
  appendContextEdit(targetId, replacement) {
    return this.#append(() => this.#session.appendContextEdit(targetId, replacement));
  }
  appendCustomEntry(customType, data) {
    return this.#append(() => this.#session.appendCustomEntry(customType, data));
  }
  appendSessionInfo(name) {
    return this.#append(() => this.#session.appendSessionInfo(name));
  }
  appendCustomMessageEntry(customType, content, display, details) {
    return this.#append(() => this.#session.appendCustomMessageEntry(customType, content, display, details));
  }
  appendLabelChange(targetId, label) {
    return this.#append(() => this.#session.appendLabelChange(targetId, label));
  }
  branch(branchFromId) {
    this.#live.branch(branchFromId);
  }
  resetLeaf() {
    this.#live.resetLeaf();
  }
  branchWithSummary(branchFromId, summary, details, fromHook, usage) {
    // pi moves the leaf before appending, so a failed write leaves it at branchFromId
    return this.#append(
      () => this.#session.branchWithSummary(branchFromId, summary, details, fromHook, usage),
      false,
      branchFromId,
    );
  }

  /**
   * The path to `leafId` as a new session (pi's `createBranchedSession`). In a
   * persisted manager it becomes this manager's session, in a new file that is
   * published by rename now if the path holds a conversation (else at the first
   * user or assistant message); returns that file (undefined in memory).
   */
  createBranchedSession(leafId) {
    this.#checkOpen();
    if (this.#readOnly) throw new Error(`session opened read-only, cannot branch: ${this.#file}`);
    const text = this.#session.createBranchedSession(leafId, {
      cwd: this.#cwd,
      parentSession: this.#persist ? this.#file : undefined,
    });
    if (!this.#persist) {
      this.#replace(Session.open(text));
      return undefined;
    }
    const header = JSON.parse(text.slice(0, text.indexOf("\n")));
    const file = path.join(this.#dir, sessionFileName(header.timestamp, header.id));
    const session = Session.open(text);
    const conversation = session.getEntries().some((entry) => entry.type === "message" && isConversation(entry.message));
    if (conversation) {
      session.free();
      this.#publishNew(file, text);
    } else {
      this.#let_go();
      this.#replace(session);
      this.#file = file;
      this.#flushed = false;
    }
    return file;
  }

  // --- beyond pi -----------------------------------------------------------------

  /** The durability level appends use: "flush", "fsync" or "batch". */
  getDurability() {
    return this.#durability;
  }

  /** Whether this manager only reads (opened with `{ readOnly: true }`). */
  isReadOnly() {
    return this.#readOnly;
  }

  /**
   * Puts the session on disk now: a new session's file is written even before
   * its first user or assistant message, and what "batch" owes is fsynced.
   * Returns false for a session that is never written (in memory, read-only),
   * true otherwise (as pi's later `flush`). Throws if an earlier background
   * fsync failed.
   */
  flush() {
    if (!this.#persist || this.#readOnly || !this.#file || this.#closed) return false;
    if (!this.#flushed) {
      this.#session.takePendingLines();
      this.#writeWhole();
    }
    this.#syncNow();
    if (this.#syncError) {
      const error = this.#syncError;
      this.#syncError = undefined;
      throw error;
    }
    return true;
  }

  /**
   * Syncs what is owed, releases the write lock and the session's memory.
   * The manager cannot append afterwards. Calling it again does nothing.
   */
  close() {
    if (this.#closed) return;
    try {
      if (this.#flushed) this.flush();
    } finally {
      this.#closed = true;
      this.#let_go();
      this.#session.free();
    }
  }
}

module.exports = {
  SessionManager,
  loadEntriesFromFile,
  findMostRecentSession,
  getDefaultSessionDir,
};
