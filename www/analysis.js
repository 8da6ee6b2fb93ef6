// What the viewer computes from a session, without the DOM: the tree
// flattened into columns, statistics, pi's filters and search as visible rows,
// which entries on a path the model sees, and the status line. The worker
// runs all of it (it grows with the session); Node unit tests cover it
// (tests/viewer/unit/).

import { layoutForest } from "./layout.js";
import { PATH } from "./messages.js";
import { isToolOnlyAssistant, kindOf, passesFilter, summarize } from "./model.js";

/**
 * Flattens `getTree`'s roots in pre-order (children oldest first), without
 * recursion. `parent[i]` is the index of node i's parent, -1 for a root, and
 * always smaller than i.
 */
export function flattenTree(roots) {
  const { nodes, parent, labels } = flattenNodes(roots);
  return { nodes: nodes.map((node) => node.entry), parent, labels };
}

/**
 * `flattenTree`, keeping the tree's nodes rather than their entries: where
 * reading a node's `entry` reads the file (large.js), it is read later, once.
 */
export function flattenNodes(roots) {
  const nodes = [];
  const parent = [];
  const labels = [];
  const stack = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push([roots[i], -1]);
  while (stack.length) {
    const [node, p] = stack.pop();
    const index = nodes.length;
    nodes.push(node);
    parent.push(p);
    labels.push(node.label);
    const kids = node.children;
    for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k], index]);
  }
  return { nodes, parent: Int32Array.from(parent), labels };
}

/** Entry id → node index. */
export function indexById(nodes) {
  const nodeOf = new Map();
  for (let i = 0; i < nodes.length; i++) if (typeof nodes[i]?.id === "string") nodeOf.set(nodes[i].id, i);
  return nodeOf;
}

/** Tool call id → `{ name, arguments }`, over every assistant message. */
export function toolCallsOf(nodes) {
  const toolCalls = new Map();
  for (const e of nodes) {
    if (e?.type === "message" && e.message?.role === "assistant" && Array.isArray(e.message.content)) {
      for (const b of e.message.content) {
        if (b && b.type === "toolCall") toolCalls.set(b.id, { name: b.name, arguments: b.arguments });
      }
    }
  }
  return toolCalls;
}

/**
 * The id an entry points at: a compaction's first kept entry, a branch
 * summary's origin, a label's or a context edit's target.
 */
export function refOf(e) {
  if (!e || typeof e !== "object") return null;
  const ref =
    e.type === "compaction"
      ? e.firstKeptEntryId
      : e.type === "branch_summary"
        ? e.fromId
        : e.type === "label" || e.type === "context_edit"
          ? e.targetId
          : null;
  return typeof ref === "string" ? ref : null;
}

/** Per node: kind, one-line summary, whether pi's selector hides it as tool-only, time, reference. */
export function describeNodes(nodes) {
  const count = nodes.length;
  const toolCalls = toolCallsOf(nodes);
  const kinds = new Uint8Array(count);
  const summaries = new Array(count);
  const toolOnly = new Uint8Array(count);
  const times = new Array(count);
  const refs = new Array(count);
  for (let i = 0; i < count; i++) {
    const e = nodes[i];
    kinds[i] = kindOf(e);
    summaries[i] = summarize(e, toolCalls);
    toolOnly[i] = isToolOnlyAssistant(e) ? 1 : 0;
    times[i] = typeof e?.timestamp === "string" ? e.timestamp : "";
    refs[i] = refOf(e);
  }
  return { kinds, summaries, toolOnly, times, refs };
}

