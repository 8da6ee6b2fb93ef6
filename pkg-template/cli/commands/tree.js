// `session-tree tree FILE`: the tree as pi's `/tree` view draws it.

import { getTree, previewEntries, Session } from "../../node.js";
import { colours, jsonLines, printable, readOptions, UsageError, withInput, writeLines } from "../io.js";
import {
  CONTENT_DETAIL,
  ContentDigests,
  contentEntries,
  FACT_FIELDS,
  FILTERS,
  findNode,
  lastInFile,
  textOr,
  treeRowStream,
  treeRows,
} from "../tree-view.js";

/** Opens `input` as a Session and checks `--leaf`; a leaf that names no entry is bad usage. */
export function openAt(io, input, leaf) {
  const session = Session.open(input, readOptions(io));
  if (leaf !== undefined && session.getEntry(leaf) === undefined) {
    session.free();
    throw new UsageError(`no entry with id '${leaf}'`);
  }
  return session;
}

/**
 * The rows of `input`'s tree at `leaf` (default: the session's leaf), as an
 * iterable to draw while `input` is open. A file read by piece gives a tree
 * of short previews (FACT_FIELDS) and, in the same pass, a digest of each
 * message whose row reads its content (CONTENT_DETAIL, ContentDigests): what
 * its row shows, kept as UTF-8. The few whose preview's cut may show are read
 * again, a batch at a time (`contentEntries`). Memory grows with the entries,
 * not their text. Bytes, and an old session (which
 * `getTree` migrates afresh: its ids are new each time), go through a
 * Session.
 */
function rowsOf(io, input, leaf, options) {
  if (!(input instanceof Uint8Array)) {
    const digests = new ContentDigests(options.home);
    const detail = { ...CONTENT_DETAIL, map: digests.map };
    const roots = getTree(input, { ...readOptions(io), preview: FACT_FIELDS, detail });
    if (roots.length === 0 || "range" in roots[0]) {
      if (leaf !== undefined && findNode(roots, leaf) === undefined) throw new UsageError(`no entry with id '${leaf}'`);
      return treeRowStream(roots, {
        ...options,
        leafId: leaf ?? lastInFile(roots),
        digests,
        contents: (nodes) => contentEntries(nodes, (ranges, preview) => previewEntries(input, ranges, { preview })),
      });
    }
  }
  const session = openAt(io, input, leaf);
  try {
    return treeRows(session.getTree(), { ...options, leafId: leaf ?? session.leafId });
  } finally {
    session.free();
  }
}

export default {
  name: "tree",
  summary: "the tree as pi's /tree view draws it, with labels and the active path",
  usage: `usage: session-tree tree FILE [--filter MODE] [--leaf ID] [--json]

The session's tree as pi's /tree view draws it: one line per shown entry
(control characters, line breaks included, printed as spaces),
branches drawn with ├─, └─ and │, the branch holding the current leaf
first, and • before each entry on the path from the root to the leaf.
Labels are shown as [label].

  --filter MODE   which entries to show, as pi's filters do (default: default):
                    default       everything but settings (labels, model and thinking
                                  changes, custom entries, session names, context edits)
                    no-tools      default without tool results
                    user-only     user messages only
                    labeled-only  labelled entries only
                    all           every entry
                  usage entries are never shown, and assistant messages without
                  text only when they are the leaf or ended in an error
  --leaf ID       the current leaf (default: the session's leaf, its last entry)
  --json          one JSON array of rows: { id, type, depth, prefix, active, leaf,
                  label, text }

FILE \`-\` reads standard input. Exit codes: 0 ok; 2 bad usage or a file that
cannot be read.`,
  options: {
    filter: { type: "string" },
    leaf: { type: "string" },
    json: { type: "boolean" },
  },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1)
      throw new UsageError(positionals.length === 0 ? "no FILE given" : "one FILE at a time");
    const filter = values.filter ?? "default";
    if (!FILTERS.includes(filter)) throw new UsageError(`unknown filter '${filter}' (filters: ${FILTERS.join(", ")})`);
    return withInput(io, positionals[0], (input) =>
      print(io, rowsOf(io, input, values.leaf, { filter, home: io.env?.HOME ?? "" }), values.json),
    );
  },
};

/** Writes `rows` (an iterable, drawn as it goes) as lines, or as JSON with `json`. */
async function print(io, rows, json) {
  if (json) {
    await writeLines(
      io.stdout,
      jsonLines(
        map(rows, (r) => ({
          id: r.id ?? null,
          type: r.type ?? null,
          depth: r.depth,
          prefix: r.prefix,
          active: r.active,
          leaf: r.isLeaf,
          label: r.label ?? null,
          text: r.role + r.text,
        })),
      ),
    );
    return 0;
  }
  const c = colours(io);
  const paint = {
    user: c.cyan,
    assistant: c.green,
    muted: c.gray,
    dim: c.dim,
    error: c.red,
    custom: c.magenta,
    compaction: c.blue,
    summary: c.yellow,
  };
  function* out() {
    for (const r of rows) {
      const marker = r.active ? c.cyan("• ") : "";
      const label = r.label !== undefined ? c.yellow(printable(`[${textOr(r.label)}] `)) : "";
      const [role, text] = [printable(r.role), printable(r.text)];
      const body =
        r.style === "user" || r.style === "assistant" || r.style === "custom" || r.style === "summary"
          ? paint[r.style](role) + text
          : paint[r.style](role + text);
      const row = `${c.dim(r.prefix)}${marker}${label}${body}`;
      yield r.isLeaf ? c.bold(row) : row;
    }
  }
  await writeLines(io.stdout, out());
  return 0;
}

function* map(values, f) {
  for (const v of values) yield f(v);
}
