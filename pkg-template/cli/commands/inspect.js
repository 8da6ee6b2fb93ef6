// `session-tree inspect FILE…`: what is wrong with each file, line by line.

import { inspectSession } from "../../node.js";
import { colours, displayName, inputOrReport, line, printable, printJson, readOptions, UsageError } from "../io.js";

// The diagnostics' messages start with "line N: " (or "line N, column C: ");
// the command prints the line number in front already.
function withoutLine(message, lineNumber) {
  if (lineNumber === undefined) return message;
  const prefix = `line ${lineNumber}`;
  if (message.startsWith(`${prefix}: `)) return message.slice(prefix.length + 2);
  if (message.startsWith(`${prefix}, `)) return message.slice(prefix.length + 2);
  return message;
}

export default {
  name: "inspect",
  summary: "the problems of each file (inspectSession), with line numbers",
  usage: `usage: session-tree inspect FILE… [--json]

Checks each file as inspectSession does and prints one line per problem:
FILE:LINE: KIND: what is wrong. KIND is a stable name (malformed-line, orphan,
duplicate-id, …; the README lists them). A clean file prints FILE: ok.

  --json    one JSON array: { file, problems: [{ kind, line, entryId, message }] }
            per file, or { file, error } for a file that cannot be read

FILE \`-\` reads standard input. Exit codes: 0 every file is clean; 1 problems
found; 2 bad usage or a file that cannot be read.`,
  options: { json: { type: "boolean" } },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length === 0) throw new UsageError("no FILE given");
    const c = colours(io);
    const report = [];
    let problems = false;
    let unreadable = false;
    for (const file of positionals) {
      const diagnostics = await inputOrReport(io, "inspect", file, report, (input) =>
        inspectSession(input, readOptions(io)),
      );
      if (diagnostics === null) {
        unreadable = true;
        continue;
      }
      report.push({ file, problems: diagnostics });
      if (diagnostics.length > 0) problems = true;
      if (values.json) continue;
      const name = printable(displayName(file));
      if (diagnostics.length === 0) {
        line(io.stdout, `${name}: ${c.green("ok")}`);
        continue;
      }
      for (const d of diagnostics) {
        const where = d.line === undefined ? name : `${name}:${d.line}`;
        line(io.stdout, `${where}: ${c.red(d.kind)}: ${printable(withoutLine(d.message, d.line))}`);
      }
    }
    if (values.json) printJson(io, report);
    return unreadable ? 2 : problems ? 1 : 0;
  },
};
