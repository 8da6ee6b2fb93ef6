// The viewer's Web Worker: reads the file, runs the session-tree package
// (WebAssembly) over it, and does every piece of work that grows with the
// session (tree flattening, filters, search, lane layout, statistics), so
// the page stays responsive with 100,000 entries. The messages it answers
// are defined in messages.js; the computations live in analysis.js.

import {
  computeStats,
  describeNodes,
  flattenTree,
  headerOf,
  indexById,
  lastEntryId,
  layoutVisible,
  projectionView,
  searchWords,
  systemView,
  treeShape,
  versionOf,
  viewBuffers,
  visibleNodes,
} from "./analysis.js";
import { compareLeaves } from "./compare.js";
import { composition, leafCosts, usageView } from "./composition.js";
import {
  branchNodes,
  contextNodes,
  describeSourceTree,
  headEndOf,
  LARGE_FROM,
  lastInFile,
  nodesById,
  PREVIEW_BYTES,
  pathJsonl,
  pathTo,
  prefixSource,
  READ_PIECE,
} from "./large.js";
import { REPLY, REQUEST } from "./messages.js";
import { ROW_FIELDS, searchText } from "./model.js";
import * as st from "./pkg/browser.js";
import { remoteSource } from "./remote-source.js";
import { buildShare, scanBranch } from "./share-worker.js";

/** The open session: what `open` computed, kept for the requests that follow. */
let doc = null;
/**
 * The number of the latest `open`. An open that awaits (a dropped file read
 * in chunks, a served file fetched) lets the requests after it run meanwhile,
 * a later open among them: when it resumes after a later one began, it stops,
 * or it would make itself the open document after the page had shown the
 * later file (whose rows would then get this file's contexts).
 */
let opens = 0;

const post = (msg, transfer = []) => self.postMessage(msg, transfer);
const progress = (req, stage, fraction) => post({ type: REPLY.progress, req, stage, fraction });

const handlers = {
  [REQUEST.open]: open,
  [REQUEST.append]: appendLive,
  [REQUEST.view]: ({ req, filter, query, keepId }) => {
    const view = viewOf(filter, query, keepId);
    post({ type: REPLY.view, req, view }, viewBuffers(view));
  },
  [REQUEST.select]: select,
  [REQUEST.entry]: ({ req, entryId }) => post({ type: REPLY.entry, req, entry: entryOf(entryId) }),
  [REQUEST.migrated]: ({ req }) => post({ type: REPLY.migrated, req, jsonl: doc?.migratedBytes ?? null }),
  [REQUEST.export]: async ({ req, entryId }) => post({ type: REPLY.export, req, text: await exportBranch(entryId) }),
  // Two branches side by side (compare.js).
  [REQUEST.compare]: ({ req, a, b }) =>
    withBranches([a, b], (session) =>
      post({
        type: REPLY.compared,
        req,
        comparison: compareLeaves((id) => session.getBranch(id), a, b, sideUsage),
      }),
    ),
  // Share one branch, redacted (share-worker.js).
  [REQUEST.shareScan]: ({ req, entryId }) =>
    withBranches([entryId], (session) =>
      post({ type: REPLY.shareScanned, req, ...scanBranch(st, { ...doc, session }, entryId) }),
    ),
  [REQUEST.shareBuild]: ({ req, entryId, redactions }) =>
    withBranches([entryId], async (session) =>
      post({ type: REPLY.shareBuilt, req, ...(await buildShare(st, { ...doc, session }, entryId, redactions)) }),
    ),
};

/**
 * Runs `use(session)` with a session that answers for the branches to
 * `leafIds`: the open one, or for a file opened by piece one of its header
 * and the entries those branches read (large.js's `branchNodes`), freed after.
 */
async function withBranches(leafIds, use) {
  if (!doc) throw new Error("No session is open.");
  if (!doc.large) return use(doc.session);
  doc.byId ??= nodesById(doc.nodes);
  const lines = pathJsonl((o, l) => doc.source.read(o, l), doc, branchNodes(doc.nodes, doc.byId, leafIds));
  const session = st.Session.open(lines);
  try {
    return await use(session);
  } finally {
    session.free();
  }
}

/** The open document, when it was read whole: a file opened by piece has no session in memory. */
function wholeDoc(what) {
  if (doc?.large)
    throw new Error(`${what} is not available for a file opened by piece (${LARGE_FROM >> 20} MB or more)`);
  return doc;
}

/** An entry of the open document, read from the file by its range when it was opened by piece. */
function entryOf(entryId) {
  const i = doc?.nodeOf.get(entryId);
  if (i === undefined) return null;
  if (!doc.large) return doc.nodes[i] ?? null;
  const bytes = doc.source.read(doc.starts[i], doc.lengths[i]);
  return JSON.parse(new TextDecoder().decode(bytes));
}

