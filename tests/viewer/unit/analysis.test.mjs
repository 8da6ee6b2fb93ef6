// Unit tests of www/analysis.js on small hand-built trees; every expected
// value is worked out by hand in the comments, not taken from the module.
//
//   node --test tests/viewer/unit/

import assert from "node:assert/strict";
import { test } from "node:test";
import { Session } from "session-tree";
import {
  computeStats,
  describeNodes,
  flattenTree,
  formatTokens,
  headerOf,
  indexById,
  lastEntryId,
  layoutVisible,
  refOf,
  searchWords,
  statsTables,
  statusLine,
  treeShape,
  versionOf,
  visibleNodes,
} from "../../../www/analysis.js";
import { usageView } from "../../../www/composition.js";
import { KIND } from "../../../www/model.js";

const T = "2025-01-01T00:00:00.000Z";
const user = (id, parentId, text) => ({
  type: "message",
  id,
  parentId,
  timestamp: T,
  message: { role: "user", content: text },
});
const assistant = (id, parentId, content, stopReason = "stop") => ({
  type: "message",
  id,
  parentId,
  timestamp: T,
  message: { role: "assistant", content, stopReason },
});
const node = (entry, children = [], label) => ({ entry, children, label });

// r1 (user)
//  ├─ a1 (assistant, text)
//  │   └─ u2 (user)
//  └─ a2 (assistant, one tool call, nothing else)
//      └─ t1 (tool result of that call)
// r2 (model change, labelled "start"): a second root
const r1 = user("r1", null, "hello");
const a1 = assistant("a1", "r1", [{ type: "text", text: "hi" }]);
const u2 = user("u2", "a1", "more");
const a2 = assistant(
  "a2",
  "r1",
  [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "src/x.ts" } }],
  "toolUse",
);
const t1 = {
  type: "message",
  id: "t1",
  parentId: "a2",
  timestamp: T,
  message: { role: "toolResult", toolCallId: "c1", toolName: "read", content: [] },
};
const r2 = { type: "model_change", id: "r2", parentId: null, timestamp: 7, provider: "anthropic", modelId: "claude" };
const roots = [node(r1, [node(a1, [node(u2)]), node(a2, [node(t1)])]), node(r2, [], "start")];

test("flattenTree lists nodes in pre-order, children oldest first, with parent indices and labels", () => {
  const { nodes, parent, labels } = flattenTree(roots);
  assert.deepEqual(
    nodes.map((e) => e.id),
    ["r1", "a1", "u2", "a2", "t1", "r2"],
  );
  assert.ok(parent instanceof Int32Array);
  assert.deepEqual([...parent], [-1, 0, 1, 0, 3, -1]);
  assert.deepEqual(labels, [undefined, undefined, undefined, undefined, undefined, "start"]);
  assert.equal(indexById(nodes).get("t1"), 4);
});

test("flattenTree takes a chain of 100,000 entries without recursion", () => {
  let root = null;
  for (let i = 99_999; i >= 0; i--) root = node({ id: `e${i}` }, root ? [root] : []);
  const { nodes, parent } = flattenTree([root]);
  assert.equal(nodes.length, 100_000);
  assert.equal(nodes[99_999].id, "e99999");
  assert.equal(parent[99_999], 99_998);
});

test("treeShape counts leaves, branch points and the depth", () => {
  // r1 has two children (one branch point); u2, t1 and r2 have none; u2 and t1 sit at depth 3.
  assert.deepEqual(treeShape(Int32Array.from([-1, 0, 1, 0, 3, -1])), { leaves: 3, branchPoints: 1, maxDepth: 3 });
  assert.deepEqual(treeShape(new Int32Array(0)), { leaves: 0, branchPoints: 0, maxDepth: 0 });
});

test("describeNodes gives kinds, summaries (tool results named by their call), tool-only turns and references", () => {
  const { nodes } = flattenTree(roots);
  const d = describeNodes(nodes);
  assert.deepEqual([...d.kinds], [KIND.user, KIND.assistant, KIND.user, KIND.assistant, KIND.toolResult, KIND.model]);
  assert.deepEqual(d.summaries, [
    "hello",
    "hi",
    "more",
    "→ read src/x.ts",
    "read src/x.ts",
    "model → anthropic/claude",
  ]);
  assert.deepEqual([...d.toolOnly], [0, 0, 0, 1, 0, 0]);
  // A timestamp that is not a string is shown as none.
  assert.deepEqual(d.times, [T, T, T, T, T, ""]);
  assert.deepEqual(d.refs, [null, null, null, null, null, null]);
});

