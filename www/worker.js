// The viewer's Web Worker: reads the file, runs the session-tree package
// (WebAssembly) over it, and does every piece of work that grows with the
// session (tree flattening, filters, search, lane layout, statistics), so
// the page stays responsive with 100,000 entries.

import * as st from "./pkg/browser.js";
import { layoutForest } from "./layout.js";
import { kindOf, summarize, searchText, passesFilter, isToolOnlyAssistant, KIND } from "./model.js";

let doc = null; // the open session

const post = (msg, transfer = []) => self.postMessage(msg, transfer);
const progress = (req, stage, fraction) => post({ type: "progress", req, stage, fraction });

self.onmessage = async (event) => {
  const msg = event.data;
  try {
    switch (msg.type) {
      case "open":
        return await open(msg);
      case "view":
        return post({ type: "view", req: msg.req, view: view(msg.filter, msg.query, msg.keepId) }, viewTransfer());
      case "select":
        return select(msg);
      case "entry":
        return post({ type: "entry", req: msg.req, entry: doc?.nodes[doc.nodeOf.get(msg.entryId)] ?? null });
      case "migrated":
        return post({ type: "migrated", req: msg.req, jsonl: doc?.migratedBytes ?? null });
      case "export":
        return post({ type: "export", req: msg.req, text: exportBranch(msg.entryId) });
      default:
        throw new Error(`unknown request ${msg.type}`);
    }
  } catch (error) {
    post({ type: "error", req: msg.req, message: error?.message ?? String(error) });
  }
};

let lastTransfer = [];
const viewTransfer = () => lastTransfer;

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
  const rawHeader = entries.find((e) => e && e.type === "session") ?? null;
  const fromVersion = rawHeader ? (typeof rawHeader.version === "number" ? rawHeader.version : 1) : null;
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

  progress(req, "Indexing", 0.75);
  // Flatten the tree in pre-order (children oldest first), without recursion.
  const nodes = [];
  const parent = [];
  const labels = [];
  const labelTimes = [];
  const stack = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push(roots[i], -1);
  while (stack.length) {
    const p = stack.pop();
    const node = stack.pop();
    const index = nodes.length;
    nodes.push(node.entry);
    parent.push(p);
    labels.push(node.label);
    labelTimes.push(node.labelTimestamp);
    const kids = node.children;
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k], index);
  }
  const count = nodes.length;
  const parentArr = Int32Array.from(parent);
  const nodeOf = new Map();
  for (let i = 0; i < count; i++) nodeOf.set(nodes[i].id, i);
  // Entries by id as pi indexes them (the last one wins) for path walks.
  const byId = new Map();
  for (const e of entries) if (e && e.type !== "session" && typeof e.id === "string") byId.set(e.id, e);

  const toolCalls = new Map();
  for (const e of nodes) {
    if (e.type === "message" && e.message?.role === "assistant" && Array.isArray(e.message.content)) {
      for (const b of e.message.content)
        if (b && b.type === "toolCall") toolCalls.set(b.id, { name: b.name, arguments: b.arguments });
    }
  }
  const kinds = new Uint8Array(count);
  const summaries = new Array(count);
  const toolOnly = new Uint8Array(count);
  const times = new Array(count);
  const depth = new Int32Array(count);
  let maxDepth = 0;
  let leaves = 0;
  let branchPoints = 0;
  const childCount = new Int32Array(count);
  for (let i = 0; i < count; i++) if (parentArr[i] >= 0) childCount[parentArr[i]]++;
  for (let i = 0; i < count; i++) {
    const e = nodes[i];
    kinds[i] = kindOf(e);
    summaries[i] = summarize(e, toolCalls);
    toolOnly[i] = isToolOnlyAssistant(e) ? 1 : 0;
    times[i] = typeof e.timestamp === "string" ? e.timestamp : "";
    depth[i] = parentArr[i] >= 0 ? depth[parentArr[i]] + 1 : 1;
    if (depth[i] > maxDepth) maxDepth = depth[i];
    if (childCount[i] === 0) leaves++;
    if (childCount[i] > 1) branchPoints++;
  }
  const stats = computeStats(entries, rawHeader, { count, leaves, branchPoints, maxDepth, roots: roots.length });
  lap("index");

  let session = null;
  if (typeof st.Session === "function") {
    progress(req, "Opening the session", 0.85);
    try {
      session = st.Session.open(migratedBytes ?? bytes);
    } catch {
      session = null;
    }
    lap("session");
  }

  doc = {
    name,
    entries,
    nodes,
    parent: parentArr,
    labels,
    labelTimes,
    kinds,
    toolOnly,
    nodeOf,
    byId,
    session,
    migratedBytes,
    search: null,
    header: rawHeader,
  };
  progress(req, "Laying out the graph", 0.95);
  const initial = view(msg.filter ?? "default", msg.query ?? "", msg.keepId ?? null);
  lap("layout");
  const defaultLeaf = lastEntryId(entries);
  post(
    {
      type: "opened",
      req,
      info: {
        name,
        count,
        fromVersion,
        migrated: migratedBytes !== null,
        header: rawHeader ? structuredCloneSafe(rawHeader) : null,
        diagnostics,
        stats,
        timings,
        defaultLeaf,
        hasSession: session !== null,
        bytes: bytes.length,
      },
      nodes: {
        ids: nodes.map((e) => e.id),
        kinds,
        summaries,
        labels,
        times,
        parent: parentArr,
        refs: nodes.map(refOf),
      },
      view: initial,
    },
    [...lastTransfer],
  );
}