/** Leaves, branch points (nodes with two or more children) and the depth of the deepest node (a root is 1). */
export function treeShape(parent) {
  const count = parent.length;
  const childCount = new Int32Array(count);
  for (let i = 0; i < count; i++) if (parent[i] >= 0) childCount[parent[i]]++;
  const depth = new Int32Array(count);
  let maxDepth = 0;
  let leaves = 0;
  let branchPoints = 0;
  for (let i = 0; i < count; i++) {
    depth[i] = parent[i] >= 0 ? depth[parent[i]] + 1 : 1;
    if (depth[i] > maxDepth) maxDepth = depth[i];
    if (childCount[i] === 0) leaves++;
    if (childCount[i] > 1) branchPoints++;
  }
  return { leaves, branchPoints, maxDepth };
}

/** The first header line, or `null`. */
export const headerOf = (entries) => entries.find((e) => e && e.type === "session") ?? null;

/** The version a header declares (none means 1); `null` without a header. */
export const versionOf = (header) => (header ? (typeof header.version === "number" ? header.version : 1) : null);

/** The id of the last entry in file order: pi's default leaf. */
export function lastEntryId(entries) {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e && e.type !== "session" && typeof e.id === "string") return e.id;
  }
  return null;
}

/**
 * Counts over the file's entries (every line, on the tree or not): entries by
 * type, messages by role, the assistants' models, and the session name (the
 * last non-blank `session_info` name, trimmed). `tree` is merged in; `tokens`
 * is the file's usage (`usageView` of the package's `Session.usage`).
 */
export function computeStats(entries, tree, tokens) {
  const counter = statsCounter();
  for (const e of entries) counter.add(e);
  return counter.stats(tree, tokens);
}

/** `computeStats` an entry at a time: `add(entry)` each, then `stats(tree, tokens)`. */
export function statsCounter() {
  const byType = {};
  const byRole = {};
  const models = new Map();
  let name;
  return {
    add(e) {
      if (!e || typeof e !== "object" || e.type === "session") return;
      const type = String(e.type);
      byType[type] = (byType[type] ?? 0) + 1;
      if (type === "message") {
        const role = String(e.message?.role);
        byRole[role] = (byRole[role] ?? 0) + 1;
        const m = e.message;
        if (role === "assistant") {
          if (m.provider || m.model) {
            const key = `${m.provider}/${m.model}`;
            models.set(key, (models.get(key) ?? 0) + 1);
          }
        }
      }
      if (type === "session_info" && typeof e.name === "string" && e.name.trim()) name = e.name.trim();
    },
    stats: (tree, tokens) => ({ byType, byRole, tokens, models: [...models], name, ...tree }),
  };
}

/** A search query as lower-case words; every word must occur. */
export const searchWords = (query) =>
  String(query ?? "")
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean);

/**
 * Which nodes a filter and search show, as a 0/1 mask, and how many. Tool-only
 * assistant turns are hidden (as pi's selector does) except `keep`, the node
 * of the leaf. `text(i)` is node i's search text, asked only when there are words.
 */
export function visibleNodes({ nodes, labels, toolOnly }, filter, words, keep, text) {
  const count = nodes.length;
  const visible = new Uint8Array(count);
  let shown = 0;
  for (let i = 0; i < count; i++) {
    let ok = i === keep || !toolOnly[i];
    if (ok) ok = passesFilter(filter, nodes[i], labels[i]);
    if (ok && words.length) {
      const t = text(i);
      ok = words.every((w) => t.includes(w));
    }
    if (ok) {
      visible[i] = 1;
      shown++;
    }
  }
  return { visible, shown };
}

/**
 * The visible nodes as a forest of their own (each one's parent is its
 * nearest visible ancestor), laid out in lanes: row r shows node `rowNode[r]`.
 */
