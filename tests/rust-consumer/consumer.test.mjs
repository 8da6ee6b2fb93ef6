// The Rust consumer (src/main.rs: the crate used by path, documented API only)
// run over a folder pi's own SessionManager wrote, and compared with pi and
// with the JS package on the same files.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { sessionUsage } from "session-tree";
import { piSessionStats, SessionManager } from "../shared/pi.mjs";
import { envSeed, Rng } from "../shared/rng.mjs";
import { generateUsageFolder, randomUsage } from "../shared/usage-folder.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const targetDir = join(here, "../../target/rust-consumer");
const bin = join(targetDir, "debug/rust-consumer");
const seed = envSeed("CONSUMER_SEED");
const replay = `(CONSUMER_SEED=${seed})`;
const root = mkdtempSync(join(tmpdir(), "rust-consumer-"));
after(() => rmSync(root, { recursive: true, force: true }));
const { files } = generateUsageFolder(root, seed, { sessions: 8 });
const paths = [...new Set(files.map((f) => f.path))].sort();

/**
 * A session of every entry type pi 1.6 writes, through its own SessionManager:
 * every message role and block type, labels, names, model and thinking
 * changes, custom entries and messages, usage entries, context edits (a
 * replacement and a removal), a compaction with details and a branch summary;
 * strings with non-ASCII text and fields the types do not name.
 */
function everyKindSession(dir, seed) {
  const rng = new Rng(seed);
  const word = () => rng.pick(["é", "日本", "🙂", 'a"b', "tab\t", "x"]) + rng.hex(3);
  const sm = SessionManager.create("/work/kinds", dir);
  const now = () => Date.now();
  const user = sm.appendMessage({
    role: "user",
    content: [
      { type: "text", text: `look ${word()}` },
      { type: "image", data: "aGk=", mimeType: "image/png" },
    ],
    timestamp: now(),
    extraField: { nested: [1, 2.5, null] },
  });
  const [provider, model] = rng.pick([
    ["anthropic", "claude-sonnet-4-5"],
    ["openai", "gpt-5"],
  ]);
  const call = { type: "toolCall", id: `call_${rng.hex(6)}`, name: "bash", arguments: { command: `ls ${word()}` } };
  const assistant = sm.appendMessage({
    role: "assistant",
    content: [
      { type: "thinking", thinking: word(), thinkingSignature: rng.hex(8) },
      { type: "text", text: word() },
      call,
    ],
    api: "messages",
    provider,
    model,
    usage: { ...randomUsage(rng), reasoning: rng.int(0, 50) },
    stopReason: "toolUse",
    timestamp: now(),
    durationMs: rng.int(10, 5000),
  });
  const result = sm.appendMessage({
    role: "toolResult",
    toolCallId: call.id,
    toolName: "bash",
    content: [{ type: "text", text: word() }],
    details: rng.chance(0.5) ? { exit: 0, lines: [word()] } : null,
    isError: rng.chance(0.3),
    timestamp: now(),
  });
  sm.appendMessage({
    role: "bashExecution",
    command: "make",
    output: word(),
    exitCode: rng.pick([0, 2, null]),
    cancelled: false,
    truncated: rng.chance(0.5),
    timestamp: now(),
  });
  sm.appendThinkingLevelChange(rng.pick(["low", "high", "max"]));
  sm.appendModelChange(provider, `${model}-${rng.hex(2)}`);
  sm.appendLabelChange(user, rng.chance(0.7) ? `label ${word()}` : undefined);
  sm.appendSessionInfo(`  name ${word()}  `);
  sm.appendCustomEntry("ext", rng.chance(0.8) ? { x: [1, { y: word() }], n: rng.int(0, 1e9) / 7 } : null);
  const custom = sm.appendCustomMessageEntry(
    "ext",
    rng.chance(0.5) ? word() : [{ type: "text", text: word() }],
    rng.chance(0.5),
    rng.chance(0.5) ? { d: 1 } : undefined,
  );
  sm.appendUsage("cache_warm", provider, model, randomUsage(rng), rng.chance(0.5) ? `note ${word()}` : undefined);
  sm.appendContextEdit(assistant, { content: [{ type: "text", text: `edited ${word()}` }] });
  sm.appendContextEdit(rng.pick([result, custom]), null);
  sm.appendMessage({ role: "user", content: word(), timestamp: now() });
  sm.appendCompaction(`summary ${word()}`, user, rng.int(1000, 90000), { files: [word()] }, false, randomUsage(rng));
  sm.appendMessage({ role: "user", content: word(), timestamp: now() });
  sm.branchWithSummary(user, `left ${word()}`, { why: word() }, false, randomUsage(rng));
  sm.appendMessage({ role: "user", content: `after ${word()}`, timestamp: now() });
  return sm.getSessionFile();
}
// Outside the folder the folder tests read.
const kindsDir = mkdtempSync(join(tmpdir(), "rust-consumer-kinds-"));
after(() => rmSync(kindsDir, { recursive: true, force: true }));
const kinds = everyKindSession(kindsDir, seed);
const allFiles = [...paths, kinds];

