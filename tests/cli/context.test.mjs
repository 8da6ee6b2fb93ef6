// `session-tree context`: the transcript (worked out by hand from the
// fixture), --json equal to buildSessionContext of the API, --system.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { buildSessionContext, currentSystemMessage } from "session-tree";
import { CLEAN, folder } from "./fixtures.mjs";
import { run } from "./run.mjs";

const SYSTEM = [
  { type: "session", version: 3, id: "sys", timestamp: "2025-03-01T10:00:00.000Z", cwd: "/" },
  {
    type: "message",
    id: "s1",
    parentId: null,
    timestamp: "2025-03-01T10:00:01.000Z",
    message: {
      role: "system",
      content: "You are terse.",
      toolsAdded: [{ name: "read", description: "Read a file", parameters: {} }],
      timestamp: 1,
    },
  },
  {
    type: "message",
    id: "u1",
    parentId: "s1",
    timestamp: "2025-03-01T10:00:02.000Z",
    message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 2 },
  },
]
  .map((e) => `${JSON.stringify(e)}\n`)
  .join("");

const f = folder({ "clean.jsonl": CLEAN, "system.jsonl": SYSTEM });
after(f.cleanup);

test("context: the transcript at the last entry, worked out by hand", async () => {
  const r = await run(["context", f.path("clean.jsonl")]);
  assert.equal(r.code, 0);
  // leaf a3: the path u1 → u3 → a3; the model from a3
  assert.equal(
    r.stdout,
    [
      "model: anthropic/claude-sonnet-4-5 · thinking: off · 3 messages",
      "",
      "── user ──",
      "Fix the build",
      "",
      "── user ──",
      "Actually, explain the error",
      "",
      "── assistant ──",
      "It means",
      "a semicolon is missing.",
      "",
    ].join("\n"),
  );
  const text = await run(["context", "--text", f.path("clean.jsonl")]);
  assert.equal(text.stdout, r.stdout);
});

test("context --leaf: roles, the tool call and its result", async () => {
  const r = await run(["context", f.path("clean.jsonl"), "--leaf", "a2"]);
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    [
      "model: anthropic/claude-sonnet-4-5 · thinking: off · 4 messages",
      "",
      "── user ──",
      "Fix the build",
      "",
      "── assistant ──",
      '[tool call] bash({"command":"make build"})',
      "",
      "── tool result: bash ──",
      "error: missing semicolon",
      "",
      "── assistant ──",
      "A semicolon is missing.",
      "",
    ].join("\n"),
  );
});

test("context --json equals buildSessionContext of the API, at the default and at other leaves", async () => {
  for (const leaf of [undefined, "a2", "u1", "n1"]) {
    const argv = ["context", "--json", f.path("clean.jsonl")];
    if (leaf) argv.push("--leaf", leaf);
    const r = await run(argv);
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.stdout), JSON.parse(JSON.stringify(buildSessionContext(CLEAN, leaf))));
  }
});

test("context --system: the replayed system prompt and tools", async () => {
  const r = await run(["context", "--system", f.path("system.jsonl")]);
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    [
      "model: none · thinking: off · 2 messages",
      "",
      "── system prompt ──",
      "You are terse.",
      "tools added: read",
      "",
      "── system ──",
      "You are terse.",
      "tools added: read",
      "",
      "── user ──",
      "hi",
      "",
    ].join("\n"),
  );
  const json = await run(["context", "--json", "--system", f.path("system.jsonl")]);
  const parsed = JSON.parse(json.stdout);
  assert.deepEqual(parsed.system, JSON.parse(JSON.stringify(currentSystemMessage(SYSTEM))));
  assert.equal(parsed.system.content, "You are terse.");
  assert.deepEqual(parsed.messages, JSON.parse(JSON.stringify(buildSessionContext(SYSTEM).messages)));
  const none = await run(["context", "--json", "--system", f.path("clean.jsonl")]);
  assert.equal(JSON.parse(none.stdout).system, null);
});

test("context: bad usage, an unknown leaf and unreadable input exit 2 with one line", async () => {
  for (const argv of [
    ["context"],
    ["context", f.path("clean.jsonl"), "--text", "--json"],
    ["context", f.path("clean.jsonl"), "--leaf", "nope"],
    ["context", f.path("clean.jsonl"), f.path("system.jsonl")],
    ["context", f.path("missing.jsonl")],
  ]) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
  }
});

test("context: stdin; control characters printed as spaces; colour only on a TTY", async () => {
  const text = CLEAN.replace("Fix the build", "Fix\\u001b[31m the build");
  const r = await run(["context", "-", "--leaf", "u1"], { stdin: text });
  assert.match(r.stdout, /^Fix \[31m the build$/m);
  const tty = await run(["context", f.path("clean.jsonl")], { isTTY: true });
  assert.ok(tty.stdout.includes("\x1b["));
  const noColor = await run(["context", f.path("clean.jsonl")], { isTTY: true, env: { NO_COLOR: "1" } });
  assert.ok(!noColor.stdout.includes("\x1b["));
});