self.onmessage = async (event) => {
  const msg = event.data;
  try {
    const handle = handlers[msg.type];
    if (!handle) throw new Error(`unknown request ${msg.type}`);
    await handle(msg);
  } catch (error) {
    post({ type: REPLY.error, req: msg.req, message: error?.message ?? String(error) });
  }
};

/** Stops an open that a later one has superseded (see `opens`); the page ignores its reply. */
function stillLatest(turn, name) {
  if (turn !== opens) throw new Error(`the opening of ${name} was superseded by a later one`);
}

async function readAll(file, req, stale = () => false) {
  const total = file.size || 1;
  const reader = file.stream().getReader();
  const bytes = new Uint8Array(file.size);
  let offset = 0;
  let lastReport = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (stale()) {
      reader.cancel();
      break;
    }
    bytes.set(value, offset);
    offset += value.length;
    if (offset - lastReport > 4 << 20) {
      lastReport = offset;
      progress(req, "Reading", 0.25 * (offset / total));
    }
  }
  return offset === bytes.length ? bytes : bytes.subarray(0, offset);
}

/** A served file whole: an old (v1, v2) one, which is migrated, not read by piece. */
async function fetchWhole(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).trim()}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function open(msg) {
  const turn = ++opens;
  if (msg.file && msg.file.size >= (msg.largeFrom ?? LARGE_FROM) && openLarge(msg)) return;
  // A large file on `session-tree serve`: read by range (remote-source.js).
  if (msg.remote && openLarge(msg)) return;
  const { req, name } = msg;
  const timings = {};
  let t = performance.now();
  const lap = (key) => {
    const now = performance.now();
    timings[key] = Math.round(now - t);
    t = now;
  };
  progress(req, "Reading", 0);
  let bytes;
  if (msg.file) bytes = await readAll(msg.file, req, () => turn !== opens);
  else if (msg.bytes) bytes = new Uint8Array(msg.bytes);
  else if (msg.remote) bytes = await fetchWhole(msg.remote.url);
  else bytes = new TextEncoder().encode(msg.text ?? "");
  // Everything after this runs without a pause, so this is the last check needed.
  stillLatest(turn, name);
  lap("read");

  progress(req, "Checking the file", 0.25);
  const diagnostics = st.inspectSession(bytes);
  lap("inspect");

  progress(req, "Parsing", 0.4);
  let entries = st.parseSession(bytes);
  const header = headerOf(entries);
  const fromVersion = versionOf(header);
  let migratedBytes = null;
  // migrate(entries) says whether a migration is due; if so, migrating the
  // bytes gives the migrated file (as bytes), and we show that (so ids match
  // the download).
  // A file with no entry at all (empty, or no line read) is no version 1 session, though
  // pi's rule (no header: version 1) says migrate.
  if (entries.length && st.migrate(entries)) {
    progress(req, "Migrating to version 3", 0.5);
    migratedBytes = st.migrate(bytes);
    entries = st.parseSession(migratedBytes);
  }
  lap("parse");

  progress(req, "Building the tree", 0.6);
  const roots = st.getTree(entries);
  lap("tree");

  progress(req, "Opening the session", 0.75);
  // The session answers paths, contexts, usage and branch exports. It opens
  // the migrated bytes, so its ids are the graph's.
  const session = st.Session.open(migratedBytes ?? bytes);
  lap("session");

  progress(req, "Indexing", 0.85);
  const { columns, stats, ...indexed } = indexTree(roots, entries, session);
  lap("index");

  doc?.session?.free();
  doc = { name, ...indexed, session, migratedBytes };
  progress(req, "Laying out the graph", 0.95);
  const view = viewOf(msg.filter ?? "default", msg.query ?? "", msg.keepId ?? null);
  lap("layout");
  post(
    {
      type: REPLY.opened,
      req,
      info: {
        name,
        count: doc.nodes.length,
        fromVersion,
        migrated: migratedBytes !== null,
        header: header ? plainCopy(header) : null,
        diagnostics,
        stats,
        timings,
        defaultLeaf: lastEntryId(entries),
        bytes: bytes.length,
      },
      nodes: nodeColumns({ ...doc, columns }),
      view,
    },
    viewBuffers(view),
  );
}

/**
 * Opens a file too big to hold (large.js): through `blobSource`, a piece at
 * a time. The first rows come from the file's first lines (a `preview`
 * reply), then the whole file is indexed and each entry read once to
 * describe it; the worker keeps the rows' columns and each entry's byte
 * range, not the text. False, having done nothing, for an old (v1, v2) file.
 */
