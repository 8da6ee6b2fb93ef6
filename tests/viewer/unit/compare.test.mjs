// Unit tests of www/compare.js. The expected values are worked out by hand
// from the small tree below; each side's cost is counted by the package's
// sessionUsage, as the viewer's worker passes it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sessionUsage } from "session-tree";
import {
  compareBranches,
  compareHash,
  compareLeaves,
  fileOfCall,
  forkIndex,
  parseCompareHash,
} from "../../../www/compare.js";

const usage = (totalTokens, cost, extra = {}) => ({
  input: totalTokens,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens,
  cost: { total: cost },
  ...extra,
});
const usageOf = (entries) => sessionUsage(entries, { records: false }).total;
const user = (id, parentId, text) => ({ type: "message", id, parentId, message: { role: "user", content: text } });
const assistant = (id, parentId, content, u) => ({
  type: "message",
  id,
  parentId,
  message: { role: "assistant", content, usage: u, stopReason: "stop" },
});
const call = (id, name, args) => ({ type: "toolCall", id, name, arguments: args });

// u1 ─ a1 ┬ u2 ─ a2 ─ t2 ─ a3        (side A)
//         └ u3 ─ a4 ─ g1 ─ c1        (side B)
const u1 = user("u1", null, "start");
const a1 = assistant("a1", "u1", [{ type: "text", text: "ok" }], usage(100, 0.01));
const u2 = user("u2", "a1", "fix the bug");
const a2 = assistant(
  "a2",
  "u2",
  [
    call("c-read", "read", { path: "src/a.rs" }),
    call("c-edit", "edit", { path: "src/a.rs", oldText: "x", newText: "y" }),
  ],
  usage(300, 0.25, { input: 200, output: 100 }),
);
const t2 = {
  type: "message",
  id: "t2",
  parentId: "a2",
  message: {
    role: "toolResult",
    toolCallId: "c-read",
    toolName: "read",
    content: [],
    isError: false,
    usage: usage(4, 0.5),
  },
};
const a3 = assistant("a3", "t2", [{ type: "text", text: "done" }], usage(50, 0.125));
const u3 = user("u3", "a1", "try again");
const a4 = assistant(
  "a4",
  "u3",
  [call("c-write", "write", { file_path: "b.txt", content: "hi" }), call("c-bash", "bash", { command: "ls" })],
  usage(20, 0.5),
);
const g1 = {
  type: "usage",
  id: "g1",
  parentId: "a4",
  kind: "cache_warm",
  provider: "p",
  model: "m",
  usage: usage(1000, 2),
};
const c1 = {
  type: "compaction",
  id: "c1",
  parentId: "g1",
  summary: "s",
  firstKeptEntryId: "u3",
  tokensBefore: 5,
  usage: usage(7, 0.25),
};
const pathA = [u1, a1, u2, a2, t2, a3];
const pathB = [u1, a1, u3, a4, g1, c1];

test("the fork point is the last entry both paths share", () => {
  assert.equal(forkIndex(pathA, pathB), 1);
  assert.equal(forkIndex(pathA, pathA), 5);
  assert.equal(forkIndex(pathA, [u1, a1]), 1);
  assert.equal(forkIndex([u1], [{ id: "other-root" }]), -1);
});