export function layoutVisible(parent, visible, shown) {
  const count = parent.length;
  // Parents come before children, so an ancestor's answer is always ready.
  const nearest = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const p = parent[i];
    nearest[i] = p < 0 ? -1 : visible[p] ? p : nearest[p];
  }
  const local = new Int32Array(count).fill(-1);
  const nodeOfLocal = new Int32Array(shown);
  let k = 0;
  for (let i = 0; i < count; i++) {
    if (visible[i]) {
      local[i] = k;
      nodeOfLocal[k++] = i;
    }
  }
  const vparent = new Int32Array(shown);
  for (let j = 0; j < shown; j++) {
    const a = nearest[nodeOfLocal[j]];
    vparent[j] = a < 0 ? -1 : local[a];
  }
  const layout = layoutForest(vparent);
  const rowNode = new Int32Array(shown);
  for (let r = 0; r < shown; r++) rowNode[r] = nodeOfLocal[layout.order[r]];
  return {
    count: shown,
    lanes: layout.lanes,
    rowNode,
    col: layout.col,
    parentRow: layout.parentRow,
    topMask: layout.topMask,
    botMask: layout.botMask,
  };
}

/** The buffers of a view, to transfer rather than copy. */
export const viewBuffers = (view) => [
  view.rowNode.buffer,
  view.col.buffer,
  view.parentRow.buffer,
  view.topMask.buffer,
  view.botMask.buffer,
];

/** The roles whose content a context edit's replacement changes. */
const EDITABLE = new Set(["user", "assistant", "toolResult", "custom"]);

/**
 * What the viewer shows of `buildSessionProjection` at a leaf, given the path
 * to it (`getBranch`, root first) and the projection itself:
 *
 * - `state[i]`: `PATH.sent` when path entry i gives the context at least one
 *   message, else `PATH.unsent`;
 * - `sources[k]`: the id of the entry that context message k comes from;
 * - `edits`: target id → `{ editId, kind: "omit" | "replace" }` for each
 *   context edit the projection applies (those among its entries, the last
 *   one per target winning, whose target is among its entries too). A
 *   replacement changes only user, assistant, tool result and custom
 *   messages, so one whose target gives none of those changes nothing and is
 *   left out;
 * - `editedBy[k]`: the id of the edit that replaced message k's content, or `null`.
 */
export function projectionView(path, projection) {
  const sent = new Set();
  const inContext = new Map(); // id -> the messages it gives
  const latest = new Map();
  const sources = [];
  for (const { sourceEntry, messages } of projection.entries) {
    inContext.set(sourceEntry.id, messages);
    if (messages.length) sent.add(sourceEntry.id);
    for (let k = 0; k < messages.length; k++) sources.push(sourceEntry.id);
    if (sourceEntry.type === "context_edit") latest.set(sourceEntry.targetId, sourceEntry);
  }
  const edits = new Map();
  for (const [target, edit] of latest) {
    const messages = inContext.get(target);
    if (!messages) continue;
    if (edit.replacement === null) edits.set(target, { editId: edit.id, kind: "omit" });
    else if (messages.some((m) => EDITABLE.has(m?.role))) edits.set(target, { editId: edit.id, kind: "replace" });
  }
  const state = new Uint8Array(path.length);
  for (let i = 0; i < path.length; i++) state[i] = sent.has(path[i].id) ? PATH.sent : PATH.unsent;
  const editedBy = sources.map((id, k) =>
    edits.get(id)?.kind === "replace" && EDITABLE.has(projection.messages[k]?.role) ? edits.get(id).editId : null,
  );
  return { state, sources, edits, editedBy };
}

/**
 * The system prompt at a leaf beside the one before the latest system
 * message (both `currentSystemMessage` results, or `undefined`): its sections
 * by name, each marked `new` or `changed` since then, and its tools, each
 * marked `added` when it was not there before, plus the names `removed` since.
 */
