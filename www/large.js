// Opening a file too big to hold, without the DOM: the worker reads it
// through a byte source (the package's `blobSource`), a piece at a time.
// `getTree` over the source indexes the file and gives nodes whose entries
// are read by their byte range when first asked; here each entry is read
// once, described (kind, summary, time…) and let go, and its range kept, so
// the worker holds columns and ranges, not the text. A selected leaf's
// context reads only the header and the entries on its path. The worker
// (worker.js) runs it; tests/viewer/unit/large.test.mjs covers it.

import { refOf } from "./analysis.js";

import { isToolOnlyAssistant, kindOf, passesFilter, summarize } from "./model.js";

/** Files from this size on open by piece; smaller ones are read whole (every feature, fastest). */
export const LARGE_FROM = 64 << 20;
/** How much of a large file the first rows come from, before the rest is read. */
export const PREVIEW_BYTES = 8 << 20;
/** How many bytes a describing read takes at once: entries are read mostly in file order. */
export const READ_WINDOW = 4 << 20;

/**
 * A byte source that tells of each read: `onRead(offset, length)` before it
 * is made. The worker counts the bytes read for the progress bar, and notes
 * the range an entry was read from.
 */
export function watchedSource(source, onRead) {
  return {
    name: source.name,
    size: source.size,
    read(offset, length) {
      onRead(offset, length);
      return source.read(offset, length);
    },
  };
}

/**
 * A byte source that reads `window` bytes at a time and answers the reads
 * that fall inside the last window from it: many small reads in file order
 * cost one read of the underlying source.
 */
export function windowedSource(source, window = READ_WINDOW) {
  let start = 0;
  let bytes = new Uint8Array(0);
  return {
    name: source.name,
    size: source.size,
    read(offset, length) {
      if (offset >= start && offset + length <= start + bytes.length) {
        return bytes.slice(offset - start, offset - start + length);
      }
      if (length >= window) return source.read(offset, length);
      start = offset;
      bytes = source.read(offset, Math.min(window, source.size - offset));
      return bytes.slice(0, length);
    },
  };
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

/** The few fields of an entry that the filters and the path read: `{ id, parentId, type, message: { role } }`. */
export function entryStub(e) {
  const stub = { id: e?.id, parentId: e?.parentId, type: e?.type };
  if (e?.type === "message") stub.message = { role: e.message?.role };
  return stub;
}

/**
 * Reads each node's entry once, in graph order, and describes it as
 * analysis.js's `describeNodes` does, keeping only what the graph and the
 * filters need. `rangeOf()` gives the byte range the last read came from
 * (`[offset, length]`, or null); `onEntry(entry)` sees each entry (the
 * stats count them); `onProgress(done, count)` now and then. The nodes are
 * let go as they are read (`nodes[i]` becomes null), so the parsed entries
 * can be collected. Tool calls are kept (a tool result's row names its
 * call, wherever it is), not the rest of the entries.
 */
export function describeLazyNodes(nodes, { beforeRead, rangeOf, onEntry, onProgress }) {
  const count = nodes.length;
  const kinds = new Uint8Array(count);
  const summaries = new Array(count);
  const toolOnly = new Uint8Array(count);
  const times = new Array(count);
  const refs = new Array(count);
  const stubs = new Array(count);
  const starts = new Float64Array(count).fill(-1);
  const lengths = new Uint32Array(count);
  const toolCalls = new Map();
  const results = [];
  for (let i = 0; i < count; i++) {
    beforeRead();
    const e = nodes[i].entry;
    nodes[i] = null;
    const range = rangeOf();
    if (range) [starts[i], lengths[i]] = range;
    if (e?.type === "message" && e.message?.role === "assistant" && Array.isArray(e.message.content)) {
      for (const b of e.message.content) {
        if (b && b.type === "toolCall") toolCalls.set(b.id, { name: b.name, arguments: b.arguments });
      }
    }
    kinds[i] = kindOf(e);
    if (e?.type === "message" && e.message?.role === "toolResult") {
      // Named after its call, which may come later in graph order: summarized at the end.
      const { toolCallId, toolName, isError } = e.message;
      results.push([i, { type: "message", message: { role: "toolResult", toolCallId, toolName, isError } }]);
    } else summaries[i] = summarize(e, toolCalls);
    toolOnly[i] = isToolOnlyAssistant(e) ? 1 : 0;
    times[i] = typeof e?.timestamp === "string" ? e.timestamp : "";
    refs[i] = refOf(e);
    stubs[i] = entryStub(e);
    onEntry(e);
    if ((i & 1023) === 1023) onProgress(i + 1, count);
  }
  for (const [i, result] of results) summaries[i] = summarize(result, toolCalls);
  return { columns: { kinds, summaries, toolOnly, times, refs }, stubs, starts, lengths };
}

/** Whether a stub passes a filter exactly as its entry does (they share `type` and role). */
export const stubPasses = (mode, stub, label) => passesFilter(mode, stub, label);

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
    const list = byId.get(stubs[i].id);
    if (list) list.push(i);
    else byId.set(stubs[i].id, [i]);
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
      const p = stubs[n].parentId;
      if (p) todo.push(p);
    }
  }
  return out;
}

/**
 * The JSONL a context at a leaf reads: the lines before the first entry
 * (the header), then the entries of `pathNodes` in file order, each on a
 * line of its own, as the package's own context through a source does. A
 * session of these lines gives, at the leaf, the context the whole file
 * gives, when `nodes` are `contextNodes` of the leaf. `read(offset, length)`
 * reads the file.
 */
export function pathJsonl(read, { starts, lengths, headEnd }, nodes) {
  const order = Array.from(nodes).sort((a, b) => starts[a] - starts[b]);
  let total = headEnd + 1;
  for (const n of order) total += lengths[n] + 1;
  const out = new Uint8Array(total);
  let at = 0;
  if (headEnd > 0) {
    out.set(read(0, headEnd), 0);
    at = headEnd;
  }
  out[at++] = 0x0a;
  for (const n of order) {
    if (starts[n] < 0) throw new Error(`entry ${n} of the graph has no known place in the file`);
    out.set(read(starts[n], lengths[n]), at);
    at += lengths[n];
    out[at++] = 0x0a;
  }
  return out;
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