test("refOf follows compactions, branch summaries and labels, and only to string ids", () => {
  assert.equal(refOf({ type: "compaction", firstKeptEntryId: "k" }), "k");
  assert.equal(refOf({ type: "branch_summary", fromId: "f" }), "f");
  assert.equal(refOf({ type: "label", targetId: "t" }), "t");
  assert.equal(refOf({ type: "label", targetId: 5 }), null);
  assert.equal(refOf({ type: "message", firstKeptEntryId: "k" }), null);
});

const columns = () => {
  const { nodes, parent, labels } = flattenTree(roots);
  return { nodes, parent, labels, toolOnly: describeNodes(nodes).toolOnly };
};
const shown = (mask) => [...mask].flatMap((v, i) => (v ? [i] : []));

test("visibleNodes applies pi's filters and hides tool-only turns unless kept", () => {
  const doc = columns();
  const none = () => assert.fail("no words, no text needed");
  // default: a2 is tool-only, r2 a model change (a setting).
  const v = visibleNodes(doc, "default", [], -1, none);
  assert.deepEqual(shown(v.visible), [0, 1, 2, 4]);
  assert.equal(v.shown, 4);
  // The leaf's node stays, even when it is a tool-only turn.
  assert.deepEqual(shown(visibleNodes(doc, "default", [], 3, none).visible), [0, 1, 2, 3, 4]);
  // no-tools also drops the tool result.
  assert.deepEqual(shown(visibleNodes(doc, "no-tools", [], -1, none).visible), [0, 1, 2]);
  assert.deepEqual(shown(visibleNodes(doc, "user-only", [], -1, none).visible), [0, 2]);
  assert.deepEqual(shown(visibleNodes(doc, "labeled-only", [], -1, none).visible), [5]);
  // all: everything but the tool-only turn.
  assert.deepEqual(shown(visibleNodes(doc, "all", [], -1, none).visible), [0, 1, 2, 4, 5]);
});

test("visibleNodes with search words keeps the nodes whose text has every word", () => {
  const doc = columns();
  const texts = ["user hello", "assistant hi", "user more", "assistant", "toolresult read", "model claude"];
  assert.deepEqual(searchWords("  User  MORE "), ["user", "more"]);
  assert.deepEqual(searchWords(undefined), []);
  const text = (i) => texts[i];
  assert.deepEqual(shown(visibleNodes(doc, "all", ["user"], -1, text).visible), [0, 2]);
  assert.deepEqual(shown(visibleNodes(doc, "all", ["user", "more"], -1, text).visible), [2]);
  assert.deepEqual(visibleNodes(doc, "all", ["nowhere"], -1, text).shown, 0);
});

test("layoutVisible links each visible node to its nearest visible ancestor and lays the rows out", () => {
  const parent = Int32Array.from([-1, 0, 1, 0, 3, -1]);
  // a2 (3) and r2 (5) hidden: t1 (4) hangs from r1 (0). Visible forest:
  // r1 → a1 → u2 (the heavy chain, 3 nodes) and r1 → t1 (light).
  // Rows: r1, then the light t1 in column 1, then a1 and u2 straight below r1.
  const view = layoutVisible(parent, Uint8Array.from([1, 1, 1, 0, 1, 0]), 4);
  assert.equal(view.count, 4);
  assert.equal(view.lanes, 2);
  assert.deepEqual([...view.rowNode], [0, 4, 1, 2]);
  assert.deepEqual([...view.col], [0, 1, 0, 0]);
  assert.deepEqual([...view.parentRow], [-1, 0, 0, 2]);
  // Column 0 runs from row 0 to row 3; column 1 is only row 1's.
  assert.deepEqual([...view.topMask], [0, 1, 1, 1]);
  assert.deepEqual([...view.botMask], [1, 1, 1, 0]);
});

