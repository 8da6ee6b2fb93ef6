// `session-tree migrate FILE…`: a file as version 3, to stdout, to a new file,
// or in place (atomically, optionally keeping a backup).

import { migrate } from "../../node.js";
import {
  absolute,
  describeFsError,
  displayName,
  fsOf,
  line,
  printable,
  printJson,
  readInput,
  UsageError,
  writeAtomic,
  writeNew,
} from "../io.js";

function same(a, b) {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

async function inPlace(io, file, backup) {
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
usage, or a file that cannot be read or written (the others are still done).`,
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
      for (const file of positionals) {
        const result = await inPlace(io, file, Boolean(values.backup));
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
      if (values.json) printJson(io, results);
      return results.some((r) => r.status === "error") ? 2 : 0;
    }
    if (values.backup) throw new UsageError("--backup goes with --in-place");
    if (values.json) throw new UsageError("--json goes with --in-place (the migrated file itself is the output)");
    if (positionals.length > 1) throw new UsageError("one FILE at a time (or --in-place for several)");
    const [file] = positionals;
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
