// The README's JavaScript examples, run as written against the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const examples = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

// A scratch consumer with the built package linked in as `session-tree`.
const dir = mkdtempSync(join(tmpdir(), "session-tree-readme-"));
mkdirSync(join(dir, "node_modules"));
symlinkSync(join(root, "pkg"), join(dir, "node_modules", "session-tree"), "dir");

// A small branched v3 session for the examples that read a file.
const t = (s) => `2025-01-01T00:00:0${s}.000Z`;
const lines = [
  { type: "session", version: 3, id: "s", timestamp: t(0), cwd: "/tmp" },
  { type: "message", id: "a", parentId: null, timestamp: t(1), message: { role: "user", content: "hi", timestamp: 1 } },
  { type: "message", id: "b", parentId: "a", timestamp: t(2), message: { role: "assistant", content: [], provider: "p", model: "m", timestamp: 2 } },
  { type: "message", id: "c", parentId: "a", timestamp: t(3), message: { role: "user", content: "again", timestamp: 3 } },
];
writeFileSync(join(dir, "session.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

const run = (code) => {
  const file = join(dir, `example-${Math.random().toString(16).slice(2)}.mjs`);
  writeFileSync(file, code);
  return execFileSync(process.execPath, [file, join(dir, "session.jsonl")], { cwd: dir, encoding: "utf8" });
};

test("the README has runnable examples", () => {
  assert.ok(examples.length >= 2, `found ${examples.length} js examples`);
});

test("the Node example reads a session file", () => {
  const out = run(examples[0]);
  assert.match(out, /^4 lines parsed/m);
  assert.match(out, /1 root\(s\), 2 leaves/);
  // Leaf: the last entry (c), whose path is a then c; no assistant on it, so no model.
  assert.match(out, /2 messages for undefined\/undefined, thinking off/);
});

test("the entry-array example gives back the caller's objects", () => {
  assert.equal(run(examples[1]), "true\ntrue\n");
});