function openLarge(msg) {
  const { req, name, file } = msg;
  const source = msg.remote ? remoteSource({ ...msg.remote, name }) : st.blobSource(file);
  const head = prefixSource(source, PREVIEW_BYTES);
  if (head) {
    const first = indexBySource(head, () => {});
    // An old (v1, v2) file is read whole and migrated, its entries not by range: it takes
    // the bytes path (which refuses it over 1 GiB, saying so).
    if (!first) return false;
    const view = layoutOf(first, msg);
    post(
      { type: REPLY.preview, req, info: largeInfo(first, name, {}), nodes: nodeColumns(first), view },
      viewBuffers(view),
    );
  }
  const timings = {};
  let t = performance.now();
  const lap = (key) => {
    const now = performance.now();
    timings[key] = Math.round(now - t);
    t = now;
  };
  const opened = indexBySource(source, (stage, fraction) => progress(req, stage, fraction), lap);
  if (!opened) return false;
  doc?.session?.free();
  doc = { ...opened, name };
  progress(req, "Laying out the graph", 0.95);
  const view = layoutOf(doc, msg);
  lap("layout");
  post(
    { type: REPLY.opened, req, info: largeInfo(doc, name, timings), nodes: nodeColumns(doc), view },
    viewBuffers(view),
  );
  return true;
}

/**
 * A document over a byte source: `getTree` reads it by piece (progress as
 * the bytes go by), keeping each entry's range and its preview, which the
 * rows are described from (large.js's `describeSourceTree`). `null` for an
 * old (v1, v2) file, which has no ranges.
 */
function indexBySource(source, onProgress, lap = () => {}) {
  const size = source.size || 1;
  let done = 0;
  let reported = 0;
  const reader = {
    name: source.name,
    size: source.size,
    read(offset, length) {
      done += length;
      if (done - reported >= 16 << 20) {
        reported = done;
        onProgress("Reading", 0.9 * (done / size));
      }
      return source.read(offset, length);
    },
  };
  onProgress("Reading", 0);
  const roots = st.getTree(reader, { preview: ROW_FIELDS, pieceSize: READ_PIECE });
  lap("read");
  const described = describeSourceTree(roots);
  if (!described) return null;
  const { entries, parent, labels, columns, starts, lengths } = described;
  const count = entries.length;
  const tree = { count, ...treeShape(parent), roots: parent.filter((p) => p < 0).length };
  const stats = computeStats(entries, tree, null);
  lap("describe");
  const headEnd = headEndOf(starts);
  const header = headerOf(st.parseSession(source.read(0, Math.min(headEnd, 1 << 20))));
  const lastNode = lastInFile(starts);
  return {
    large: true,
    source,
    // The previews: every field the rows, filters, search and paths read.
    nodes: entries,
    parent,
    labels,
    toolOnly: columns.toolOnly,
    nodeOf: indexById(entries),
    search: null,
    columns,
    starts,
    lengths,
    headEnd,
    header,
    stats,
    defaultLeaf: lastNode >= 0 ? (entries[lastNode].id ?? null) : null,
    session: null,
  };
}

const layoutOf = (d, msg) => {
  const saved = doc;
  doc = d;
  try {
    return viewOf(msg.filter ?? "default", msg.query ?? "", msg.keepId ?? null);
  } finally {
    doc = saved;
  }
};

/** The `info` of a document opened by piece (no diagnostics: the file is never held whole). */
function largeInfo(d, name, timings) {
  return {
    name,
    count: d.nodes.length,
    fromVersion: versionOf(d.header),
    migrated: false,
    header: d.header ? plainCopy(d.header) : null,
    diagnostics: [],
    stats: d.stats,
    timings,
    defaultLeaf: d.defaultLeaf,
    bytes: d.source.size,
    byPiece: true,
  };
}

/**
 * The open document's tree, indexed: the nodes in graph order, their parents
 * and labels, id → node, the graph's columns and the stats. Opening and live
 * appends both build it from the whole tree.
 */
function indexTree(roots, entries, session) {
  const { nodes, parent, labels } = flattenTree(roots);
  const columns = describeNodes(nodes);
  const report = session.usage(null, { records: false });
  const tokens = usageView(report, "total");
  columns.costs = leafCosts(
    nodes.map((e) => e?.id),
    report,
    nodes.map((e) => e?.type),
    parent,
  );
  const stats = computeStats(entries, { count: nodes.length, ...treeShape(parent), roots: roots.length }, tokens);
  return { nodes, parent, labels, toolOnly: columns.toolOnly, nodeOf: indexById(nodes), search: null, columns, stats };
}

/** What a compare side's entries cost, as the package counts it (pi's `getSessionStats` rules). */
const sideUsage = (entries) => st.sessionUsage(entries, { records: false }).total;

/** The node columns the page draws the graph from (a document's, as indexTree or indexBySource made it). */
function nodeColumns({ nodes, labels, parent, columns: { kinds, summaries, times, refs, costs } }) {
  return { ids: nodes.map((e) => e?.id), kinds, summaries, labels, times, parent, refs, costs };
}

