"use strict";
// Every write the file-backed manager makes, each with its guarantee:
// - `appendText`: the bytes land at the end in one write, or the file is cut
//   back to the size it had (a failed or short write leaves no partial line);
// - `Appender`: the same for a writer's run of appends, on one descriptor
//   held open, one `write` call an append;
// - `createText`: a new file, created exclusively; if writing it fails, the
//   file this call created is removed again;
// - `publishText`: a whole file written to a temporary file in the same
//   folder, synced, then renamed (or linked, when it must not replace
//   anything) into place: a crash leaves the old file or the new one.
// node:fs is called through the module object, at call time, so that tests
// can put a failing `writeSync`, `fsyncSync` or `renameSync` in its place.

const fs = require("node:fs");
const path = require("node:path");

/** Writes all of `bytes` at the fd's position, looping over short writes. */
function writeAll(fd, bytes) {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done);
    if (n <= 0) throw Object.assign(new Error("write made no progress"), { code: "EIO" });
    done += n;
  }
}

/** Closes `fd`, ignoring errors: used on paths that already throw. */
function closeQuietly(fd) {
  try {
    fs.closeSync(fd);
  } catch {}
}

/**
 * Appends `text` to `file` (which must exist) and, with `sync`, fsyncs it.
 * On any failure the file is truncated back to its size before the call, and
 * the error is thrown again.
 */
function appendText(file, text, sync) {
  const bytes = Buffer.from(text, "utf8");
  const fd = fs.openSync(file, "a");
  let before = -1;
  try {
    before = fs.fstatSync(fd).size;
    writeAll(fd, bytes);
    if (sync) fs.fsyncSync(fd);
  } catch (error) {
    if (before >= 0) {
      try {
        fs.ftruncateSync(fd, before);
      } catch {}
    }
    closeQuietly(fd);
    throw error;
  }
  fs.closeSync(fd);
}

/**
 * A session file its writer (the holder of its lock) appends to: opened once,
 * each append one `write` call at its end. The file's size is tracked rather
 * than asked for on every append; a failed append cuts the file back to it,
 * unless what follows that size is not (the start of) its own bytes: then
 * something else wrote to the file meanwhile, nothing is cut (that could cut
 * another writer's lines), and the next append starts on a new line if the
 * file does not end with one.
 */
class Appender {
  constructor(file) {
    this.file = file;
    this.fd = fs.openSync(file, "a+");
    /** The file's size after our last append; null when it must be asked for. */
    this.size = null;
    closer.register(this, this.fd, this);
    try {
      const { dev, ino } = fs.fstatSync(this.fd);
      this.id = { dev, ino };
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Whether `stats` (of the path, taken now) describe the file this appender holds open. */
  holds(stats) {
    return stats.dev === this.id.dev && stats.ino === this.id.ino;
  }

  /**
   * Appends `bytes` (a Uint8Array or a string, as UTF-8) and, with `sync`,
   * fsyncs. `seen`, the file's size if the caller just looked, tells whether
   * something else wrote to it since our last append; then its last byte is
   * checked first, and a torn line ended, as when the appender opens.
   */
  append(bytes, sync, seen) {
    const data = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    let size = seen === undefined || seen === this.size ? this.size : null;
    if (size === null) {
      size = fs.fstatSync(this.fd).size;
      if (size > 0 && !endsWithNewline(this.fd, size)) {
        writeAll(this.fd, NEWLINE);
        size += 1;
      }
    }
    try {
      writeAll(this.fd, data);
      if (sync) fs.fsyncSync(this.fd);
    } catch (error) {
      this.size = null;
      let now = -1;
      try {
        now = fs.fstatSync(this.fd).size;
      } catch {}
      // Cut back only if what follows `size` is the start of our bytes;
      // anything else there is another writer's, and stays.
      if (now >= size && now - size <= data.length && isPrefix(this.fd, size, data.subarray(0, now - size))) {
        try {
          fs.ftruncateSync(this.fd, size);
          this.size = size;
        } catch {}
      }
      throw error;
    }
    this.size = size + data.length;
  }

  sync() {
    fs.fsyncSync(this.fd);
  }

  close() {
    if (this.fd === -1) return;
    closer.unregister(this);
    const fd = this.fd;
    this.fd = -1;
    fs.closeSync(fd);
  }
}

/** Closes the descriptor of an appender that was dropped without `close()`. */
const closer = new FinalizationRegistry((fd) => closeQuietly(fd));
const NEWLINE = Buffer.from("\n");

/** Whether the file holds `bytes` at `offset`. */
function isPrefix(fd, offset, bytes) {
  const found = Buffer.alloc(bytes.length);
  let done = 0;
  while (done < bytes.length) {
    const n = fs.readSync(fd, found, done, bytes.length - done, offset + done);
    if (n <= 0) return false;
    done += n;
  }
  return found.equals(bytes);
}

function endsWithNewline(fd, size) {
  const last = Buffer.alloc(1);
  return fs.readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a;
}

/**
 * Creates `file` with `text`; throws `EEXIST` if it exists. A failure after
 * the file was created removes it, so the call leaves nothing behind.
 */
function createText(file, text, sync) {
  const fd = fs.openSync(file, "wx");
  try {
    writeAll(fd, Buffer.from(text, "utf8"));
    if (sync) fs.fsyncSync(fd);
  } catch (error) {
    closeQuietly(fd);
    try {
      fs.unlinkSync(file);
    } catch {}
    throw error;
  }
  fs.closeSync(fd);
  if (sync) syncFolder(path.dirname(file));
}

/** fsyncs a folder, so that a rename or a new name in it survives a power loss (not possible on Windows). */
function syncFolder(dir) {
  let fd;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot open a folder; some file systems refuse fsync on one.
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

let counter = 0;
/** A temporary name next to `file`, hidden and not ending in `.jsonl`, so no listing sees it. */
function temporaryName(file) {
  counter = (counter + 1) % 1e9;
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${counter}.tmp`);
}

/**
 * Writes `text` as `file` through a synced temporary file in the same
 * folder. `replace: true` renames over an existing file (a migration);
 * otherwise the new name is linked, so an existing file is never replaced
 * (EEXIST is thrown), falling back to rename where links are unsupported.
 * A file replaced through a symbolic link is replaced where the link points.
 */
function publishText(at, text, replace) {
  // A file replaced through a symbolic link is its target: the link stays a
  // link (pi rewrites such a file in place, through the link).
  const file = replace ? realTarget(at) : at;
  const tmp = temporaryName(file);
  try {
    const fd = fs.openSync(tmp, "wx");
    try {
      writeAll(fd, Buffer.from(text, "utf8"));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (replace) fs.renameSync(tmp, file);
    else linkInto(tmp, file);
  } catch (error) {
    try {
      fs.unlinkSync(tmp);
    } catch {}
    throw error;
  }
  syncFolder(path.dirname(file));
}

/** The file a path names, symbolic links followed; the path itself if that cannot be found. */
function realTarget(file) {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function linkInto(tmp, file) {
  try {
    fs.linkSync(tmp, file);
  } catch (error) {
    if (error?.code === "EEXIST") throw error;
    // No hard links here (some network and FAT file systems): rename, having
    // checked the name is free.
    if (fs.existsSync(file)) throw Object.assign(new Error(`file already exists: ${file}`), { code: "EEXIST" });
    fs.renameSync(tmp, file);
    return;
  }
  fs.unlinkSync(tmp);
}

module.exports = { Appender, appendText, createText, publishText, syncFolder, writeAll };
