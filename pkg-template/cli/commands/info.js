// `session-tree info FILE…`: what pi's session list knows of each file.

import { sessionInfo } from "../../node.js";
import {
  clip,
  colours,
  displayName,
  formatDate,
  inputOrReport,
  isoDate,
  line,
  oneLine,
  printable,
  printJson,
  readOptions,
  UsageError,
} from "../io.js";

/** sessionInfo of a file, `{ info }`, or `null` when it cannot be read (reported). */
function infoOf(io, file, results) {
  return inputOrReport(io, "info", file, results, (input) => ({ info: sessionInfo(input, readOptions(io)) }));
}

/** sessionInfo as JSON: dates as ISO strings (null when invalid), absent fields as null. */
export function infoJson(info) {
  return {
    id: info.id,
    name: info.name ?? null,
    cwd: info.cwd,
    parentSession: info.parentSession ?? null,
    created: isoDate(info.created),
    modified: isoDate(info.modified),
    messageCount: info.messageCount,
    firstMessage: info.firstMessage,
  };
}

export default {
  name: "info",
  summary: "id, name, cwd, dates, message count and first message of each file",
  usage: `usage: session-tree info FILE… [--json]

What pi's session list shows of each session file (sessionInfo): id, name,
cwd, created, modified, message count, first message, and the session it
was forked from.

  --json    one JSON array, an object per file ({ file, info } or { file, error })

Exit codes: 0 ok; 1 a file is not a session (its first entry is no header);
2 bad usage or a file that cannot be read.`,
  options: { json: { type: "boolean" } },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length === 0) throw new UsageError("no FILE given");
    const c = colours(io);
    const results = [];
    let code = 0;
    let printed = 0;
    for (const file of positionals) {
      const read = await infoOf(io, file, results);
      if (read === null) {
        code = 2;
        continue;
      }
      const { info } = read;
      if (info === null) {
        const message = `${displayName(file)}: not a pi session (no session header)`;
        line(io.stderr, `session-tree info: ${printable(message)}`);
        results.push({ file, error: message });
        if (code === 0) code = 1;
        continue;
      }
      results.push({ file, info: infoJson(info) });
      if (values.json) continue;
      if (printed++ > 0) line(io.stdout);
      const row = (key, value) => line(io.stdout, `${c.dim(`${key}:`.padEnd(15))}${printable(value)}`);
      line(io.stdout, c.bold(printable(displayName(file))));
      row("id", info.id);
      row("name", info.name ?? "-");
      row("cwd", info.cwd);
      if (info.parentSession !== undefined) row("forked from", info.parentSession);
      row("created", formatDate(info.created));
      row("modified", formatDate(info.modified));
      row("messages", String(info.messageCount));
      row("first message", clip(oneLine(info.firstMessage), 200));
    }
    if (values.json) printJson(io, results);
    return code;
  },
};
