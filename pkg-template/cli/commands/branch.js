// `session-tree branch FILE --leaf ID`: the path to a leaf as a new session.

import { absolute, displayName, line, printable, UsageError, withInput, writeNew } from "../io.js";
import { openAt } from "./tree.js";

export default {
  name: "branch",
  summary: "the path to an entry as a new session file (pi's createBranchedSession)",
  usage: `usage: session-tree branch FILE --leaf ID [-o OUT]

A new session holding the path from the root to ID, as pi's
createBranchedSession writes it: a new header (id, time, FILE as its
parentSession), the entries of the path chained one after the other, labels on
the path re-added at the end. FILE itself is not changed.

  --leaf ID         the last entry of the new session (required)
  -o, --output OUT  write it to OUT, a new file (an existing OUT is refused);
                    default: stdout

FILE \`-\` reads standard input (the new header then has no parentSession).
Exit codes: 0 ok; 2 bad usage, an unknown ID or a file that cannot be read or
written.`,
  options: {
    leaf: { type: "string" },
    output: { type: "string", short: "o" },
  },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1)
      throw new UsageError(positionals.length === 0 ? "no FILE given" : "one FILE at a time");
    if (values.leaf === undefined) throw new UsageError("--leaf ID is required");
    const [file] = positionals;
    const jsonl = await withInput(io, file, (input) => {
      const session = openAt(io, input, values.leaf);
      try {
        const options = file === "-" ? {} : { parentSession: absolute(io, file) };
        return session.createBranchedSession(values.leaf, options);
      } finally {
        session.free();
      }
    });
    if (values.output === undefined) {
      io.stdout.write(jsonl);
      return 0;
    }
    await writeNew(io, values.output, jsonl);
    line(
      io.stderr,
      `${printable(displayName(file))}: the path to ${printable(values.leaf)} written to ${printable(values.output)}`,
    );
    return 0;
  },
};