function refOf(e) {
  const ref =
    e.type === "compaction"
      ? e.firstKeptEntryId
      : e.type === "branch_summary"
        ? e.fromId
        : e.type === "label"
          ? e.targetId
          : null;
  return typeof ref === "string" ? ref : null;
}

function structuredCloneSafe(v) {
  try {
    return JSON.parse(JSON.stringify(v));
  } catch {
    return null;
  }
}

function lastEntryId(entries) {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e && e.type !== "session" && typeof e.id === "string") return e.id;
  }
  return null;
}

function computeStats(entries, header, tree) {
  const byType = {};
  const byRole = {};
  const tokens = { total: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, turns: 0 };
  const models = new Map();
  let names = [];
  for (const e of entries) {
    if (!e || typeof e !== "object" || e.type === "session") continue;
    const type = String(e.type);
    byType[type] = (byType[type] ?? 0) + 1;
    if (type === "message") {
      const role = String(e.message?.role);
      byRole[role] = (byRole[role] ?? 0) + 1;
      const m = e.message;
      if (role === "assistant") {
        const u = m.usage;
        if (u && typeof u === "object") {
          tokens.turns++;
          tokens.total += num(u.totalTokens);
          tokens.input += num(u.input);
          tokens.output += num(u.output);
          tokens.cacheRead += num(u.cacheRead);
          tokens.cacheWrite += num(u.cacheWrite);
          tokens.cost += num(u.cost?.total);
        }
        if (m.provider || m.model) {
          const key = `${m.provider}/${m.model}`;
          models.set(key, (models.get(key) ?? 0) + 1);
        }
      }
    }
    if (type === "session_info" && typeof e.name === "string" && e.name.trim()) names.push(e.name.trim());
  }
  return { byType, byRole, tokens, models: [...models], name: names.at(-1), ...tree };
}
const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The visible rows for a filter and search, laid out as a lane graph. */
function view(filter, query, keepId) {
  const { nodes, parent, labels, toolOnly } = doc;
  const count = nodes.length;
  const tokens = String(query ?? "")
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean);
  if (tokens.length && !doc.search) doc.search = nodes.map((e, i) => searchText(e, labels[i]));
  const keep = keepId != null ? (doc.nodeOf.get(keepId) ?? -1) : -1;
  const visible = new Uint8Array(count);
  let visibleCount = 0;
  for (let i = 0; i < count; i++) {
    let ok = i === keep || !toolOnly[i];
    if (ok) ok = passesFilter(filter, nodes[i], labels[i]);
    if (ok && tokens.length) {
      const text = doc.search[i];
      ok = tokens.every((t) => text.includes(t));
    }
    if (ok) {
      visible[i] = 1;
      visibleCount++;
    }
  }
  // Nearest visible ancestor (parents come before children in `nodes`).
  const nva = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const p = parent[i];
    nva[i] = p < 0 ? -1 : visible[p] ? p : nva[p];
  }
  const local = new Int32Array(count).fill(-1);
  const nodeOfLocal = new Int32Array(visibleCount);
  let k = 0;
  for (let i = 0; i < count; i++)
    if (visible[i]) {
      local[i] = k;
      nodeOfLocal[k++] = i;
    }
  const vparent = new Int32Array(visibleCount);
  for (let j = 0; j < visibleCount; j++) {
    const a = nva[nodeOfLocal[j]];
    vparent[j] = a < 0 ? -1 : local[a];
  }
  const layout = layoutForest(vparent);
  const rowNode = new Int32Array(visibleCount);
  for (let r = 0; r < visibleCount; r++) rowNode[r] = nodeOfLocal[layout.order[r]];
  const result = {
    filter,
    query,
    count: visibleCount,
    lanes: layout.lanes,
    rowNode,
    col: layout.col,
    parentRow: layout.parentRow,
    topMask: layout.topMask,
    botMask: layout.botMask,
  };
  lastTransfer = [
    rowNode.buffer,
    layout.col.buffer,
    layout.parentRow.buffer,
    layout.topMask.buffer,
    layout.botMask.buffer,
  ];
  return result;
}

