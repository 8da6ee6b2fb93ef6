// `session-tree migrate FILE…`: a file as version 3, to stdout, to a new file,
// or in place (atomically, optionally keeping a backup).

import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  fsyncSync,
  linkSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileSource, migrate } from "../../node.js";
import {
  absolute,
  describeFsError,
  displayName,
  fsOf,
  leftoverGuard,
  line,
  printable,
  printJson,
  progress,
  readInput,
  readOptions,
  syncWriter,
  UsageError,
  withInput,
  writeAtomic,
  writeNew,
} from "../io.js";

function same(a, b) {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** All of `bytes` to the file descriptor `fd`. */
function writeAll(fd, bytes) {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/**
 * Migrates the file source `source` a piece at a time, handing the new file
 * to \`write\` in pieces: a file of any size, in memory that grows with its
 * entries, not its text. Returns false (nothing written) for a current file.
 * A long run shows how much it has read on stderr (a v1 file is read twice).
 */
function streamed(io, source, write) {
  const meter = progress(io, "migrating, MiB read");
  const mib = (n) => Math.round(n / 2 ** 20);
  let read = 0;
  const watched = {
    name: source.name,
    size: source.size,
    read(offset, length) {
      read += length;
      meter.update(mib(Math.min(read, 2 * source.size)), mib(2 * source.size));
      return source.read(offset, length);
    },
  };
  try {
    return migrate(watched, { ...readOptions(io), write });
  } finally {
    meter.clear();
  }
}

/** Hands the bytes of `source` to `write` as they are, a piece at a time. */
function copy(source, write) {
  for (let at = 0; at < source.size; at += 2 ** 20) write(source.read(at, Math.min(2 ** 20, source.size - at)));
}

/**
 * `--in-place` on the real file system, streamed: the new bytes go to a
 * temporary file beside FILE (created at the first byte: a current file
 * makes none), synced, then renamed over FILE. FILE itself is only read.
 * The temporary files are with `guard` before they exist, so a signal that
 * kills the process mid-write (the migration is synchronous: no handler of
 * ours would run) leaves none behind.
 */
async function inPlaceStreamed(io, file, backup, guard) {
  let path;
  let mode;
  let source;
  try {
    // a symbolic link stays a link: the file it points to is replaced
    path = realpathSync(absolute(io, file));
    const stat = statSync(path);
    // a pipe or a device cannot be replaced by a rename (and opening a FIFO waits for a writer)
    if (!stat.isFile() && !stat.isDirectory()) return { file, status: "error", error: `${file}: not a regular file` };
    mode = stat.mode & 0o7777;
    source = fileSource(path);
  } catch (error) {
    return { file, status: "error", error: describeFsError(file, error) };
  }
  const hidden = (what) => join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.${what}`);
  const temp = hidden("tmp");
  const tempBackup = hidden("bak.tmp");
  let fd;
  const open = () => {
    fd ??= openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    return fd;
  };
  let step = "write";
  try {
    await guard.watch(temp);
    if (backup) await guard.watch(tempBackup);
    if (!streamed(io, source, (bytes) => writeAll(open(), bytes))) return { file, status: "current" };
    fsyncSync(open());
    closeSync(fd);
    fd = undefined;
    chmodSync(temp, mode);
    step = "backup";
    if (backup) keepBackup(path, tempBackup);
    step = "rename";
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    rmSync(tempBackup, { force: true });
    const reason = / changed while it was read /.test(error?.message)
      ? error.message
      : describeFsError(step === "backup" ? `${file}.bak` : file, error);
    return { file, status: "error", error: `${reason}; ${file} is unchanged` };
  } finally {
    source.close();
  }
  return backup ? { file, status: "migrated", backup: `${file}.bak` } : { file, status: "migrated" };
}

/**
 * Copies `path` to `path.bak`, which must not exist. The copy of a large
 * file takes a while: it is made under the hidden name `temp` (with the
 * guard) and linked to its name only whole, so an interrupted copy leaves no
 * part of a backup. A file system without hard links gets the copy directly.
 */
function keepBackup(path, temp) {
  copyFileSync(path, temp, constants.COPYFILE_EXCL);
  try {
    linkSync(temp, `${path}.bak`);
  } catch (error) {
    if (error?.code === "EEXIST") throw error;
    copyFileSync(path, `${path}.bak`, constants.COPYFILE_EXCL);
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * `migrate FILE [-o OUT]` on the real file system, streamed. OUT is with a
 * guard while it is written, so a signal mid-write leaves no part of it (at
 * most an empty OUT, if it comes between the creation and the watch).
 */
function toOutputStreamed(io, file, out) {
  return withInput(io, file, async (source) => {
    if (out === undefined) {
      const write = syncWriter(io.stdout);
      if (!streamed(io, source, write)) copy(source, write);
      return;
    }
    const target = absolute(io, out);
    const guard = leftoverGuard();
    try {
      let fd;
      try {
        fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      } catch (error) {
        throw new UsageError(describeFsError(out, error));
      }
      // watched only once it is ours: an OUT that was there must never be removed
      await guard.watch(target);
      try {
        const write = (bytes) => writeAll(fd, bytes);
        if (!streamed(io, source, write)) copy(source, write);
        closeSync(fd);
      } catch (error) {
        closeSync(fd);
        rmSync(target, { force: true });
        if (typeof error?.code === "string") throw new UsageError(describeFsError(out, error));
        throw error;
      }
      await guard.keep(target);
    } finally {
      guard.close();
    }
  });
}

async function inPlace(io, file, backup, guard) {
  if (io.fs === undefined) return inPlaceStreamed(io, file, backup, guard);
  const fs = fsOf(io);
  let path;
  let bytes;
  let mode;
  try {
    // a symbolic link stays a link: the file it points to is replaced
    path = await fs.realpath(absolute(io, file));
    mode = (await fs.stat(path)).mode & 0o7777;
    bytes = await fs.readFile(path);
  } catch (error) {
    return { file, status: "error", error: describeFsError(file, error) };
  }
  const migrated = migrate(bytes);
  if (same(migrated, bytes)) return { file, status: "current" };
  try {
    await writeAtomic(io, path, migrated, { backup, mode });
  } catch (error) {
    const where = typeof error?.dest === "string" && error.dest.endsWith(".bak") ? `${file}.bak` : file;
    return { file, status: "error", error: `${describeFsError(where, error)}; ${file} is unchanged` };
  }
  return backup ? { file, status: "migrated", backup: `${file}.bak` } : { file, status: "migrated" };
}

export default {
  name: "migrate",
  summary: "a version 1 or 2 file as version 3: to stdout, a new file, or in place",
  usage: `usage: session-tree migrate FILE [-o OUT]
       session-tree migrate FILE… --in-place [--backup] [--json]

Brings a session file to version 3 as pi does when it opens one (ids and
parentIds for version 1, hookMessage roles renamed for version 2), keeping
every other line (malformed, blank) in its place. A version 3 file comes out
unchanged, byte for byte, and is never rewritten.

  (default)       the migrated file to stdout
  -o, --output OUT  write it to OUT, a new file (an existing OUT is refused)
  --in-place      replace each FILE: the new bytes go to a temporary file
                  beside it, which then takes its place by a rename, so FILE
                  holds the old or the new content, never a part
  --backup        with --in-place, keep the old file as FILE.bak (refused if
                  FILE.bak exists)
  --json          with --in-place, a JSON array: { file, status: "migrated" |
                  "current" | "error", backup?, error? }

FILE \`-\` reads standard input (not with --in-place). Exit codes: 0 ok; 2 bad
usage, or a file that cannot be read or written (the others are still done).

A FILE is read and written a piece at a time: one of any size migrates in
memory that grows with its number of entries, not its size (a version 1
file is read twice). A long migration shows its progress on stderr when
stderr is a terminal.`,
  options: {
    "in-place": { type: "boolean" },
    backup: { type: "boolean" },
    output: { type: "string", short: "o" },
    json: { type: "boolean" },
  },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length === 0) throw new UsageError("no FILE given");
    if (values["in-place"]) {
      if (values.output !== undefined) throw new UsageError("--in-place and -o do not go together");
      if (positionals.includes("-")) throw new UsageError("standard input cannot be migrated in place");
      const results = [];
      const guard = io.fs === undefined ? leftoverGuard() : undefined;
      try {
        for (const file of positionals) {
          const result = await inPlace(io, file, Boolean(values.backup), guard);
          results.push(result);
          if (result.status === "error") line(io.stderr, `session-tree migrate: ${printable(result.error)}`);
          else if (!values.json) {
            const what =
              result.status === "current"
                ? "already version 3, not rewritten"
                : `migrated to version 3${result.backup ? ` (the old file is ${result.backup})` : ""}`;
            line(io.stdout, `${printable(file)}: ${what}`);
          }
        }
      } finally {
        guard?.close();
      }
      if (values.json) printJson(io, results);
      return results.some((r) => r.status === "error") ? 2 : 0;
    }
    if (values.backup) throw new UsageError("--backup goes with --in-place");
    if (values.json) throw new UsageError("--json goes with --in-place (the migrated file itself is the output)");
    if (positionals.length > 1) throw new UsageError("one FILE at a time (or --in-place for several)");
    const [file] = positionals;
    if (file !== "-" && io.fs === undefined) {
      try {
        await toOutputStreamed(io, file, values.output);
      } catch (error) {
        // `… | head`: the reader has all it wants
        if (error?.code === "EPIPE") return 0;
        throw error;
      }
      if (values.output !== undefined) {
        line(io.stderr, `${printable(file)}: written as version 3 to ${printable(values.output)}`);
      }
      return 0;
    }
    // stdin, and an injected file system (the tests'), are read whole
    const migrated = migrate(await readInput(io, file));
    if (values.output === undefined) {
      io.stdout.write(migrated);
      return 0;
    }
    const out = values.output;
    await writeNew(io, out, migrated);
    line(io.stderr, `${printable(displayName(file))}: written as version 3 to ${printable(out)}`);
    return 0;
  },
};