/**
 * Live follow (live.js): feeds bytes appended to the open file to the session,
 * which takes a chunk cut anywhere, then rebuilds the graph's columns from it.
 */
function appendLive({ req, bytes, filter, query, keepId }) {
  if (!doc) throw new Error("no session is open");
  wholeDoc("Following the file");
  if (doc.migratedBytes) throw new Error("the file was migrated on opening: reload it");
  const before = doc.nodes.length;
  doc.session.appendJsonl(new Uint8Array(bytes));
  const entries = doc.session.getEntries();
  const { columns, stats, ...indexed } = indexTree(doc.session.getTree(), entries, doc.session);
  Object.assign(doc, indexed);
  const view = viewOf(filter ?? "default", query ?? "", keepId ?? null);
  post(
    {
      type: REPLY.appended,
      req,
      count: doc.nodes.length,
      added: doc.nodes.length - before,
      stats,
      defaultLeaf: lastEntryId(entries),
      nodes: nodeColumns({ ...doc, columns }),
      view,
    },
    viewBuffers(view),
  );
}

function plainCopy(v) {
  try {
    return JSON.parse(JSON.stringify(v));
  } catch {
    return null;
  }
}

/** The visible rows for a filter and search, laid out as a lane graph. */
function viewOf(filter, query, keepId) {
  const words = searchWords(query);
  if (words.length && !doc.search) {
    // Opened by piece, the nodes are the entries' previews: their long texts are searched by their start.
    doc.search = doc.nodes.map((e, i) => searchText(e, doc.labels[i]));
  }
  const keep = keepId != null ? (doc.nodeOf.get(keepId) ?? -1) : -1;
  const { visible, shown } = visibleNodes(doc, filter, words, keep, (i) => doc.search[i]);
  return { filter, query, ...layoutVisible(doc.parent, visible, shown) };
}

/**
 * The context at `entryId` (pi's `buildSessionProjection`: each message with
 * its source entry), the path to it and which entries on it the model sees,
 * the edits applied, the system prompt there, what fills the context, and the
 * usage of the path.
 */
function select({ req, entryId }) {
  const node = doc.nodeOf.get(entryId);
  // The path is the graph's own (never every entry of it as objects: on a
  // long path that was one string too long for JS). An id not in the graph
  // has none; the context functions say what pi says there.
  const pathNodes = node === undefined ? new Int32Array(0) : pathTo(doc.parent, node);
  // Opened by piece: a session of the header and the path's entries, read by
  // their ranges, gives at the leaf the context the whole file gives.
  let session = doc.session;
  if (doc.large) {
    doc.byId ??= nodesById(doc.nodes);
    const lines = pathJsonl((o, l) => doc.source.read(o, l), doc, contextNodes(doc.nodes, doc.byId, entryId));
    session = st.Session.open(lines);
  }
  try {
    const t0 = performance.now();
    const projection = session.buildSessionProjection(entryId);
    const ms = performance.now() - t0;
    const { messages, thinkingLevel, model } = projection;
    const path = Array.from(pathNodes, (n) => ({ id: doc.nodes[n]?.id }));
    const { state, sources, edits, editedBy } = projectionView(path, projection);
    post(
      {
        type: REPLY.selected,
        req,
        entryId,
        context: { messages, thinkingLevel, model },
        sources,
        editedBy,
        edits,
        system: systemAt(session, entryId, messages, sources),
        composition: composition(messages),
        pathUsage: usageView(session.usage(entryId, { records: false }), "path"),
        pathNodes,
        state,
        ms: Math.round(ms),
      },
      [pathNodes.buffer, state.buffer],
    );
  } finally {
    if (session !== doc.session) session.free();
  }
}

/**
 * pi-ai's system prompt at the leaf (`currentSystemMessage`), beside the one
 * in force just before the latest system message of the context: at that
 * message's parent, or for a compaction's checkpoint at the compaction's parent.
 */
function systemAt(session, entryId, messages, sources) {
  const current = session.currentSystemMessage(entryId);
  if (!current) return null;
  let previous;
  for (let k = messages.length - 1; k >= 0; k--) {
    if (messages[k]?.role !== "system") continue;
    const source = session.getEntry(sources[k]);
    const parent = source?.parentId ?? null;
    previous = parent === null ? undefined : session.currentSystemMessage(parent);
    return { ...systemView(current, previous), sourceId: sources[k] };
  }
  return systemView(current, undefined);
}

/** pi's createBranchedSession: the path to `leafId` as a new session file. */
function exportBranch(leafId) {
  const parentSession = doc?.name || undefined;
  return withBranches([leafId], (session) =>
    session.createBranchedSession(leafId, parentSession ? { parentSession } : {}),
  );
}

post({ type: REPLY.ready });