test("layoutVisible with nothing visible is empty", () => {
  const view = layoutVisible(Int32Array.from([-1, 0]), new Uint8Array(2), 0);
  assert.equal(view.count, 0);
  assert.equal(view.lanes, 0);
  assert.equal(view.rowNode.length, 0);
});

test("headerOf, versionOf and lastEntryId", () => {
  const header = { type: "session", id: "s" };
  const entries = [header, { type: "message", id: "a" }, { type: "label", id: 5 }, null];
  assert.equal(headerOf(entries), header);
  assert.equal(headerOf([{ type: "message", id: "a" }]), null);
  assert.equal(versionOf(null), null);
  assert.equal(versionOf(header), 1);
  assert.equal(versionOf({ type: "session", version: 2 }), 2);
  assert.equal(versionOf({ type: "session", version: "3" }), 1);
  // The label's id is not a string and null is no entry: "a" is the last.
  assert.equal(lastEntryId(entries), "a");
  assert.equal(lastEntryId([header]), null);
});

test("computeStats counts types, roles, usage, models and the session name", () => {
  const usage = { totalTokens: 100, input: 60, output: 40, cacheRead: 10, cacheWrite: 0, cost: { total: 0.5 } };
  const entries = [
    { type: "session", id: "s" },
    user("u", null, "q"),
    { type: "message", id: "a", message: { role: "assistant", provider: "p", model: "m", usage } },
    { type: "message", id: "b", message: { role: "assistant", provider: "p", model: "m" } },
    {
      type: "message",
      id: "c",
      message: { role: "assistant", provider: "q", model: "n", usage: { totalTokens: Infinity, input: "60" } },
    },
    { type: "session_info", id: "i1", name: "  First " },
    { type: "session_info", id: "i2", name: "Second  " },
    { type: "session_info", id: "i3", name: "   " },
    { type: "label", id: "l", targetId: "u" },
    null,
  ];
  const tokens = usageView(Session.open(entries.filter(Boolean)).usage(null, { records: false }), "total");
  const stats = computeStats(entries, { count: 8, roots: 1 }, tokens);
  assert.deepEqual(stats.byType, { message: 4, session_info: 3, label: 1 });
  assert.deepEqual(stats.byRole, { user: 1, assistant: 3 });
  // The file's usage is what it is given (the package's, in the core): three
  // assistant turns, two of them incomplete (no usage; a string for a number,
  // which counts as nothing). The total is pi's: input + output + cache read +
  // cache write (not totalTokens).
  const turn = {
    input: 60,
    output: 40,
    cacheRead: 10,
    cacheWrite: 0,
    total: 110,
    cost: 0.5,
    records: 3,
    incomplete: 2,
  };
  assert.deepEqual(stats.tokens, { ...turn, by: { assistant: turn } });
  assert.deepEqual(stats.models, [
    ["p/m", 2],
    ["q/n", 1],
  ]);
  // The last name that is not blank, trimmed.
  assert.equal(stats.name, "Second");
  assert.equal(stats.count, 8);
  assert.equal(stats.roots, 1);
  assert.equal(computeStats([], {}, null).name, undefined);
});

test("formatTokens switches to k at 10,000 and to M at a million", () => {
  assert.equal(formatTokens(950), "950");
  assert.equal(formatTokens(9999.6), "10000");
  assert.equal(formatTokens(12_345), "12.3k");
  assert.equal(formatTokens(1_250_000), "1.25M");
});

const info = (over = {}) => ({
  name: "s.jsonl",
  count: 10,
  bytes: 2048,
  migrated: false,
  header: { type: "session", id: "s1", version: 3, timestamp: T, cwd: "/w" },
  stats: {
    leaves: 3,
    branchPoints: 1,
    roots: 1,
    maxDepth: 7,
    byType: { message: 8, label: 2 },
    byRole: { user: 3, assistant: 5 },
    tokens: {
      total: 12_345,
      input: 10_000,
      output: 2_345,
      cacheRead: 0,
      cacheWrite: 0,
      cost: 0.01234,
      records: 6,
      by: {
        assistant: { total: 12_000, cost: 0.012 },
        usage: { total: 345, cost: 0.00034 },
      },
    },
    models: [
      ["p/m", 4],
      ["q/n", 1],
    ],
  },
  diagnostics: [],
  timings: { read: 2, parse: 3 },
  ...over,
});