/** The path from the root to `id`, as pi walks it (parentId links, last entry per id wins). */
function pathTo(id) {
  const path = [];
  const seen = new Set();
  let current = doc.byId.get(id);
  while (current && !seen.has(current)) {
    seen.add(current);
    path.push(current);
    current = current.parentId ? doc.byId.get(current.parentId) : undefined;
  }
  return path.reverse();
}

function select({ req, entryId }) {
  const path = pathTo(entryId);
  const t0 = performance.now();
  let context;
  if (doc.session) context = doc.session.buildSessionContext(entryId);
  else context = st.buildSessionContext(path, entryId);
  const ms = performance.now() - t0;
  // Which entries on the path the model sees, following buildSessionContext.
  const producesMessage = (e) =>
    e.type === "message" || e.type === "custom_message" || (e.type === "branch_summary" && !!e.summary);
  let compactionIdx = -1;
  for (let i = 0; i < path.length; i++) if (path[i].type === "compaction") compactionIdx = i;
  const state = new Uint8Array(path.length); // 1: in the context, 2: not sent to the model
  if (compactionIdx >= 0) {
    const c = path[compactionIdx];
    let kept = false;
    for (let i = 0; i < compactionIdx; i++) {
      if (path[i].id === c.firstKeptEntryId) kept = true;
      state[i] = kept && producesMessage(path[i]) ? 1 : 2;
    }
    state[compactionIdx] = 1;
    for (let i = compactionIdx + 1; i < path.length; i++) state[i] = producesMessage(path[i]) ? 1 : 2;
  } else {
    for (let i = 0; i < path.length; i++) state[i] = producesMessage(path[i]) ? 1 : 2;
  }
  const pathNodes = new Int32Array(path.length);
  for (let i = 0; i < path.length; i++) pathNodes[i] = doc.nodeOf.get(path[i].id) ?? -1;
  post({ type: "selected", req, entryId, context, pathNodes, state, ms: Math.round(ms) }, [
    pathNodes.buffer,
    state.buffer,
  ]);
}

/** pi's createBranchedSession: the path to `leafId` as a new session file. */
function exportBranch(leafId) {
  const parentSession = doc.name || undefined;
  if (doc.session && typeof doc.session.createBranchedSession === "function") {
    const options = parentSession ? { parentSession } : {};
    return doc.session.createBranchedSession(leafId, options);
  }
  const path = pathTo(leafId);
  if (path.length === 0) throw new Error(`Entry ${leafId} not found`);
  const kept = path.filter((e) => e.type !== "label");
  const ids = new Set(kept.map((e) => e.id));
  // Labels as pi indexes them: file order, the latest wins, an empty label clears.
  const labels = new Map();
  for (const e of doc.entries) {
    if (!e || e.type !== "label") continue;
    if (e.label) labels.set(e.targetId, { label: e.label, timestamp: e.timestamp });
    else labels.delete(e.targetId);
  }
  const header = {
    type: "session",
    version: 3,
    id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    cwd: doc.header?.cwd ?? "",
    parentSession,
  };
  const out = [header, ...kept];
  let parentId = kept.at(-1)?.id ?? null;
  for (const [targetId, { label, timestamp }] of labels) {
    if (!ids.has(targetId)) continue;
    let id;
    do id = [...crypto.getRandomValues(new Uint8Array(4))].map((b) => b.toString(16).padStart(2, "0")).join("");
    while (ids.has(id));
    ids.add(id);
    out.push({ type: "label", id, parentId, timestamp, targetId, label });
    parentId = id;
  }
  return out.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

void KIND;
post({ type: "ready" });
