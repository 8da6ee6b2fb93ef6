"use strict";
// One writer per session file. The writer holds `<file>.lock`, created
// exclusively, holding `{ pid, hostname, acquired }`. A second process that
// wants to write gets `SessionLockedError` naming the file and the holder,
// or, with `lockTimeout`, waits. A lock whose process is gone (same host, no
// such pid) is stale and taken over. Readers never take the lock; they only
// ask `isLockedByOther` before repairing a torn last line.
// Locks are per process: a process that already holds a file's lock may open
// it again (a count is kept, the file is removed with the last release).
// A lock is the file's, not the path's: `acquire` locks the file the path
// leads to (symbolic links followed), so a second writer that opens the
// session through a link to it, or through a linked folder, finds the same
// lock; it returns that key, which `release` takes as it is.

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/** Locks this process holds: lock path → count. */
const held = new Map();
/**
 * When this process started (ms since the epoch, from its uptime, so the
 * same in each of its worker threads). A lock naming this process's pid
 * but another start time was left by an earlier process that had the same
 * pid: in a container restarted after a crash, the agent is often pid 1
 * again, under the same host name.
 */
const STARTED = Math.round(Date.now() - process.uptime() * 1000);
/** How far two readings of one process's start time may differ (clock steps, rounding). */
const SAME_START_MS = 250;
let exitHook = false;

class SessionLockedError extends Error {
  constructor(file, holder, lock = `${file}.lock`, unchecked = undefined) {
    const who =
      holder && typeof holder.pid === "number"
        ? `process ${holder.pid}${holder.hostname && holder.hostname !== os.hostname() ? ` on ${holder.hostname}` : ""}`
        : "another process";
    super(
      `session file is being written by ${who}: ${file} (lock file ${lock}; open it read-only with { readOnly: true }, or pass { lockTimeout } to wait)${unchecked ? `; whether it still runs could not be checked: ${unchecked}` : ""}`,
    );
    this.name = "SessionLockedError";
    this.code = "ESESSIONLOCKED";
    this.file = file;
    this.pid = holder?.pid;
    this.hostname = holder?.hostname;
  }
}

const lockPath = (file) => `${file}.lock`;

/**
 * The file `file` leads to: symbolic links followed (of the file, or of its
 * folder when the file does not exist yet); the path itself when neither
 * can be resolved.
 */
function lockKey(file) {
  try {
    return fs.realpathSync(file);
  } catch {}
  try {
    return path.join(fs.realpathSync(path.dirname(file)), path.basename(file));
  } catch {}
  return file;
}

/**
 * The error for a lock file that cannot be created: in a folder this process
 * may not write (pi, which takes no lock, still appends to a writable file
 * there), the system's bare EACCES on `<file>.lock` does not say why a lock
 * is wanted or how to read the session without one. Other errors pass as they are.
 */
function unwritableFolder(file, lock, error) {
  if (!["EACCES", "EPERM", "EROFS"].includes(error?.code)) return error;
  const why = error.code === "EROFS" ? "is on a read-only file system" : "is not writable";
  return Object.assign(
    new Error(
      `cannot lock session file ${file}: its folder ${why}, so the lock file ${lock} cannot be created (${error.code}); open it read-only with { readOnly: true } to read it without a lock`,
      { cause: error },
    ),
    { code: error.code, path: lock, file },
  );
}

/** The lock file's contents, or null if it is missing, unreadable or not yet written. */
function readHolder(file) {
  try {
    const value = JSON.parse(fs.readFileSync(lockPath(file), "utf8"));
    return value && typeof value === "object" ? value : null;
  } catch (error) {
    if (error?.code === "ENOENT") return undefined;
    return null;
  }
}

/**
 * Why this process could not tell whether another one runs (Deno without
 * `--allow-run` refuses `process.kill(pid, 0)`), for the error that follows.
 */
let cannotCheck;

/**
 * Whether process `pid` exists on this machine. Only ESRCH says it does not
 * (EPERM: it exists, owned by someone else); any other refusal leaves it
 * alive, so a lock whose holder cannot be checked is never taken over.
 */
function processAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if (error?.code === "ESRCH") return false;
    if (error?.code !== "EPERM") cannotCheck = String(error?.message ?? error);
    return true;
  }
}

/**
 * A holder that is gone: recorded on this host with a pid that no longer
 * runs, or with this process's pid by a process that started at another
 * time (or wrote no start time). A lock this process holds is in `held` and
 * never asked about.
 */
