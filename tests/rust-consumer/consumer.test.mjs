// The Rust consumer (src/main.rs: the crate used by path, documented API only)
// run over a folder pi's own SessionManager wrote, and compared with pi and
// with the JS package on the same files.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { sessionUsage } from "session-tree";
import { piSessionStats, SessionManager } from "../shared/pi.mjs";
import { envSeed } from "../shared/rng.mjs";
import { generateUsageFolder } from "../shared/usage-folder.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const targetDir = join(here, "../../target/rust-consumer");
const bin = join(targetDir, "debug/rust-consumer");
const seed = envSeed("CONSUMER_SEED");
const replay = `(CONSUMER_SEED=${seed})`;
const root = mkdtempSync(join(tmpdir(), "rust-consumer-"));
after(() => rmSync(root, { recursive: true, force: true }));
const { files } = generateUsageFolder(root, seed, { sessions: 8 });
const paths = [...new Set(files.map((f) => f.path))].sort();

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
});
