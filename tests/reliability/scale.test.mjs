// Size and shape: no function may be superlinear. Timings are not asserted (shared machines
// are noisy); instead the inputs are large enough that quadratic work would run far past the
// per-step limit of 60 s (each step: one call of one function, in a worker thread).
import assert from "node:assert/strict";
import { test } from "node:test";
import { runTask } from "../shared/workers.mjs";

const TASKS = new URL("./helpers/tasks.mjs", import.meta.url);
// The tasks build inputs of tens of MB inside the worker: room for them.
const run = (task, data, limits) => runTask(TASKS, task, data, { heapMb: 6144, ...limits });

const LIMIT = { stepLimitMs: 60_000 };
const opts = { timeout: 600_000 };
// RELIABILITY_FULL=1 adds the slower variants (a million v1 entries, the deep session as an
// entry array and as v1 through Session); the default run keeps the suite within minutes.
const full = process.env.RELIABILITY_FULL === "1";

test("a million tiny entries: every function", opts, async () => {
  const { value: r } = await run("millionEntries", { n: 1_000_000 }, LIMIT);
  assert.equal(r.parsed, 1_000_001);
  assert.equal(r.tree.count, 1_000_000);
  assert.equal(r.tree.roots, 1);
  assert.equal(r.tree.repeated, 0);
  assert.ok(r.context.messages >= 1);
  assert.deepEqual(r.diagnostics, {});
  assert.equal(r.migrated.same, true);
});

test("a million tiny v1 entries: migrate gives a million unique, chained ids", {
  ...opts,
  skip: !full && "RELIABILITY_FULL=1",
}, async () => {
  const { value: r } = await run("millionV1", { n: 1_000_000 }, LIMIT);
  assert.deepEqual(r, { lines: 1_000_001, uniqueIds: 1_000_000, chained: 1_000_000, header: 3 });
});

for (const form of ["v3", "v1", "array"]) {
  test(`a linear session 200,000 deep (${form}): every function and Session`, {
    ...opts,
    skip: form === "array" && !full && "RELIABILITY_FULL=1",
  }, async () => {
    const { value: r } = await run("deepSession", { n: 200_000, form, session: form === "v3" || full }, LIMIT);
    assert.equal(r.parsed, 200_001);
    assert.deepEqual(r.tree, { count: 200_000, roots: 1, depth: 200_000, repeated: 0 });
    assert.deepEqual(r.context, { messages: 200_000, thinkingLevel: "off", model: { provider: "p", modelId: "m" } });
    assert.deepEqual(r.diagnostics, {});
    if (form === "v3") assert.equal(r.migrated.same, true);
    if (form === "v1") assert.equal(r.migrated.lines, 200_001);
    if (form === "array") assert.deepEqual(r.migrated, { changed: false });
    if (r.session) assert.deepEqual(r.session, { messages: 200_000, branch: 200_000, treeDepth: 200_000 });
  });
}

test("a 50 MB line (one string): every function, content intact", opts, async () => {
  const { value: r } = await run("longLine", { mb: 50, variant: "string" }, LIMIT);
  assert.equal(r.parsed, 2);
  assert.equal(r.contentLength, 50 * 1024 * 1024);
  assert.equal(r.contextContentLength, 50 * 1024 * 1024);
  assert.equal(r.tree.count, 1);
  assert.deepEqual(r.diagnostics, {});
  assert.equal(r.migrated.lines, 2);
});

test("a 50 MB line cut off inside a string: skipped, reported as truncated", opts, async () => {
  const { value: r } = await run("longLine", { mb: 50, variant: "unterminated" }, LIMIT);
  assert.equal(r.parsed, 1);
  assert.equal(r.tree.count, 0);
  assert.deepEqual(r.diagnostics, { "malformed-line": 1, "truncated-last-line": 1 });
});