function isStale(holder) {
  if (holder === null || holder === undefined || holder.hostname !== os.hostname()) return false;
  if (holder.pid !== process.pid) return !processAlive(holder.pid);
  return typeof holder.started !== "number" || Math.abs(holder.started - STARTED) > SAME_START_MS;
}

/** Whether a live process other than this one holds `file`'s lock. */
function isLockedByOther(at) {
  const file = lockKey(at);
  if (held.has(lockPath(file))) return false;
  const holder = readHolder(file);
  if (holder === undefined) return false;
  return !isStale(holder);
}

/** A lock file left empty or unreadable for seconds: its writer died between creating and filling it. */
function abandoned(file) {
  try {
    return Date.now() - fs.statSync(lockPath(file)).mtimeMs > 5000;
  } catch {
    return false;
  }
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** One try: true if this process now holds the lock. Throws on errors other than "exists". */
function tryAcquire(file) {
  const lock = lockPath(file);
  const count = held.get(lock);
  // held, and its lock file still there (a folder removed under a writer
  // takes the lock file with it: the next hold makes it again)
  if (count !== undefined && fs.existsSync(lock)) {
    held.set(lock, count + 1);
    return true;
  }
  let fd;
  try {
    fd = fs.openSync(lock, "wx");
  } catch (error) {
    if (error?.code === "EEXIST") return false;
    throw unwritableFolder(file, lock, error);
  }
  try {
    fs.writeSync(
      fd,
      JSON.stringify({ pid: process.pid, hostname: os.hostname(), acquired: new Date().toISOString(), started: STARTED }),
    );
  } catch (error) {
    fs.closeSync(fd);
    try {
      fs.unlinkSync(lock);
    } catch {}
    throw error;
  }
  fs.closeSync(fd);
  held.set(lock, (count ?? 0) + 1);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", releaseAll);
  }
  return true;
}

/**
 * Moves a stale lock aside and removes it. The rename is atomic, so of two
 * processes that both saw it stale only one moves it; the other finds
 * either nothing (and retries) or the winner's fresh lock.
 */
function takeOver(file, holder) {
  const aside = `${lockPath(file)}.stale.${process.pid}.${Date.now()}`;
  try {
    fs.renameSync(lockPath(file), aside);
  } catch {
    return;
  }
  let moved = null;
  try {
    moved = JSON.parse(fs.readFileSync(aside, "utf8"));
  } catch {}
  if (moved && moved.pid !== holder.pid) {
    // Another process took the lock between our read and our rename: give it back.
    try {
      fs.linkSync(aside, lockPath(file));
    } catch {}
  }
  try {
    fs.unlinkSync(aside);
  } catch {}
}

/**
 * Takes the lock of the file `at` leads to, for this process, and returns
 * its key (for `release`). Waits up to `timeoutMs` for a live holder (0:
 * fail at once); throws `SessionLockedError` when it cannot.
 */
function acquire(at, timeoutMs = 0) {
  const file = lockKey(at);
  const deadline = Date.now() + Math.max(0, Number(timeoutMs) || 0);
  let pause = 10;
  for (;;) {
    cannotCheck = undefined;
    if (tryAcquire(file)) return file;
    const holder = readHolder(file);
    if (holder === undefined) continue;
    if (isStale(holder) || (holder === null && abandoned(file))) {
      takeOver(file, holder ?? {});
      continue;
    }
    if (Date.now() >= deadline) throw new SessionLockedError(at, holder, lockPath(file), cannotCheck);
    sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
    pause = Math.min(pause * 2, 200);
  }
}

/** Gives back one hold of a lock (`key`, as `acquire` returned it); the last one removes the lock file. */
function release(file) {
  const lock = lockPath(file);
  const count = held.get(lock);
  if (count === undefined) return;
  if (count > 1) {
    held.set(lock, count - 1);
    return;
  }
  held.delete(lock);
  const holder = readHolder(file);
  if (holder && holder.pid === process.pid) {
    try {
      fs.unlinkSync(lock);
    } catch {}
  }
}

function releaseAll() {
  for (const lock of [...held.keys()]) {
    held.set(lock, 1);
    release(lock.slice(0, -".lock".length));
  }
}

module.exports = { SessionLockedError, acquire, release, isLockedByOther, lockPath };
