// `session-tree list DIR`: every session in a folder, newest first, forks
// under the session they came from, as pi's resume list threads them.

import { relative } from "node:path";
import { listSessions } from "../../files/index.js";
import {
  absolute,
  clip,
  colours,
  describeFsError,
  formatDate,
  line,
  oneLine,
  printable,
  printJson,
  progress,
  UsageError,
} from "../io.js";
import { continuesOf, orderSessions } from "../lineage.js";
import { infoJson } from "./info.js";

const TITLE_WIDTH = 60;

function prefixOf(row) {
  if (row.depth === 0) return "";
  const guides = continuesOf(row, 16).map((more) => (more ? "│  " : "   "));
  return `${guides.join("")}${row.isLast ? "└─ " : "├─ "}`;
}

export default {
  name: "list",
  summary: "every session in a folder, newest first, forks under their parents",
  usage: `usage: session-tree list DIR [-r] [--json]

Every session file (*.jsonl) in DIR, as pi's resume list shows them: newest
first (by the last user or assistant message), each fork (a session whose
header names a parentSession in DIR) under the session it came from. Each line
has the time, the message count, the name or first message, the cwd and the
file. Files are read several at a time; a long listing shows its progress on
stderr when stderr is a terminal.

  -r, --recursive   also the sessions in DIR's subfolders (pi keeps one folder
                    per project under ~/.pi/agent/sessions)
  --json            { sessions: [{ path, depth, forkOf, id, name, cwd,
                    parentSession, created, modified, messageCount,
                    firstMessage }], skipped: [{ path, error }] }

A file that cannot be read, or is not a session, is reported on stderr and
skipped. Exit codes: 0 ok; 1 some files were skipped; 2 bad usage or a DIR that
cannot be read.`,
  options: {
    recursive: { type: "boolean", short: "r" },
    json: { type: "boolean" },
  },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? "no DIR given" : "one DIR at a time");
    const [dir] = positionals;
    const top = absolute(io, dir);
    const skipped = [];
    const meter = progress(io, "reading sessions");
    let rows;
    try {
      rows = await listSessions(top, {
        recursive: Boolean(values.recursive),
        fs: io.fs,
        onError: (path, error) => skipped.push({ path, error: describeFsError(path, error) }),
        onProgress: meter.update,
      });
    } catch (error) {
      throw new UsageError(describeFsError(dir, error));
    } finally {
      meter.clear();
    }
    for (const row of rows) if (row.error !== null) skipped.push({ path: row.path, error: row.error });
    const listed = orderSessions(rows.filter((row) => row.info !== null));
    for (const s of skipped)
      line(
        io.stderr,
        `session-tree list: skipped ${printable(s.error.startsWith(s.path) ? s.error : `${s.path}: ${s.error}`)}`,
      );

    if (values.json) {
      printJson(io, {
        sessions: listed.map((r) => ({
          path: r.item.path,
          depth: r.depth,
          forkOf: r.parent === null ? null : r.parent.item.path,
          ...infoJson(r.item.info),
        })),
        skipped,
      });
    } else if (listed.length > 0) {
      const c = colours(io);
      const cells = listed.map((r) => {
        const info = r.item.info;
        const title = clip(oneLine(printable(info.name ?? info.firstMessage)), TITLE_WIDTH);
        return {
          when: formatDate(info.modified),
          count: String(info.messageCount),
          prefix: prefixOf(r),
          title,
          named: info.name !== undefined,
          cwd: printable(info.cwd),
          file: printable(relative(top, r.item.path)),
        };
      });
      const width = (key) => Math.max(...cells.map((x) => Array.from(x[key]).length));
      const [w, n, d] = [width("when"), width("count"), width("cwd")];
      const t = Math.max(...cells.map((x) => Array.from(x.prefix + x.title).length));
      const pad = (text, size) => text + " ".repeat(Math.max(0, size - Array.from(text).length));
      for (const x of cells) {
        const title = x.named ? c.bold(x.title) : x.title;
        const rest = pad(x.prefix + x.title, t).slice((x.prefix + x.title).length);
        line(
          io.stdout,
          `${c.dim(pad(x.when, w))}  ${x.count.padStart(n)}  ${c.dim(x.prefix)}${title}${rest}  ${c.cyan(pad(x.cwd, d))}  ${c.dim(x.file)}`,
        );
      }
    }
    return skipped.length > 0 ? 1 : 0;
  },
};