test("statusLine: entries, shown when the filter hides some, leaves, branch points, problems, time", () => {
  assert.equal(statusLine(info(), { count: 10 }), "10 entries · 3 leaves · 1 branch points · opened in 5 ms");
  assert.equal(
    statusLine(info({ diagnostics: [{}] }), { count: 7 }),
    "10 entries · 7 shown · 3 leaves · 1 branch points · 1 problem · opened in 5 ms",
  );
  assert.equal(
    statusLine(info({ diagnostics: [{}, {}] }), null),
    "10 entries · 3 leaves · 1 branch points · 2 problems · opened in 5 ms",
  );
});

const USAGE = "Usage (the whole file, as pi's session stats count it)";

test("statsTables: header, tree, counts sorted by size, usage and models", () => {
  const tables = Object.fromEntries(statsTables(info()));
  assert.deepEqual(Object.keys(tables), ["Header", "Tree", "Entries by type", "Messages by role", USAGE, "Models"]);
  assert.deepEqual(tables.Header, [
    ["id", "s1"],
    ["version", "3"],
    ["created", T],
    ["cwd", "/w"],
  ]);
  assert.deepEqual(tables.Tree, [
    ["entries", "10"],
    ["roots", "1"],
    ["leaves", "3"],
    ["branch points", "1"],
    ["depth", "7"],
    ["file size", "2.0 KiB"],
  ]);
  assert.deepEqual(tables["Messages by role"], [
    ["assistant", "5"],
    ["user", "3"],
  ]);
  assert.deepEqual(tables[USAGE].slice(0, 5), [
    ["records with usage", "6"],
    ["  from assistant messages", "12.0k tokens · $0.0120"],
    ["  from usage entries", "345 tokens · $0.0003"],
    ["total tokens", "12.3k"],
    ["input", "10.0k"],
  ]);
  assert.deepEqual(tables[USAGE].at(-1), ["cost", "$0.0123"]);
  assert.deepEqual(tables.Models, [
    ["p/m", "4 turns"],
    ["q/n", "1 turn"],
  ]);
});

test("statsTables: a migrated file without a version, a named session, no header, no models", () => {
  const migrated = info({
    migrated: true,
    header: { type: "session", id: "s1", timestamp: T, cwd: "/w", parentSession: "p.jsonl" },
  });
  migrated.stats = { ...migrated.stats, name: "Work", models: [] };
  const tables = Object.fromEntries(statsTables(migrated));
  assert.deepEqual(tables.Header.slice(1), [
    ["version", "(none: 1) → 3, migrated in memory"],
    ["created", T],
    ["cwd", "/w"],
    ["parent session", "p.jsonl"],
    ["name", "Work"],
  ]);
  assert.equal(tables.Models, undefined);
  assert.deepEqual(Object.fromEntries(statsTables(info({ header: null }))).Header, [["header", "missing"]]);
});

test("a line that is JSON null is a node of its own, described, not a crash", async () => {
  // pi's getTree keeps every parsed line, `null` too (a root of its own): the graph
  // shows it as "not an entry", like a number or a string.
  const { getTree, parseSession } = await import("session-tree");
  const { nodesById, contextNodes } = await import("../../../www/large.js");
  const jsonl = [
    JSON.stringify({ type: "session", version: 3, id: "h", timestamp: T, cwd: "/" }),
    JSON.stringify(user("a", null, "hi")),
    "null",
    JSON.stringify(user("b", "a", "there")),
  ].join("\n");
  const entries = parseSession(new TextEncoder().encode(jsonl));
  const { nodes, parent } = flattenTree(getTree(entries));
  assert.deepEqual(
    nodes.map((e) => e?.id ?? null),
    ["a", "b", null],
  );
  const { summaries, refs, times } = describeNodes(nodes);
  assert.equal(summaries[2], "(not an entry: null)");
  assert.equal(refs[2], null);
  assert.equal(times[2], "");
  assert.deepEqual(
    [...indexById(nodes)],
    [
      ["a", 0],
      ["b", 1],
    ],
  );
  assert.equal(computeStats(entries, { count: nodes.length, ...treeShape(parent) }).count, 3);
  assert.deepEqual(contextNodes(nodes, nodesById(nodes), "b"), [1, 0]);
});