test("a 16 MB line over 16,000 pieces of 1 KB: every reader and appendJsonl read it once", opts, async () => {
  const { value: r } = await run("longLineInPieces", { mb: 16, pieceSize: 1024 }, LIMIT);
  assert.equal(r.count, 4);
  assert.deepEqual(r.info, { messageCount: 3, firstMessage: "hi" });
  assert.deepEqual(r.parsed, ["s", "a", "b", "c"]);
  assert.deepEqual(r.tree, { id: "b", length: r.textLength, next: "c" });
  assert.deepEqual(r.context, [2, r.textLength, 3]);
  assert.equal(r.diagnostics, 0);
  assert.equal(r.migrated, true);
  // d, then the blank line (no entry), then e under d.
  assert.deepEqual(r.session, { leaf: "e", same: true, entries: 5 });
});

test("a context of 520 MiB, more than one JS string: context, entries and projection", opts, async () => {
  const { value: r } = await run("largeContext", { steps: 520 }, LIMIT);
  assert.ok(r.size > 536_870_888, `${r.size} bytes`);
  const shape = { count: 1040, users: 520, results: 520 };
  assert.deepEqual(r.context, { ...shape, keys: ["messages", "thinkingLevel", "model"] });
  assert.deepEqual(r.entries, { ...shape, last: "r519" });
  assert.deepEqual(r.projection, { ...shape, keys: ["entries", "messages", "thinkingLevel", "model"], shared: true });
});

test("a context holding one 130 MiB tool result: it crosses alone, whole", opts, async () => {
  const { value: r } = await run("largeContext", { steps: 3, mib: 130 }, LIMIT);
  const shape = { count: 6, users: 3, results: 3 };
  assert.deepEqual(r.context, { ...shape, keys: ["messages", "thinkingLevel", "model"] });
  assert.deepEqual(r.entries, { ...shape, last: "r2" });
  assert.deepEqual(r.projection, { ...shape, keys: ["entries", "messages", "thinkingLevel", "model"], shared: true });
});

test("a 25 MB line holding a 13-million-element array", opts, async () => {
  const { value: r } = await run("longLine", { mb: 25, variant: "array" }, LIMIT);
  assert.equal(r.parsed, 2);
  assert.equal(r.tree.count, 1);
});

test("100,000 keys in one object, and 100,000 repeated id keys", opts, async () => {
  const { value: r } = await run("manyKeys", { n: 100_000 }, LIMIT);
  assert.equal(r.check.wideKeys, 100_002);
  assert.equal(r.check.dupId, "d99999");
  assert.equal(r.check.migratedWideKeys, 100_004); // + id, parentId
  assert.equal(r.check.migratedDupId, "d99999"); // an existing string id is kept
  assert.equal(r.tree.count, 2);
});

test("100,000 entries sharing one id, each naming it as parent", opts, async () => {
  const { value: r } = await run("duplicateIds", { n: 100_000 }, LIMIT);
  assert.equal(r.parsed, 100_001);
  // Every entry is one node; the tree cannot repeat a node.
  assert.equal(r.tree.count, 100_000);
  assert.equal(r.tree.repeated, 0);
  assert.equal(r.diagnostics["duplicate-id"], 99_999);
});

for (const shape of ["ring", "pairs", "rho", "reverse-chain"]) {
  test(`parentId cycles, ${shape} of 100,000 entries: no hang, no entry lost`, opts, async () => {
    const { value: r } = await run("cycles", { n: 100_000, shape }, LIMIT);
    const entries = shape === "rho" ? 100_002 : 100_000;
    assert.equal(r.parsed, entries + 1);
    assert.equal(r.tree.count, entries);
    assert.equal(r.tree.repeated, 0);
    const cycles = { ring: 1, pairs: 50_000, rho: 1, "reverse-chain": 1 }[shape];
    assert.equal(r.diagnostics.cycle, cycles);
    assert.equal(r.tree.roots, cycles);
    assert.ok(r.session.branch >= 1);
  });
}

test("100,000 siblings, a third with invalid timestamps", opts, async () => {
  const { value: r } = await run("manySiblings", { n: 100_000 }, LIMIT);
  assert.equal(r.tree.count, 100_001);
  assert.equal(r.tree.depth, 2);
});