test("each side lists its entries after the fork, its tool calls, files, tokens and cost", () => {
  const cmp = compareBranches(pathA, pathB, usageOf);
  assert.deepEqual(cmp.fork, { id: "a1", index: 1, summary: "ok" });
  assert.equal(cmp.a.leafId, "a3");
  assert.equal(cmp.b.leafId, "c1");
  assert.deepEqual(
    cmp.a.rows.map((r) => r.id),
    ["u2", "a2", "t2", "a3"],
  );
  assert.deepEqual(
    cmp.b.rows.map((r) => r.id),
    ["u3", "a4", "g1", "c1"],
  );
  assert.equal(cmp.a.messages, 4);
  assert.equal(cmp.b.messages, 2);
  assert.deepEqual(
    cmp.a.toolCalls.map((c) => [c.entryId, c.name, c.text]),
    [
      ["a2", "read", "read src/a.rs"],
      ["a2", "edit", "edit src/a.rs"],
    ],
  );
  assert.deepEqual(
    cmp.b.toolCalls.map((c) => [c.entryId, c.name, c.text]),
    [
      ["a4", "write", "write b.txt"],
      ["a4", "bash", "bash ls"],
    ],
  );
  assert.deepEqual(cmp.a.files, [{ path: "src/a.rs", tools: ["read", "edit"] }]);
  assert.deepEqual(cmp.b.files, [{ path: "b.txt", tools: ["write"] }]);
  // A: a2 300 + t2 4 + a3 50 tokens; $0.25 + $0.5 + $0.125 (the fork's own a1 is not counted).
  assert.equal(cmp.a.usage.totalTokens, 354);
  assert.equal(cmp.a.usage.cost, 0.875);
  assert.equal(cmp.a.usage.input, 254);
  assert.equal(cmp.a.usage.output, 100);
  assert.equal(cmp.a.usage.records, 3);
  // B: a4 20 + usage entry 1000 + compaction 7; $0.5 + $2 + $0.25.
  assert.equal(cmp.b.usage.totalTokens, 1027);
  assert.equal(cmp.b.usage.cost, 2.75);
  assert.equal(cmp.b.usage.records, 3);
  // Without a counter, no figures.
  assert.equal(compareBranches(pathA, pathB).a.usage, null);
  // The tool result's row names its call, made on the same side.
  assert.equal(cmp.a.rows[2].summary, "read src/a.rs");
  assert.equal(cmp.a.rows[0].role, "user");
});

test("a leaf on the other's path forks at itself; unrelated roots have no fork point", () => {
  const inner = compareBranches([u1, a1], pathA);
  assert.equal(inner.fork.id, "a1");
  assert.deepEqual(inner.a.rows, []);
  assert.deepEqual(
    inner.b.rows.map((r) => r.id),
    ["u2", "a2", "t2", "a3"],
  );
  const same = compareBranches(pathB, pathB);
  assert.equal(same.fork.id, "c1");
  assert.equal(same.a.rows.length + same.b.rows.length, 0);
  const apart = compareBranches(
    [u1, a1],
    [{ type: "message", id: "x", parentId: null, message: { role: "user", content: "x" } }],
  );
  assert.equal(apart.fork, null);
  assert.deepEqual(
    apart.a.rows.map((r) => r.id),
    ["u1", "a1"],
  );
  assert.deepEqual(
    apart.b.rows.map((r) => r.id),
    ["x"],
  );
});

test("files come from path or file_path; a usage field that is not a number counts as 0", () => {
  assert.equal(fileOfCall({ arguments: { path: "a" } }), "a");
  assert.equal(fileOfCall({ arguments: { file_path: "b" } }), "b");
  assert.equal(fileOfCall({ arguments: { command: "ls" } }), null);
  assert.equal(fileOfCall({ arguments: "nonsense" }), null);
  const odd = assistant("a9", "a1", [], { ...usage(5, 1), input: "5" });
  const bare = assistant("a8", "a9", [], undefined);
  const side = compareBranches([u1, a1], [u1, a1, odd, bare], usageOf).b.usage;
  assert.equal(side.input, 0);
  assert.equal(side.cost, 1);
  assert.equal(side.records, 2);
  assert.equal(side.incomplete, 2, "a string for a number, and an assistant message without usage");
});

test("#compare=<a>,<b> round-trips ids, commas and all", () => {
  assert.deepEqual(parseCompareHash("#compare=a1,b2"), ["a1", "b2"]);
  assert.deepEqual(parseCompareHash(compareHash("x,y", "z%")), ["x,y", "z%"]);
  assert.equal(parseCompareHash("#leaf=a1"), null);
  assert.equal(parseCompareHash("#compare=a1,"), null);
  assert.equal(parseCompareHash(""), null);
});

test("compareLeaves walks both branches, and names an id it cannot find", () => {
  const byId = new Map([...pathA, ...pathB].map((e) => [e.id, e]));
  const getBranch = (id) => {
    const path = [];
    for (let e = byId.get(id); e; e = byId.get(e.parentId)) path.unshift(e);
    return path;
  };
  assert.equal(compareLeaves(getBranch, "a3", "c1").fork.id, "a1");
  assert.throws(() => compareLeaves(getBranch, "a3", "nope"), /No entry with id "nope"/);
});
