// The session list's logic, without DOM: the rows of a folder (one per
// session file, as `session-tree serve` or the local reader describes them),
// grouped by project (cwd), newest first, with each fork nested under the
// session it came from.
//
// A row: `{ path, size, mtime, info: { id, cwd, name, parentSession,
// parentPath, created, modified, messageCount, firstMessage } | null,
// problems, error? }`. `parentPath` is the parent's path relative to the
// folder when the server could resolve it; otherwise the fork is matched by
// the file name of `parentSession` (pi names files `<time>_<id>.jsonl`).

const baseName = (p) => String(p).split(/[\\/]/).pop();

/** When the row's session was last active (ISO string, sorts as text). */
export const rowTime = (row) => row.info?.modified ?? row.info?.created ?? row.mtime ?? "";

/** What the list shows as the session's title. */
export function rowTitle(row) {
  if (!row.info) return row.error ?? "unreadable file";
  return row.info.name || row.info.firstMessage || "(no messages)";
}

export class FolderModel {
  /** `buildLineage`: the package's cli/lineage.js export (the browser imports it from the package). */
  constructor(buildLineage) {
    this.buildLineage = buildLineage;
    this.rows = new Map();
    this.version = 0;
    this.seen = null; // the paths sent since the list stream (re)connected, until it has sent them all
  }

  upsert(row) {
    this.rows.set(row.path, row);
    this.seen?.add(row.path);
    this.version++;
  }

  remove(path) {
    this.seen?.delete(path);
    if (this.rows.delete(path)) this.version++;
  }

  /**
   * The server's list stream (re)connected: it sends every row it has again.
   * Rows it does not send before `endSnapshot()` were removed while the page was
   * not listening (serve restarted, say), and no `remove` will come for them.
   */
  beginSnapshot() {
    this.seen = new Set();
  }

  /** Ends a snapshot: drops the rows not sent since `beginSnapshot()`; whether any were. */
  endSnapshot() {
    const seen = this.seen;
    if (!seen) return false;
    this.seen = null;
    let dropped = false;
    for (const path of [...this.rows.keys()]) {
      if (!seen.has(path)) dropped = this.rows.delete(path) || dropped;
    }
    if (dropped) this.version++;
    return dropped;
  }

  clear() {
    this.rows.clear();
    this.version++;
  }

  get size() {
    return this.rows.size;
  }

  /** The rows' paths by file name. */
  byName() {
    const byName = new Map();
    for (const p of this.rows.keys()) {
      const list = byName.get(baseName(p)) ?? [];
      list.push(p);
      byName.set(baseName(p), list);
    }
    return byName;
  }

  /**
   * The name each session has in its forks' headers (their `parentSession`,
   * an absolute path on the machine that wrote them), by its path in the
   * folder: what the usage ledger links forks and copies by.
   */
  parentNames() {
    const byName = this.byName();
    const names = new Map();
    for (const row of this.rows.values()) {
      const parent = this.parentOf(row, byName);
      if (parent && row.info?.parentSession && !names.has(parent)) names.set(parent, row.info.parentSession);
    }
    return names;
  }

  /** The path of the session `row` was forked from, if that session is in the folder. */
  parentOf(row, byName) {
    const info = row.info;
    if (!info?.parentSession && !info?.parentPath) return null;
    if (info.parentPath && this.rows.has(info.parentPath)) return info.parentPath;
    if (!info.parentSession) return null;
    const candidates = byName.get(baseName(info.parentSession)) ?? [];
    if (candidates.length === 1) return candidates[0];
    // Several files of that name: the one whose path ends the parent's path.
    const full = String(info.parentSession).replace(/\\/g, "/");
    return candidates.find((p) => full.endsWith(`/${p}`)) ?? null;
  }

  /**
   * The list as it is drawn: `[{ cwd, rows: [{ row, depth, forks }] }]`.
   * `buildLineage` (the package's cli/lineage.js, passed in) threads the
   * sessions newest first with each fork under its source; groups are by
   * project (cwd), in the order of their newest thread. `filter` keeps the
   * sessions whose title, cwd or path contain it (case-insensitive), with the
   * sessions they were forked from.
   */
  groups(filter = "") {
    const byName = this.byName();
    // Items for lineage.js: paths relative to the folder, the parent resolved to one.
    const items = [];
    for (const row of this.rows.values()) {
      const parent = this.parentOf(row, byName);
      const modified = Date.parse(rowTime(row));
      items.push({
        path: row.path,
        row,
        info: { parentSession: parent ?? undefined, modified: Number.isNaN(modified) ? undefined : modified },
      });
    }
    const trees = this.buildLineage(items, { key: (p) => p });
    const needle = filter.trim().toLowerCase();
    const matches = (row) =>
      !needle ||
      rowTitle(row).toLowerCase().includes(needle) ||
      (row.info?.cwd ?? "").toLowerCase().includes(needle) ||
      row.path.toLowerCase().includes(needle);
    const keep = (node) => {
      if (node.keep === undefined) node.keep = matches(node.item.row) || node.children.some(keep);
      return node.keep;
    };
    const groups = new Map();
    for (const tree of trees) {
      if (!keep(tree)) continue;
      const cwd = tree.item.row.info?.cwd ?? "";
      const group = groups.get(cwd) ?? { cwd, rows: [] };
      groups.set(cwd, group);
      // Depth first, parents before forks, without recursion.
      const stack = [[tree, 0]];
      while (stack.length) {
        const [node, depth] = stack.pop();
        group.rows.push({ row: node.item.row, depth, forks: node.children.length });
        const kids = node.children.filter(keep);
        for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth + 1]);
      }
    }
    return [...groups.values()];
  }
}

/** "3 min ago", "yesterday", or the date: how long ago `iso` was, from `now`. */
export function ago(iso, now = Date.now()) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.round((now - t) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 2 * 86400) return "yesterday";
  if (s < 30 * 86400) return `${Math.floor(s / 86400)} days ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/** The URL path of a session file on the server: each segment encoded. */
export const filesUrl = (path) => `files/${path.split("/").map(encodeURIComponent).join("/")}`;