/** `o`'s value with every `null`-valued key left out, recursively. */
const withoutNullKeys = (v) =>
  Array.isArray(v)
    ? v.map(withoutNullKeys)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, x]) => x !== null)
            .map(([k, x]) => [k, withoutNullKeys(x)]),
        )
      : v;

before(() => {
  execFileSync(process.env.CARGO ?? "cargo", ["build", "--quiet", "--target-dir", targetDir], {
    cwd: here,
    stdio: "inherit",
  });
});

const run = (...args) =>
  execFileSync(bin, args, { encoding: "utf8", maxBuffer: 1 << 28 })
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** Text of a message as a viewer shows it: a string content, or its text blocks joined. */
const textOf = (m) =>
  typeof m.content === "string"
    ? m.content
    : Array.isArray(m.content)
      ? m.content
          .filter((b) => b?.type === "text")
          .map((b) => b.text)
          .join("\n")
      : "";
const blockKinds = (m) =>
  typeof m.content === "string"
    ? ["text"]
    : (m.content ?? []).map((b) =>
        b?.type === "text" || b?.type === "thinking" || b?.type === "image"
          ? b.type
          : b?.type === "toolCall"
            ? `toolCall:${b.name}`
            : "other",
      );
const close = (a, b, what) =>
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b} ${replay}`);

test("usage tracker: each file's totals are pi's getSessionStats; days and models as the JS package counts them", () => {
  const out = run("usage", root);
  const perFile = out.filter((r) => r.file);
  assert.deepEqual(
    perFile.map((r) => r.file),
    paths,
    replay,
  );
  for (const r of perFile) {
    const pi = piSessionStats(SessionManager.open(r.file));
    assert.deepEqual(
      { input: r.input, output: r.output, cacheRead: r.cacheRead, cacheWrite: r.cacheWrite, cost: r.cost },
      {
        input: pi.tokens.input,
        output: pi.tokens.output,
        cacheRead: pi.tokens.cacheRead,
        cacheWrite: pi.tokens.cacheWrite,
        cost: pi.cost,
      },
      `${r.file} ${replay}`,
    );
  }
  const table = new Map();
  for (const p of paths)
    for (const rec of sessionUsage(readFileSync(p)).records) {
      const key = `${rec.timestamp.slice(0, 10)}\t${rec.model ?? ""}`;
      const row = table.get(key) ?? { tokens: 0, cost: 0 };
      row.tokens += rec.input + rec.output + rec.cacheRead + rec.cacheWrite;
      row.cost += rec.cost;
      table.set(key, row);
    }
  const rows = out.filter((r) => r.day !== undefined);
  assert.deepEqual(rows.map((r) => `${r.day}\t${r.model}`).sort(), [...table.keys()].sort(), replay);
  assert.ok(rows.length >= 2, `several days and models ${replay}`);
  for (const r of rows) {
    const js = table.get(`${r.day}\t${r.model}`);
    close(r.tokens, js.tokens, `${r.day} ${r.model} tokens`);
    close(r.cost, js.cost, `${r.day} ${r.model} cost`);
  }
});

test("viewer: the active branch's messages and their typed content are pi's getBranch", () => {
  for (const p of paths) {
    const pi = SessionManager.open(p)
      .getBranch()
      .filter((e) => e.type === "message")
      .map((e) => ({ id: e.id, role: e.message.role, text: textOf(e.message), blocks: blockKinds(e.message) }));
    assert.deepEqual(run("view", p), pi, `${p} ${replay}`);
  }
});

test("monitor: a file read in chunks cut mid-line gives the model and the tokens since the last compaction", () => {
  for (const p of paths) {
    const branch = SessionManager.open(p).getBranch();
    const entries = SessionManager.open(p).getEntries().length + 1; // and the header
    const assistants = branch.filter((e) => e.type === "message" && e.message.role === "assistant");
    const model = assistants.at(-1)?.message.model ?? "";
    const last = branch.findLastIndex((e) => e.type === "compaction");
    let tokens = 0;
    for (const e of branch.slice(last + 1))
      if (e.type === "message" && e.message.role === "assistant" && e.message.usage) {
        const u = e.message.usage;
        tokens += u.input + u.output + u.cacheRead + u.cacheWrite;
      }
    for (const chunk of [7, 1000, 1 << 30])
      assert.deepEqual(
        run("monitor", p, String(chunk)),
        [{ entries, model, tokensSinceCompaction: tokens }],
        `${p} chunk ${chunk} ${replay}`,
      );
  }
});

test("search exporter: every message of every branch with its leaf, as pi's tree and getBranch give them", () => {
  const expected = [];
  for (const p of paths) {
    const sm = SessionManager.open(p);
    const stack = [...sm.getTree()].reverse();
    while (stack.length) {
      const node = stack.pop();
      if (node.children.length === 0)
        for (const e of sm.getBranch(node.entry.id))
          if (e.type === "message") expected.push({ file: p, leaf: node.entry.id, id: e.id, role: e.message.role });
      stack.push(...[...node.children].reverse());
    }
  }
  const got = run("search", root);
  assert.ok(got.length > paths.length, replay);
  assert.deepEqual(got, expected, replay);
});

test("context: the entries and the message count at the leaf are pi's buildContextEntries and buildSessionContext", () => {
  for (const p of paths) {
    const sm = SessionManager.open(p);
    const expected = {
      entries: sm.buildContextEntries().map((e) => e.id),
      messages: sm.buildSessionContext().messages.length,
    };
    assert.deepEqual(run("context", p), [expected], `${p} ${replay}`);
  }
});

test("folder listing: every file, each linked to the file pi's header names as its parentSession", () => {
  const expected = paths.map((p) => {
    const parent = SessionManager.open(p).getHeader().parentSession;
    return { file: p, parent: parent && paths.includes(parent) ? parent : null };
  });
  assert.ok(
    expected.some((r) => r.parent),
    `forks in the folder ${replay}`,
  );
  assert.deepEqual(run("lineage", root), expected, replay);
});

test("every program in examples/ runs on the generated folder", () => {
  const crate = join(here, "../..");
  execFileSync(process.env.CARGO ?? "cargo", ["build", "--quiet", "--examples"], { cwd: crate, stdio: "inherit" });
  const example = (name, ...args) =>
    execFileSync(join(crate, "target/debug/examples", name), args, { encoding: "utf8", maxBuffer: 1 << 28 });
  const file = paths[0];
  const [first] = SessionManager.open(file)
    .getBranch()
    .filter((e) => e.type === "message" && e.message.role === "user");
  assert.match(example("branch", file), new RegExp(`^user: ${textOf(first.message)}$`, "m"), replay);
  const context = example("context", file);
  assert.match(context, /^thinking level: /m, replay);
  const json = JSON.parse(example("context", file, "--json"));
  assert.ok(json.messages.length > 0, replay);
  assert.equal(context.trim().split("\n").length, json.messages.length + 1, replay);
  const usage = example("usage", root).trim().split("\n");
  assert.ok(
    usage.length >= 2 && usage.every((l) => /^\d{4}-\d\d-\d\d {2}\S+ +\d+ tokens {2}\$\d+\.\d{4}$/.test(l)),
    usage.join("\n"),
  );
  const list = example("list", root).trim().split("\n");
  assert.ok(list.length >= 1 && list.every((l) => / messages {2}\/work/.test(l)), list.join("\n"));
  const tail = example("tail", file, "--once").trim().split("\n");
  assert.equal(tail[0], `session ${SessionManager.open(file).getHeader().id}`, replay);
  assert.match(tail.at(-1), /^tokens since the last compaction: \d+$/, replay);
  // A version 1 file (no ids) is followed migrated, as pi opens it: each entry with an id.
  const dir = mkdtempSync(join(tmpdir(), "session-tree-tail-"));
  const v1 = join(dir, "v1.jsonl");
  writeFileSync(
    v1,
    [
      '{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}',
      '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
      '{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"timestamp":2}}',
      "",
    ].join("\n"),
  );
  const followed = example("tail", v1, "--once").trim().split("\n");
  rmSync(dir, { recursive: true, force: true });
  assert.equal(followed[0], "session s1");
  assert.deepEqual(
    followed.slice(1, -1).map((l) => /^message [0-9a-f]{8}$/.test(l)),
    [true, true],
    followed.join("\n"),
  );
});

test("typed views: each entry kind's fields are those of pi's own entries", () => {
  const text = (c) =>
    typeof c === "string"
      ? c
      : c
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join("\n");
  for (const p of allFiles) {
    const sm = SessionManager.open(p);
    const expected = [sm.getHeader(), ...sm.getEntries()].map((e) => {
      const f = (() => {
        switch (e.type) {
          case "session":
            return { version: e.version ?? null, cwd: e.cwd, parentSession: e.parentSession ?? null };
          case "message":
            return { role: e.message.role, blocks: blockKinds(e.message) };
          case "compaction":
            return {
              summary: e.summary,
              firstKeptEntryId: e.firstKeptEntryId,
              tokensBefore: e.tokensBefore,
              output: e.usage?.output ?? null,
              fromHook: e.fromHook ?? false,
              system: e.systemMessage !== undefined,
            };
          case "branch_summary":
            return { fromId: e.fromId, summary: e.summary, output: e.usage?.output ?? null };
          case "label":
            return { targetId: e.targetId, label: e.label ?? null };
          case "session_info":
            return { name: e.name ?? null };
          case "model_change":
            return { provider: e.provider, modelId: e.modelId };
          case "thinking_level_change":
            return { thinkingLevel: e.thinkingLevel };
          case "custom":
            return { customType: e.customType, data: e.data ?? null };
          case "custom_message":
            return { customType: e.customType, text: text(e.content), display: e.display, details: e.details ?? null };
          case "usage":
            return {
              kind: e.kind,
              provider: e.provider,
              model: e.model,
              input: e.usage.input,
              cost: e.usage.cost.total,
              note: e.note ?? null,
            };
          case "context_edit":
            return { targetId: e.targetId, replacement: e.replacement === null ? null : text(e.replacement.content) };
          default:
            return null;
        }
      })();
      return { type: e.type, id: e.id, fields: f };
    });
    const got = run("typed", p);
    assert.deepEqual(got, expected, `${p} ${replay}`);
    if (p === kinds) {
      const types = new Set(got.map((e) => e.type));
      for (const t of ["session", "message", "compaction", "branch_summary", "label", "session_info", "model_change"])
        assert.ok(types.has(t), `${t} ${replay}`);
      for (const t of ["thinking_level_change", "custom", "custom_message", "usage", "context_edit"])
        assert.ok(types.has(t), `${t} ${replay}`);
    }
  }
});

test("projection: the JSON text and the typed entries are pi's buildSessionProjection", () => {
  for (const p of allFiles) {
    const pi = SessionManager.open(p).buildSessionProjection();
    const [got] = run("projection", p);
    // A key pi leaves undefined is written null (the documented difference).
    assert.deepEqual(withoutNullKeys(got.json), withoutNullKeys(JSON.parse(JSON.stringify(pi))), `${p} ${replay}`);
    assert.deepEqual(
      got.entries,
      pi.entries.map((e) => ({ id: e.sourceEntry.id, roles: e.messages.map((m) => m.role) })),
      `${p} ${replay}`,
    );
    assert.equal(got.messages, pi.messages.length, `${p} ${replay}`);
    assert.equal(got.thinkingLevel, pi.thinkingLevel, `${p} ${replay}`);
  }
});

test("serde types: every line pi wrote reads into a typed FileEntry and writes back the same JSON", () => {
  for (const p of allFiles) {
    const lines = readFileSync(p, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    const got = run("roundtrip", p);
    assert.equal(got.length, lines.length, `${p} ${replay}`);
    got.forEach((g, i) => {
      assert.ok(g.known, `line ${i + 1} of ${p} read as an unknown entry ${replay}`);
      assert.deepEqual(g.json, lines[i], `line ${i + 1} of ${p} ${replay}`);
    });
  }
});
