// www/compare.js on the inputs StrykerJS's mutants showed untested (docs/mutation-log.md,
// "JavaScript"): malformed content blocks, calls before and at the fork, entries without ids
// or roles, custom messages, a file touched twice, empty paths and broken escapes. Expected
// values come from the functions' doc comments and the shapes pi writes, worked out by hand.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareBranches, describeSide, fileOfCall, parseCompareHash, toolCallsOf } from "../../../www/compare.js";
import { formatToolCall } from "../../../www/model.js";

const assistant = (id, parentId, content) => ({
  type: "message",
  id,
  parentId,
  message: { role: "assistant", content },
});
const result = (id, parentId, toolCallId) => ({
  type: "message",
  id,
  parentId,
  message: { role: "toolResult", toolCallId, toolName: "a-tool-name", content: [], isError: false },
});
const call = (id, name, args) => ({ type: "toolCall", id, name, arguments: args });

test("toolCallsOf: only an assistant message's toolCall blocks; anything else gives none", () => {
  assert.deepEqual(toolCallsOf(null), []);
  assert.deepEqual(toolCallsOf({ type: "message" }), []);
  // A user message or a custom message with a toolCall-shaped block calls nothing.
  const block = [call("c1", "read", { path: "a" })];
  assert.deepEqual(toolCallsOf({ type: "message", message: { role: "user", content: block } }), []);
  assert.deepEqual(toolCallsOf({ type: "custom_message", message: { role: "assistant", content: block } }), []);
  // Content as a plain string, and null or string blocks, are skipped, not thrown on.
  assert.deepEqual(toolCallsOf(assistant("a", null, "just text")), []);
  assert.deepEqual(toolCallsOf(assistant("a", null, [null, "text", 7, call("c2", "ls", {})])), [
    { id: "c2", name: "ls", arguments: {} },
  ]);
  // A call without an id or a name has them as empty strings.
  assert.deepEqual(toolCallsOf(assistant("a", null, [{ type: "toolCall", arguments: { x: 1 } }])), [
    { id: "", name: "", arguments: { x: 1 } },
  ]);
});

test("fileOfCall: a path that is a string with something besides blanks", () => {
  assert.equal(fileOfCall({ arguments: { file_path: 5 } }), null);
  assert.equal(fileOfCall({ arguments: { path: 5, file_path: "b.txt" } }), "b.txt");
  assert.equal(fileOfCall({ arguments: { path: "   " } }), null);
  assert.equal(fileOfCall({ arguments: null }), null);
  assert.equal(fileOfCall({ arguments: "src/a.rs" }), null);
});

test("describeSide: messages count custom messages; a file read twice names its tool once", () => {
  const side = describeSide([
    assistant("a1", null, [call("r1", "read", { path: "x.js" }), call("r2", "read", { path: "x.js" })]),
    { type: "custom_message", id: "m1", parentId: "a1", customType: "note", content: "hi", display: true },
    { type: "label", id: "l1", parentId: "m1", targetId: "a1", label: "here" },
    { type: "message", parentId: "l1", message: { content: "no role" } },
  ]);
  assert.equal(side.messages, 3);
  assert.deepEqual(side.files, [{ path: "x.js", tools: ["read"] }]);
  // A message's row has its role, anything else none; an entry without an id has "".
  assert.deepEqual(
    side.rows.map((r) => [r.id, r.role]),
    [
      ["a1", "assistant"],
      ["m1", ""],
      ["l1", ""],
      ["", ""],
    ],
  );
});

test("compareBranches: a tool result after the fork is summarized by its call at or before the fork", () => {
  // root ─ a1 (calls c-at) ┬ t1 (result of c-at) ─ ...   side A
  //                        └ t2 (result of c-at)          side B
  const root = { type: "message", id: "u1", parentId: null, message: { role: "user", content: "go" } };
  const before = assistant("a0", "u1", [call("c-before", "bash", { command: "make" })]);
  const at = assistant("a1", "a0", [call("c-at", "read", { path: "src/lib.rs" })]);
  const pathA = [root, before, at, result("t1", "a1", "c-at"), result("t3", "t1", "c-before")];
  const pathB = [root, before, at, result("t2", "a1", "c-at")];
  const cmp = compareBranches(pathA, pathB, () => null);
  assert.deepEqual(cmp.fork, { id: "a1", index: 2, summary: cmp.fork.summary });
  const read = formatToolCall("read", { path: "src/lib.rs" });
  const make = formatToolCall("bash", { command: "make" });
  assert.notEqual(read, "a-tool-name");
  assert.deepEqual(
    cmp.a.rows.map((r) => r.summary),
    [read, make],
  );
  assert.deepEqual(
    cmp.b.rows.map((r) => r.summary),
    [read],
  );
  // Calls made before the fork are not the side's own calls.
  assert.deepEqual(cmp.a.toolCalls, []);
});

test("compareBranches: paths sharing only their root fork at index 0", () => {
  const root = { type: "message", id: "u1", parentId: null, message: { role: "user", content: "go" } };
  const cmp = compareBranches([root, assistant("a", "u1", [])], [root, assistant("b", "u1", [])], () => null);
  assert.equal(cmp.fork.id, "u1");
  assert.equal(cmp.fork.index, 0);
});

test("compareBranches: an empty path has no leaf id", () => {
  const root = { type: "message", id: "u1", parentId: null, message: { role: "user", content: "go" } };
  const cmp = compareBranches([], [root], () => null);
  assert.equal(cmp.fork, null);
  assert.equal(cmp.a.leafId, "");
  assert.equal(cmp.b.leafId, "u1");
  assert.equal(compareBranches([root], [], () => null).b.leafId, "");
});

test("parseCompareHash: a broken escape is kept as written; only a hash that starts with it", () => {
  assert.deepEqual(parseCompareHash("#compare=%E0%A4%A,b%2"), ["%E0%A4%A", "b%2"]);
  assert.equal(parseCompareHash("x#compare=a,b"), null);
});

test("describeSide: a value that is not an entry, or a message entry without its message, is a row, not a throw", () => {
  const side = describeSide([null, { type: "message", id: "m" }]);
  assert.deepEqual(
    side.rows.map((r) => [r.id, r.role]),
    [
      ["", ""],
      ["m", ""],
    ],
  );
  // Only the message entry counts as a message.
  assert.equal(side.messages, 1);
});
