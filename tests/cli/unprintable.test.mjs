// Values a file may hold that have no text: objects whose own `toString` and
// `valueOf` are no functions (`String` throws a TypeError) and arrays nested
// 100,000 deep (`String` and `JSON.stringify` run out of stack). JSON.parse
// reads both, so the library does; the commands that show them as text must
// not fail on them. Each case puts one such value in one field.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { buildSessionContext } from "session-tree";
import { folder } from "./fixtures.mjs";
import { run } from "./run.mjs";

const DEEP = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
const NO_STRING = '{"toString":1,"valueOf":1}';
const T = "2025-01-01T00:00:01.000Z";
const H = `{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}`;

// A session whose field marked `@` gets the value.
const session = (value, field) => {
  const lines = [
    H,
    `{"type":"message","id":"a","parentId":null,"timestamp":"${T}","message":{"role":"user","content":[{"type":"text","text":${field === "text" ? value : '"hi"'}}],"timestamp":1}}`,
    `{"type":"message","id":"b","parentId":"a","timestamp":"${T}","message":{"role":"assistant","content":[{"type":"toolCall","id":"t","name":${field === "name" ? value : '"read"'},"arguments":{"path":${field === "path" ? value : '"/x"'}}},{"type":"toolCall","id":"u","name":"other","arguments":${field === "arguments" ? value : "{}"}}],"provider":"p","model":"m","timestamp":2}}`,
    `{"type":"message","id":"c","parentId":"b","timestamp":"${T}","message":{"role":"toolResult","toolCallId":"t","toolName":"read","content":${field === "content" ? value : "[]"},"timestamp":3}}`,
    `{"type":"model_change","id":"d","parentId":"c","timestamp":"${T}","provider":"p","modelId":${field === "modelId" ? value : '"m2"'}}`,
    `{"type":"thinking_level_change","id":"e","parentId":"d","timestamp":"${T}","thinkingLevel":${field === "thinkingLevel" ? value : '"high"'}}`,
    `{"type":"label","id":"f","parentId":"e","timestamp":"${T}","targetId":"a","label":${field === "label" ? value : '"L"'}}`,
    `{"type":"compaction","id":"g","parentId":"f","timestamp":"${T}","summary":${field === "summary" ? value : '"s"'},"firstKeptEntryId":"b","tokensBefore":${field === "tokensBefore" ? value : "1000"}}`,
  ];
  return `${lines.join("\n")}\n`;
};
const FIELDS = [
  "text",
  "name",
  "path",
  "arguments",
  "content",
  "modelId",
  "thinkingLevel",
  "label",
  "summary",
  "tokensBefore",
];
const files = {};
for (const [kind, value] of [
  ["deep", DEEP],
  ["nostring", NO_STRING],
]) {
  for (const field of FIELDS) files[`${kind}-${field}.jsonl`] = session(value, field);
}
const f = folder(files);
after(() => f.cleanup());

test("tree and context show every file whose values have no text", async () => {
  assert.throws(() => String(JSON.parse(NO_STRING)), TypeError);
  assert.throws(() => String(JSON.parse(DEEP)), RangeError);
  for (const name of Object.keys(files)) {
    for (const argv of [
      ["tree"],
      ["tree", "--filter", "all"],
      ["tree", "--json"],
      ["context"],
      ["context", "--system"],
    ]) {
      const { code, stderr, stdout } = await run([...argv, f.path(name)]);
      assert.equal(code, 0, `${argv.join(" ")} ${name}: ${stderr}`);
      assert.ok(stdout.length > 0, `${argv.join(" ")} ${name}`);
    }
  }
});

test("info shows a header whose id or parent session has no text", async () => {
  const g = folder({
    "id.jsonl": `${H.replace('"id":"s"', `"id":${NO_STRING}`)}\n`,
    "parent.jsonl": `${H.replace('"cwd":"/"', `"cwd":"/","parentSession":${NO_STRING}`)}\n`,
  });
  try {
    for (const name of ["id.jsonl", "parent.jsonl"]) {
      const { code, stderr, stdout } = await run(["info", g.path(name)]);
      assert.equal(code, 0, `${name}: ${stderr}`);
      assert.match(stdout, name === "id.jsonl" ? /^id: +\?$/m : /^forked from: +\?$/m);
    }
  } finally {
    g.cleanup();
  }
});

test("context --json writes a value nested 100,000 deep as JSON.parse reads it", async () => {
  const { code, stdout } = await run(["context", "--json", f.path("deep-content.jsonl")]);
  assert.equal(code, 0);
  const printed = JSON.parse(stdout);
  const expected = buildSessionContext(files["deep-content.jsonl"]);
  // Compared level by level: JSON.stringify and deepEqual recurse.
  let [a, b] = [printed.messages[2].content, expected.messages[2].content];
  let depth = 0;
  while (Array.isArray(a) && Array.isArray(b) && a.length === 1 && b.length === 1)
    [a, b, depth] = [a[0], b[0], depth + 1];
  assert.deepEqual([a, b, depth + 1], [[], [], 100_000]);
  printed.messages[2].content = expected.messages[2].content = null;
  assert.deepEqual(printed, JSON.parse(JSON.stringify(expected)));
});

test("printable() itself gives such a value as ?, so no caller has to remember textOr", async () => {
  const { printable } = await import("../../pkg/cli/io.js");
  assert.equal(printable(JSON.parse(NO_STRING)), "?");
  assert.equal(printable(JSON.parse(DEEP)), "?");
  assert.equal(printable("a\u001bb\nc"), "a b c");
});
