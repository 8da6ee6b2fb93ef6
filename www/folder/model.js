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

const newestFirst = (a, b) => (rowTime(a) < rowTime(b) ? 1 : rowTime(a) > rowTime(b) ? -1 : a.path < b.path ? -1 : 1);

export class FolderModel {
  constructor() {
    this.rows = new Map();
    this.version = 0;
  }

  upsert(row) {
    this.rows.set(row.path, row);
    this.version++;
  }

  remove(path) {
    if (this.rows.delete(path)) this.version++;
  }

  clear() {
    this.rows.clear();
    this.version++;
  }

  get size() {
    return this.rows.size;
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
   * The list as it is drawn: `[{ cwd, rows: [{ row, depth, forks }] }]`, groups
   * by their newest session, sessions newest first, forks right under their
   * source (depth 1, 2, …). `filter` keeps the sessions whose title, cwd or path
   * contain it (case-insensitive), with the sessions they were forked from.
   */
  groups(filter = "") {
    const byName = new Map();
    for (const p of this.rows.keys()) {
      const list = byName.get(baseName(p)) ?? [];
      list.push(p);
      byName.set(baseName(p), list);
    }
    const children = new Map();
    const tops = [];
    for (const row of this.rows.values()) {
      let parent = this.parentOf(row, byName);
      // A chain of parents that loops back has no top: its rows stay on top.
      if (parent && this.loops(row.path, byName)) parent = null;
      if (parent && parent !== row.path) {
        const list = children.get(parent) ?? [];
        list.push(row);
        children.set(parent, list);
      } else tops.push(row);
    }
    const needle = filter.trim().toLowerCase();
    const matches = (row) =>
      !needle ||
      rowTitle(row).toLowerCase().includes(needle) ||
      (row.info?.cwd ?? "").toLowerCase().includes(needle) ||
      row.path.toLowerCase().includes(needle);
    // Whether a row or one of its forks matches (memoized).
    const keep = new Map();
    const keeps = (row) => {
      if (keep.has(row.path)) return keep.get(row.path);
      keep.set(row.path, false);
      const k = matches(row) || (children.get(row.path) ?? []).some(keeps);
      keep.set(row.path, k);
      return k;
    };
    const flatten = (row, depth, out) => {
      const forks = (children.get(row.path) ?? []).filter(keeps).sort(newestFirst);
      out.push({ row, depth, forks: (children.get(row.path) ?? []).length });
      for (const f of forks) flatten(f, depth + 1, out);
    };
    const groups = new Map();
    for (const row of tops.filter(keeps).sort(newestFirst)) {
      const cwd = row.info?.cwd ?? "";
      const group = groups.get(cwd) ?? { cwd, rows: [] };
      groups.set(cwd, group);
      flatten(row, 0, group.rows);
    }
    // Groups come in the order of their newest top session (Map keeps insertion order).
    return [...groups.values()];
  }

  loops(path, byName) {
    const seen = new Set([path]);
    let row = this.rows.get(path);
    while (row) {
      const parent = this.parentOf(row, byName);
      if (!parent) return false;
      if (seen.has(parent)) return true;
      seen.add(parent);
      row = this.rows.get(parent);
    }
    return false;
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
