// www/composition.js on what StrykerJS's mutants showed untested (docs/mutation-log.md,
// "JavaScript"): malformed messages and blocks (counted as empty where pi 1.6.0's
// `estimateTokens` throws; equal to pi's where it answers), the order of rows of equal size,
// tool calls and results apart, the provider's input of the last assistant message only,
// leaf costs of branches that are all usage entries, and the summaries' line.
import assert from "node:assert/strict";
import { test } from "node:test";
import { composition, estimateTokens, leafCosts, messageSize, summaryCostLine } from "../../../www/composition.js";

const pi = await import("../../node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js");
const ours = (m) => {
  const { chars, images } = messageSize(m);
  return estimateTokens(chars, images);
};

test("messageSize equals pi's estimate on odd but valid shapes", () => {
  for (const m of [
    { role: "system", content: "abcd", toolsAdded: null },
    { role: "system", content: "abcd", sections: { a: "xyz", b: null } },
    {
      role: "user",
      content: [
        { type: "text", text: "abcdefgh" },
        { type: "image", data: "", mimeType: "image/png" },
      ],
    },
    { role: "user", content: [{ type: "text", text: "abcd" }, { type: "audio" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "hi" },
        { type: "image", data: "" },
      ],
    },
    { role: "assistant", content: [{ type: "toolCall", id: "c", name: "read", arguments: { path: "a" } }] },
  ]) {
    assert.equal(ours(m), pi.estimateTokens(m), JSON.stringify(m));
  }
});

test("messageSize counts malformed parts as empty instead of throwing", () => {
  const empty = { chars: 0, images: 0, tools: [] };
  assert.deepEqual(messageSize(null), empty);
  assert.deepEqual(messageSize({ role: "user", content: null }), empty);
  assert.deepEqual(messageSize({ role: "user", content: [null, "x", { type: "text", text: "ab" }] }), {
    ...empty,
    chars: 2,
  });
  assert.deepEqual(messageSize({ role: "assistant", content: null }), empty);
  assert.deepEqual(messageSize({ role: "assistant", content: [null, 3, { type: "weird" }] }), empty);
  // A call without arguments is its name alone; arguments JSON cannot write are nothing.
  assert.deepEqual(messageSize({ role: "assistant", content: [{ type: "toolCall", name: "ls" }] }), {
    ...empty,
    chars: 2,
    tools: [["ls", 2]],
  });
  const cycle = {};
  cycle.self = cycle;
  assert.equal(
    messageSize({ role: "assistant", content: [{ type: "toolCall", name: "ls", arguments: cycle }] }).chars,
    2,
  );
  // A call or a result without a tool name still has a named row.
  const [[callName]] = messageSize({ role: "assistant", content: [{ type: "toolCall", arguments: {} }] }).tools;
  const [[resultName]] = messageSize({ role: "toolResult", content: "x" }).tools;
  assert.ok(callName.length > 0 && resultName.length > 0);
  assert.ok(composition([null]).byRole[0].name.length > 0);
});

const user = (n) => ({ role: "user", content: "x".repeat(n) });
const custom = (n) => ({ role: "custom", customType: "note", content: "x".repeat(n), display: true });
const summary = (n) => ({ role: "branchSummary", summary: "x".repeat(n), fromId: "a" });

test("rows of equal tokens come by characters, then by name", () => {
  // 5 and 8 characters are both 2 estimated tokens; user and custom tie on both.
  for (const messages of [
    [user(5), custom(5), summary(8)],
    [summary(8), custom(5), user(5)],
  ]) {
    assert.deepEqual(
      composition(messages).byRole.map((r) => [r.name, r.tokens]),
      [
        ["branchSummary", 2],
        ["custom", 2],
        ["user", 2],
      ],
    );
  }
});

