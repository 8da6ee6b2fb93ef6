// The README's JavaScript examples, run as written against the built package.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const examples = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
const example = (marker) => {
  const found = examples.filter((code) => code.includes(marker));
  assert.equal(found.length, 1, `one README example mentions ${marker}`);
  return found[0];
};

// A scratch consumer with the built package linked in as `session-tree`.
const dir = mkdtempSync(join(tmpdir(), "session-tree-readme-"));
mkdirSync(join(dir, "node_modules"));
symlinkSync(join(root, "pkg"), join(dir, "node_modules", "session-tree"), "dir");

// A small branched v3 session for the examples that read a file.
const t = (s) => `2025-01-01T00:00:0${s}.000Z`;
const lines = [
  { type: "session", version: 3, id: "s", timestamp: t(0), cwd: "/tmp" },
  { type: "message", id: "a", parentId: null, timestamp: t(1), message: { role: "user", content: "hi", timestamp: 1 } },
  {
    type: "message",
    id: "b",
    parentId: "a",
    timestamp: t(2),
    message: { role: "assistant", content: [], provider: "p", model: "m", timestamp: 2 },
  },
  {
    type: "message",
    id: "c",
    parentId: "a",
    timestamp: t(3),
    message: { role: "user", content: "again", timestamp: 3 },
  },
];
writeFileSync(join(dir, "session.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);

const run = (code, session = join(dir, "session.jsonl")) => {
  const file = join(dir, `example-${Math.random().toString(16).slice(2)}.mjs`);
  writeFileSync(file, code);
  return execFileSync(process.execPath, [file, session], { cwd: dir, encoding: "utf8" });
};

test("the README has runnable examples", () => {
  assert.ok(examples.length >= 2, `found ${examples.length} js examples`);
});

test("the Node example reads a session file", () => {
  const out = run(example("process.argv[2]"));
  assert.match(out, /^4 lines parsed/m);
  assert.match(out, /1 root\(s\), 2 leaves/);
  // Leaf: the last entry (c), whose path is a then c; no assistant on it, so no model.
  assert.match(out, /2 messages for undefined\/undefined, thinking off/);
});

test("the entry-array example gives back the caller's objects", () => {
  assert.equal(run(example("entries[1].id")), "true\ntrue\n");
});

test("the streaming migrate example writes a v1 file's migration to a new file", () => {
  const code = example("migrate(source, { write:");
  const v1 = join(dir, "stream-v1.jsonl");
  const old = [
    { type: "session", id: "s", timestamp: t(0), cwd: "/tmp" },
    { type: "message", timestamp: t(1), message: { role: "user", content: "hi", timestamp: 1 } },
    { type: "message", timestamp: t(2), message: { role: "user", content: "again", timestamp: 2 } },
  ];
  writeFileSync(v1, `${old.map((l) => JSON.stringify(l)).join("\n")}\n`);
  assert.equal(run(code, v1), `${v1}.v3: version 3\n`);
  const [header, a, b] = readFileSync(`${v1}.v3`, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(header.version, 3);
  assert.equal(a.parentId, null);
  assert.equal(b.parentId, a.id);
  // A current file: nothing to write.
  assert.equal(run(code), `${join(dir, "session.jsonl")} is current; ${join(dir, "session.jsonl")}.v3 is empty\n`);
});

test("the migrate example upgrades a v1 file on disk once, then leaves it alone", () => {
  const code = example("writeFileSync(path, after)");
  const file = join(dir, "old.jsonl");
  const v1 = [
    { type: "session", id: "old", timestamp: t(0), cwd: "/tmp" },
    { type: "message", timestamp: t(1), message: { role: "user", content: "héllo", timestamp: 1 } },
    {
      type: "message",
      timestamp: t(2),
      message: { role: "assistant", content: [], provider: "p", model: "m", timestamp: 2 },
    },
  ];
  writeFileSync(file, `${v1.map((l) => JSON.stringify(l)).join("\n")}\n`);
  run(code, file);
  const upgraded = readFileSync(file);
  const entries = upgraded
    .toString("utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(entries[0].version, 3);
  assert.equal(entries[1].message.content, "héllo");
  assert.match(entries[1].id, /^[0-9a-f]{8}$/);
  assert.equal(entries[1].parentId, null);
  assert.equal(entries[2].parentId, entries[1].id);
  const written = statSync(file).mtimeMs;
  run(code, file);
  assert.ok(readFileSync(file).equals(upgraded), "a version 3 file is unchanged");
  assert.equal(statSync(file).mtimeMs, written, "and not written again");
});

test("the agent loop writes, branches and reopens its session file", () => {
  const code = example("agent-session.jsonl");
  const file = join(dir, "agent-session.jsonl");
  const first = run(code);
  // user, assistant; then the second answer on a branch from the question.
  assert.equal(
    first,
    'user: "What is in this folder?"\nassistant: [{"type":"text","text":"Let me look first."}]\n3 entries, 2 answers to the question\n',
  );
  const lines = readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => l.type),
    ["session", "message", "message", "message"],
  );
  assert.equal(lines[0].version, 3);
  assert.equal(lines[2].parentId, lines[1].id);
  assert.equal(lines[3].parentId, lines[1].id);
  // A second run opens the file and continues from its last entry.
  const second = run(code);
  assert.match(second, /6 entries, 2 answers to the question\n$/);
  const again = readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(again.length, 7);
  assert.equal(again[4].parentId, lines[3].id, "the new question continues the last branch");
  assert.equal(new Set(again.map((l) => l.id)).size, 7, "ids are unique");
});

test("the session-tree/node agent writes its session, then continues it", () => {
  const code = example("SessionManager.continueRecent(process.cwd()");
  const sessions = join(dir, "agent-sessions");
  const first = run(code, sessions);
  assert.match(first, /^I have 1 messages of context\.\nI have 3 messages of context\.\n4 entries in /);
  const [file] = readdirSync(sessions);
  assert.match(file, /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
  const second = run(code, sessions);
  assert.match(second, /^I have 5 messages of context\.\nI have 7 messages of context\.\n8 entries in /);
  assert.deepEqual(readdirSync(sessions), [file], "one session, continued; its lock given back");
  const lines = readFileSync(join(sessions, file), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 9);
  assert.equal(lines[0].cwd, dir);
  for (let i = 2; i < lines.length; i++) assert.equal(lines[i].parentId, lines[i - 1].id);
});

test("the fileSource example reads a file by piece", () => {
  // Three messages; the last child of the root is c, whose path is a then c.
  assert.equal(run(example("fileSource(process.argv")), "3 c 2\n");
});

test("the preview example keeps a few fields of each entry, long texts cut", () => {
  assert.equal(run(example("preview.message.content.length")), "625\n[ 89, 1221 ]\n1100\n");
});

test("the previewEntries example reads the long field of the entries asked for", () => {
  // "Long text. " is 11 characters, 9 of them not white space: 512 such characters end
  // after 56 repeats (616 characters) and "Long tex" (9 more).
  assert.equal(
    run(example("previewEntries(source, roots[0].range")),
    "{ type: 'message', message: { role: 'user' } }\n625\n",
  );
});

test("the detail example previews the picked entries in the same pass", () => {
  // A cap of 20: two repeats (18 characters not white space) and "Lo"; the label is not
  // a user message, so it has no detail.
  assert.equal(run(example("detail: { preview:")), '{"message":{"content":"Long text. Long text. Lo"}}\nundefined\n');
});

test("the getTree example walks the shape, then reads entries", () => {
  assert.equal(run(example("the shape is there without parsing")), "2\n[ 'one way', 'another' ]\ntrue\n");
});

test("the pi 1.6 example edits the context and carries the prompt across a compaction", () => {
  // As pi 1.6 gives it: a string replacement on an assistant message becomes one text block;
  // a compaction that keeps nothing leaves its checkpoint (the prompt and tools) and summary.
  assert.equal(
    run(example("appendContextEdit(answer")),
    "[ { type: 'text', text: 'Short answer.' } ]\n[ 'system', 'compactionSummary' ]\n[ 'read' ]\n",
  );
});

test("the usage example adds up what each branch cost", () => {
  // Three requests: $0.25 and the $0.5 cache warming on the first answer's side, $2 on the
  // second: $2.75 for 3 × 120 tokens; the leaf is the second answer.
  assert.equal(
    run(example("session.usage()")),
    "paid $2.75 for 360 tokens in 3 requests\nthis branch $2, abandoned $0.75\n$0.75 vs $2\n",
  );
});

test("the IndexedDB example keeps a session across page loads", async () => {
  const { startStaticServer } = await import("../../tools/static-server.mjs");
  const { launchChromium } = await import("../browser/chromium.mjs");
  const page = join(dir, "idb");
  mkdirSync(page);
  writeFileSync(
    join(page, "index.html"),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="importmap">{"imports":{"session-tree":"/pkg/browser.js"}}</script>` +
      `<script type="module">${example("indexedDB")}\nwindow.__done = true;</script>`,
  );
  const server = await startStaticServer({ root: page, mounts: { "/pkg": join(root, "pkg") } });
  // (the server is closed whatever happens: an open one would keep the test process alive)
  let browser;
  try {
    browser = await launchChromium();
    const tab = await browser.newPage();
    const logs = [];
    const errors = [];
    tab.on("console", (m) => (m.type() === "error" ? errors : logs).push(m.text()));
    tab.on("pageerror", (e) => errors.push(e.message));
    for (let load = 0; load < 2; load++) {
      await (load === 0 ? tab.goto(server.url) : tab.reload());
      await tab.waitForFunction(() => window.__done === true, null, { timeout: 20_000 });
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(logs, ["2 entries stored, 2 messages in context", "4 entries stored, 4 messages in context"]);
    const stored = await tab.evaluate(
      () =>
        new Promise((resolve) => {
          const r = indexedDB.open("sessions", 1);
          r.onsuccess = () => {
            const g = r.result.transaction("files").objectStore("files").get("demo");
            g.onsuccess = () => resolve(g.result);
          };
        }),
    );
    const lines = stored
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => l.type),
      ["session", "message", "message", "message", "message"],
    );
    assert.equal(lines[3].parentId, lines[2].id);
  } finally {
    await browser?.close();
    await server.close();
  }
});
