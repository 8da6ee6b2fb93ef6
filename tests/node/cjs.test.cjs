// CommonJS consumers: require("session-tree") and the session functions through it.
"use strict";
const { test } = require("node:test");
const assert = require("node:assert/strict");
const {
  parseSession,
  migrate,
  getTree,
  buildSessionContext,
  buildContextEntries,
  buildSessionProjection,
  currentSystemMessage,
} = require("session-tree");

const lines = [
  { type: "session", version: 3, id: "cjs", timestamp: "2025-02-02T00:00:00.000Z", cwd: "/c" },
  {
    type: "message",
    id: "a",
    parentId: null,
    timestamp: "2025-02-02T00:00:01.000Z",
    message: { role: "user", content: "one", timestamp: 1 },
  },
  {
    type: "thinking_level_change",
    id: "b",
    parentId: "a",
    timestamp: "2025-02-02T00:00:02.000Z",
    thinkingLevel: "low",
  },
  {
    type: "message",
    id: "c",
    parentId: "a",
    timestamp: "2025-02-02T00:00:03.000Z",
    message: { role: "user", content: "two", timestamp: 2 },
  },
];
const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

test("parseSession via require", () => {
  assert.deepEqual(parseSession(text), lines);
  assert.deepEqual(parseSession(Buffer.from(text)), lines);
});

test("migrate via require", () => {
  assert.equal(migrate(text), text);
  assert.equal(migrate(structuredClone(lines)), false);
});

test("getTree via require", () => {
  const roots = getTree(text);
  assert.equal(roots.length, 1);
  assert.equal(roots[0].entry.id, "a");
  assert.deepEqual(
    roots[0].children.map((n) => n.entry.id),
    ["b", "c"],
  );
});

test("buildSessionContext via require", () => {
  assert.deepEqual(buildSessionContext(text, "b"), {
    messages: [{ role: "user", content: "one", timestamp: 1 }],
    thinkingLevel: "low",
    model: null,
  });
  assert.deepEqual(
    buildSessionContext(text).messages.map((m) => m.content),
    ["one", "two"],
  );
});

test("context entries, projection and system message via require", () => {
  assert.deepEqual(
    buildContextEntries(text, "b").map((e) => e.id),
    ["a", "b"],
  );
  const projection = buildSessionProjection(text, "b");
  assert.deepEqual(
    projection.entries.map((e) => [e.sourceEntry.id, e.messages.length]),
    [
      ["a", 1],
      ["b", 0],
    ],
  );
  assert.equal(projection.thinkingLevel, "low");
  assert.equal(currentSystemMessage(text), undefined);
});

test("a TypeError from CommonJS is a real TypeError", () => {
  assert.throws(() => getTree(42), TypeError);
});
