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
import { REPLY, REQUEST } from "./messages.js";
import { searchText } from "./model.js";
import * as st from "./pkg/browser.js";
import { buildShare, scanBranch } from "./share-worker.js";

/** The open session: what `open` computed, kept for the requests that follow. */
let doc = null;

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
  [REQUEST.entry]: ({ req, entryId }) =>
    post({ type: REPLY.entry, req, entry: doc?.nodes[doc.nodeOf.get(entryId)] ?? null }),
  [REQUEST.migrated]: ({ req }) => post({ type: REPLY.migrated, req, jsonl: doc?.migratedBytes ?? null }),
  [REQUEST.export]: ({ req, entryId }) => post({ type: REPLY.export, req, text: exportBranch(entryId) }),
  // Two branches side by side (compare.js).
  [REQUEST.compare]: ({ req, a, b }) =>
    post({ type: REPLY.compared, req, comparison: compareLeaves((id) => doc.session.getBranch(id), a, b, sideUsage) }),
  // Share one branch, redacted (share-worker.js).
  [REQUEST.shareScan]: ({ req, entryId }) => post({ type: REPLY.shareScanned, req, ...scanBranch(st, doc, entryId) }),
  [REQUEST.shareBuild]: async ({ req, entryId, redactions }) =>
    post({ type: REPLY.shareBuilt, req, ...(await buildShare(st, doc, entryId, redactions)) }),
};

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

async function readAll(file, req) {
  const total = file.size || 1;
  const reader = file.stream().getReader();
  const bytes = new Uint8Array(file.size);
  let offset = 0;
  let lastReport = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.set(value, offset);
    offset += value.length;
    if (offset - lastReport > 4 << 20) {
      lastReport = offset;
      progress(req, "Reading", 0.25 * (offset / total));
    }
  }
  return offset === bytes.length ? bytes : bytes.subarray(0, offset);
}

async function open(msg) {
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
  if (msg.file) bytes = await readAll(msg.file, req);
  else if (msg.bytes) bytes = new Uint8Array(msg.bytes);
  else bytes = new TextEncoder().encode(msg.text ?? "");
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
  if (st.migrate(entries)) {
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

  doc?.session.free();
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
      nodes: nodeColumns(columns),
      view,
    },
    viewBuffers(view),
  );
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
    nodes.map((e) => e.id),
    report,
  );
  const stats = computeStats(entries, { count: nodes.length, ...treeShape(parent), roots: roots.length }, tokens);
  return { nodes, parent, labels, toolOnly: columns.toolOnly, nodeOf: indexById(nodes), search: null, columns, stats };
}

/** What a compare side's entries cost, as the package counts it (pi's `getSessionStats` rules). */
const sideUsage = (entries) => st.sessionUsage(entries, { records: false }).total;

/** The node columns the page draws the graph from (`doc` indexed by indexTree). */
function nodeColumns({ kinds, summaries, times, refs, costs }) {
  const { nodes, labels, parent } = doc;
  return { ids: nodes.map((e) => e.id), kinds, summaries, labels, times, parent, refs, costs };
}

/**
 * Live follow (live.js): feeds bytes appended to the open file to the session,
 * which takes a chunk cut anywhere, then rebuilds the graph's columns from it.
 */
function appendLive({ req, bytes, filter, query, keepId }) {
  if (!doc) throw new Error("no session is open");
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
      nodes: nodeColumns(columns),
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
  if (words.length && !doc.search) doc.search = doc.nodes.map((e, i) => searchText(e, doc.labels[i]));
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
  const { session } = doc;
  const path = session.getBranch(entryId);
  const t0 = performance.now();
  const projection = session.buildSessionProjection(entryId);
  const ms = performance.now() - t0;
  const { messages, thinkingLevel, model } = projection;
  const { state, sources, edits, editedBy } = projectionView(path, projection);
  const pathNodes = new Int32Array(path.length);
  for (let i = 0; i < path.length; i++) pathNodes[i] = doc.nodeOf.get(path[i].id) ?? -1;
  post(
    {
      type: REPLY.selected,
      req,
      entryId,
      context: { messages, thinkingLevel, model },
      sources,
      editedBy,
      edits,
      system: systemAt(entryId, messages, sources),
      composition: composition(messages),
      pathUsage: usageView(session.usage(entryId, { records: false }), "path"),
      pathNodes,
      state,
      ms: Math.round(ms),
    },
    [pathNodes.buffer, state.buffer],
  );
}

/**
 * pi-ai's system prompt at the leaf (`currentSystemMessage`), beside the one
 * in force just before the latest system message of the context: at that
 * message's parent, or for a compaction's checkpoint at the compaction's parent.
 */
function systemAt(entryId, messages, sources) {
  const current = doc.session.currentSystemMessage(entryId);
  if (!current) return null;
  let previous;
  for (let k = messages.length - 1; k >= 0; k--) {
    if (messages[k]?.role !== "system") continue;
    const source = doc.session.getEntry(sources[k]);
    const parent = source?.parentId ?? null;
    previous = parent === null ? undefined : doc.session.currentSystemMessage(parent);
    return { ...systemView(current, previous), sourceId: sources[k] };
  }
  return systemView(current, undefined);
}

/** pi's createBranchedSession: the path to `leafId` as a new session file. */
function exportBranch(leafId) {
  const parentSession = doc.name || undefined;
  return doc.session.createBranchedSession(leafId, parentSession ? { parentSession } : {});
}

post({ type: REPLY.ready });