test("a tool's row counts its calls and its results apart, images and all, largest tool first", () => {
  const call = (name, args) => ({
    role: "assistant",
    content: [{ type: "toolCall", id: name, name, arguments: args }],
  });
  const result = (name, content) => ({ role: "toolResult", toolCallId: name, toolName: name, content });
  const c = composition([
    call("ls", {}),
    result("ls", "a"),
    call("read", { path: "a" }),
    result("read", [{ type: "image", data: "", mimeType: "image/png" }]),
  ]);
  const read = c.byTool.find((t) => t.name === "read");
  const ls = c.byTool.find((t) => t.name === "ls");
  assert.deepEqual([read.calls, read.results, read.images], [1, 1, 1]);
  assert.deepEqual([ls.calls, ls.results, ls.images], [1, 1, 0]);
  assert.equal(read.tokens, estimateTokens(read.chars, 1));
  assert.deepEqual(
    c.byTool.map((t) => t.name),
    ["read", "ls"],
  );
});

test("lastInput is the last assistant message's input + cache read + cache write; bad numbers count 0", () => {
  const usage = (input, cacheRead, cacheWrite) => ({ input, output: 1, cacheRead, cacheWrite, totalTokens: 0 });
  const c = composition([
    { role: "assistant", content: [], usage: usage(10, 20, 5) },
    { role: "toolResult", toolName: "t", content: "x", usage: usage(1000, 0, 0) },
    { role: "user", content: "x", usage: usage(2000, 0, 0) },
  ]);
  assert.deepEqual(c.lastInput, { index: 0, input: 10, cacheRead: 20, cacheWrite: 5, total: 35 });
  const bad = composition([{ role: "assistant", content: [], usage: usage(Number.NaN, Infinity, "3") }]);
  assert.deepEqual(bad.lastInput, { index: 0, input: 0, cacheRead: 0, cacheWrite: 0, total: 0 });
});

test("leafCosts: a branch that is usage entries up to its root has no row; unknown leaves are skipped", () => {
  const cost = (own, path) => ({ entryId: "", own: { cost: own }, path: { cost: path } });
  // Two roots: u0, a usage entry alone; m1 with the usage entry u2 under it.
  const ids = ["u0", "m1", "u2"];
  const report = {
    leaves: [
      { ...cost(1, 1), entryId: "u0" },
      { ...cost(2, 2), entryId: "u2" },
      { ...cost(4, 4), entryId: "gone" },
    ],
  };
  assert.deepEqual(leafCosts(ids, report, ["usage", "message", "usage"], Int32Array.from([-1, -1, 1])), [
    null,
    { own: 2, path: 2 },
    null,
  ]);
});

test("summaryCostLine names one compaction and one branch summary in the singular, and none at all", () => {
  const by = (c, b) => ({
    compaction: { records: c, cost: 0.01 * c },
    branchSummary: { records: b, cost: 0.02 * b },
  });
  const line = summaryCostLine({ cost: 1, by: by(1, 1) });
  assert.match(line, /\b1 compaction \$0\.0100\b/);
  assert.match(line, /\b1 branch summary \$0\.0200\b/);
  assert.equal(summaryCostLine({ cost: 1, by: by(0, 0) }), null);
});

test("summaryCostLine names several in the plural", () => {
  const line = summaryCostLine({
    cost: 1,
    by: { compaction: { records: 2, cost: 0.02 }, branchSummary: { records: 3, cost: 0.06 } },
  });
  assert.match(line, /\b2 compactions \$0\.0200\b/);
  assert.match(line, /\b3 branch summaries \$0\.0600\b/);
});

test("leafCosts: a leaf that is the first node has its cost there", () => {
  const ids = ["r0", "r1", "c"];
  const report = {
    leaves: [
      { entryId: "r0", own: { cost: 1 }, path: { cost: 1 } },
      { entryId: "c", own: { cost: 2 }, path: { cost: 3 } },
    ],
  };
  assert.deepEqual(leafCosts(ids, report, ["message", "message", "message"], Int32Array.from([-1, -1, 1])), [
    { own: 1, path: 1 },
    null,
    { own: 2, path: 3 },
  ]);
});
