// Opening a file too big to hold, without the DOM: the worker reads it
// through a byte source (the package's `blobSource`), a piece at a time.
// `getTree` over the source indexes the file and, in the same pass, keeps of
// each entry its byte range and a preview: the entry cut to the fields the
// rows read (model.js's `ROW_FIELDS`). The rows are then described from the
// previews by analysis.js's `describeNodes`, as a file read whole is, and no
// entry is read again. A selected leaf's context, a comparison or a branch
// to export or share reads only the header and the entries on its paths.
// The worker (worker.js) runs it; tests/viewer/unit/large.test.mjs covers it.

import { describeNodes, flattenNodes } from "./analysis.js";

/** Files from this size on open by piece; smaller ones are read whole (every feature, fastest). */
export const LARGE_FROM = 64 << 20;
/** How much of a large file the first rows come from, before the rest is read. */
export const PREVIEW_BYTES = 8 << 20;
/** How many bytes the index reads at a time: each read of a `File` costs a call, whatever its size. */
export const READ_PIECE = 8 << 20;

/**
 * The rows of a tree that `getTree(source, { preview: ROW_FIELDS })` read:
 * the nodes in graph order (their previews, as `entries`), parents, labels,
 * the rows' columns (`describeNodes` of the previews) and each entry's byte
 * range. `null` when the nodes have no ranges: an old (v1, v2) file, which
 * `getTree` read whole and migrated.
 */
export function describeSourceTree(roots) {
  const { nodes, parent, labels } = flattenNodes(roots);
  const count = nodes.length;
  const entries = new Array(count);
  const starts = new Float64Array(count);
  const lengths = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const { preview, range } = nodes[i];
    if (!range) return null;
    entries[i] = preview;
    starts[i] = range[0];
    lengths[i] = range[1];
  }
  return { entries, parent, labels, columns: describeNodes(entries), starts, lengths };
}

/**
 * The first lines of a source, whole: a source of its first bytes up to
 * the last line end within `max` bytes (the whole source if it is no
 * bigger). `null` when no line ends there.
 */
export function prefixSource(source, max) {
  if (source.size <= max) return source;
  const head = source.read(0, max);
  const end = head.lastIndexOf(0x0a);
  if (end < 0) return null;
  return { name: source.name, size: end + 1, read: (offset, length) => source.read(offset, length) };
}

/**
 * Node indices from the root down to `node`, following `parent` (each
 * parent comes before its child).
 */
export function pathTo(parent, node) {
  const path = [];
  for (let n = node; n >= 0; n = parent[n]) path.push(n);
  return Int32Array.from(path.reverse());
}

/** Entry id → every node with that id (a file may repeat an id). */
export function nodesById(stubs) {
  const byId = new Map();
  for (let i = 0; i < stubs.length; i++) {
    const list = byId.get(stubs[i]?.id);
    if (list) list.push(i);
    else byId.set(stubs[i]?.id, [i]);
  }
  return byId;
}

/**
 * The nodes a context at `leafId` may read: every node with that id, then
 * every node with the `parentId` of each, and so on, each id once. That is
 * the path to the leaf, and on a broken file (ids repeated, a cycle) more:
 * the context functions walk it again in the lines given, so any entries
 * beyond their walk change nothing.
 */
export function contextNodes(stubs, byId, leafId) {
  const out = [];
  const seen = new Set();
  const todo = [leafId];
  while (todo.length) {
    const id = todo.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    for (const n of byId.get(id) ?? []) {
      out.push(n);
      const p = stubs[n]?.parentId;
      if (p) todo.push(p);
    }
  }
  return out;
}

/**
 * The nodes the branches to `leafIds` read (`getBranch`, pi's
 * `createBranchedSession`): each leaf's `contextNodes`, and the label
 * entries whose target is on one of them (a branch file carries their
 * labels). Sorted, each once.
 */
export function branchNodes(stubs, byId, leafIds) {
  const nodes = new Set(leafIds.flatMap((id) => contextNodes(stubs, byId, id)));
  const onPath = new Set(Array.from(nodes, (n) => stubs[n]?.id));
  for (let i = 0; i < stubs.length; i++) {
    if (stubs[i]?.type === "label" && onPath.has(stubs[i].targetId)) nodes.add(i);
  }
  return Array.from(nodes).sort((a, b) => a - b);
}

/**
 * The JSONL a context at a leaf reads: the lines before the first entry
 * (the header), then the entries of `pathNodes` in file order, each on a
 * line of its own, as the package's own context through a source does. A
 * session of these lines gives, at the leaf, the context the whole file
 * gives, when `nodes` are `contextNodes` of the leaf. `read(offset, length)`
 * reads the file: entries close together in it are read at once
 * (`readGroups`).
 */
export function pathJsonl(read, { starts, lengths, headEnd }, nodes) {
  const order = Array.from(nodes).sort((a, b) => starts[a] - starts[b]);
  let total = headEnd + 1;
  for (const n of order) {
    if (starts[n] < 0) throw new Error(`entry ${n} of the graph has no known place in the file`);
    total += lengths[n] + 1;
  }
  const out = new Uint8Array(total);
  let at = 0;
  if (headEnd > 0) {
    out.set(read(0, headEnd), 0);
    at = headEnd;
  }
  out[at++] = 0x0a;
  for (const [from, to, group] of readGroups(order, starts, lengths)) {
    const bytes = read(from, to - from);
    for (const n of group) {
      out.set(bytes.subarray(starts[n] - from, starts[n] - from + lengths[n]), at);
      at += lengths[n];
      out[at++] = 0x0a;
    }
  }
  return out;
}

/**
 * How far apart two entries may be and still be read at once: each read of
 * a `File` costs about what reading this many more bytes does.
 */
export const READ_GAP = 128 << 10;

/**
 * Entries in file order (`order`) as reads: `[from, to, nodes]`, each read
 * spanning entries no more than `gap` bytes apart and at most `most` bytes
 * long (a long entry is a read of its own).
 */
export function readGroups(order, starts, lengths, gap = READ_GAP, most = 16 << 20) {
  const groups = [];
  let current = null;
  for (const n of order) {
    const from = starts[n];
    const to = from + lengths[n];
    if (current && from - current[1] <= gap && to - current[0] <= most) {
      current[1] = Math.max(current[1], to);
      current[2].push(n);
    } else {
      current = [from, to, [n]];
      groups.push(current);
    }
  }
  return groups;
}

/** Where the first entry starts: the header and anything before it end there. */
export function headEndOf(starts) {
  let min = Number.POSITIVE_INFINITY;
  for (const s of starts) if (s >= 0 && s < min) min = s;
  return Number.isFinite(min) ? min : 0;
}

/** The node last in file order (pi's default leaf is the file's last entry). */
export function lastInFile(starts) {
  let best = -1;
  for (let i = 0; i < starts.length; i++) if (best < 0 || starts[i] > starts[best]) best = i;
  return best;
}