export function systemView(current, previous) {
  if (!current) return null;
  const before = previous ?? {};
  const oldSections = before.sections ?? {};
  const sections = Object.entries(current.sections ?? {}).map(([name, text]) => ({
    name,
    text: String(text),
    status: !(name in oldSections) ? "new" : oldSections[name] !== text ? "changed" : "same",
  }));
  const oldTools = new Map((before.toolsAdded ?? []).map((t) => [t?.name, t]));
  const tools = (current.toolsAdded ?? []).map((t) => ({
    name: String(t?.name),
    description: typeof t?.description === "string" ? t.description : "",
    status: oldTools.has(t?.name) ? "same" : "added",
  }));
  const now = new Set(tools.map((t) => t.name));
  const removed = [...oldTools.keys()].map(String).filter((n) => !now.has(n));
  const content = typeof current.content === "string" ? current.content : "";
  return { content, sections, tools, removed, timestamp: current.timestamp };
}

/** A token count as the viewer writes it: 950, 12.3k, 1.25M. */
export const formatTokens = (n) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n));

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The status bar: entries, how many the filter shows, leaves, branch points, problems, open time. */
export function statusLine(info, view) {
  const parts = [`${info.count} entries`];
  if (view && view.count !== info.count) parts.push(`${view.count} shown`);
  parts.push(`${info.stats.leaves} leaves`, `${info.stats.branchPoints} branch points`);
  if (info.diagnostics.length) parts.push(plural(info.diagnostics.length, "problem"));
  parts.push(`opened in ${Object.values(info.timings).reduce((a, b) => a + b, 0)} ms`);
  return parts.join(" · ");
}

/** The sources of usage, as the viewer names them. */
export const USAGE_SOURCES = {
  assistant: "assistant messages",
  usage: "usage entries",
  compaction: "compactions",
  branchSummary: "branch summaries",
  toolResult: "tool results",
};

/** The Stats tab as `[title, [[key, value], …]]` sections, from the `opened` reply's `info`. */
export function statsTables(info) {
  const s = info.stats;
  const h = info.header;
  const byCount = (counts) =>
    Object.entries(counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, String(v)]);
  const t = s.tokens;
  const tables = [
    [
      "Header",
      h
        ? [
            ["id", String(h.id ?? "")],
            ["version", `${h.version ?? "(none: 1)"}${info.migrated ? " → 3, migrated in memory" : ""}`],
            ["created", String(h.timestamp ?? "")],
            ["cwd", String(h.cwd ?? "")],
            ...(h.parentSession ? [["parent session", String(h.parentSession)]] : []),
            ...(s.name ? [["name", s.name]] : []),
          ]
        : [["header", "missing"]],
    ],
    [
      "Tree",
      [
        ["entries", String(info.count)],
        ["roots", String(s.roots)],
        ["leaves", String(s.leaves)],
        ["branch points", String(s.branchPoints)],
        ["depth", String(s.maxDepth)],
        ["file size", `${(info.bytes / 1024).toFixed(1)} KiB`],
      ],
    ],
    ["Entries by type", byCount(s.byType)],
    ["Messages by role", byCount(s.byRole)],
    [
      "Usage (the whole file, as pi's session stats count it)",
      t === null
        ? [["usage", "not counted: the file was opened by piece (too large to read whole)"]]
        : [
            ["records with usage", String(t.records)],
            ...Object.entries(t.by).map(([source, u]) => [
              `  from ${USAGE_SOURCES[source] ?? source}`,
              `${formatTokens(u.total)} tokens · $${u.cost.toFixed(4)}`,
            ]),
            ["total tokens", formatTokens(t.total)],
            ["input", formatTokens(t.input)],
            ["output", formatTokens(t.output)],
            ["cache read", formatTokens(t.cacheRead)],
            ["cache write", formatTokens(t.cacheWrite)],
            ["cost", `$${t.cost.toFixed(4)}`],
          ],
    ],
  ];
  if (s.models.length) tables.push(["Models", s.models.map(([k, v]) => [k, plural(v, "turn")])]);
  return tables;
}

/** How long each step of opening took, as the Stats tab ends. */
export const timingLine = (timings) =>
  `Opened in ${Object.entries(timings)
    .map(([k, v]) => `${k} ${v} ms`)
    .join(", ")}.`;
