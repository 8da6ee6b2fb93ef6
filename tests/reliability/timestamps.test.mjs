// Missing and invalid timestamps: context timestamps are new Date(ts).getTime() (NaN where
// that is NaN), and tree children are in the order V8's sort gives pi (invalid times make the
// comparator inconsistent, so the order depends on V8's TimSort: lists of 2..270 siblings).
// pi runs in a worker, with a time limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSessionContext } from "session-tree";
import { fuzzSettings } from "../shared/rng.mjs";
import { runTask } from "../shared/workers.mjs";

const TASKS = new URL("./helpers/tasks.mjs", import.meta.url);
// The tasks build inputs of tens of MB inside the worker: room for them.
const run = (task, data, limits) => runTask(TASKS, task, data, { heapMb: 6144, ...limits });

test("context timestamps: NaN exactly where new Date(ts).getTime() is NaN", () => {
  const H = '{"type":"session","version":3,"id":"s"}';
  const forms = [
    undefined,
    "",
    "garbage",
    "2025-01-01",
    "2025-01-01T00:00:00",
    "Jan 1 2025",
    "2025-02-30T00:00:00Z",
    "+275760-09-13T00:00:00.001Z",
    8.64e15,
    8.64e15 + 1,
    null,
    true,
    [],
    ["2025-01-01T00:00:00Z"],
    {},
    "\ud800",
  ];
  for (const ts of forms) {
    const e = { type: "custom_message", id: "a", parentId: null, customType: "x", content: "c", display: true };
    if (ts !== undefined) e.timestamp = ts;
    const b = { type: "branch_summary", id: "b", parentId: "a", fromId: "root", summary: "s" };
    if (ts !== undefined) b.timestamp = ts;
    const text = `${H}\n${JSON.stringify(e)}\n${JSON.stringify(b)}\n`;
    const expected = new Date(JSON.parse(JSON.stringify(ts ?? null)) ?? undefined).getTime();
    const want = ts === undefined ? NaN : ts === null ? 0 : expected;
    for (const source of [text, Buffer.from(text), [JSON.parse(H), e, b]]) {
      const { messages } = buildSessionContext(source);
      for (const m of messages)
        assert.ok(Object.is(m.timestamp, want), `${JSON.stringify(ts)}: ${m.timestamp} != ${want}`);
    }
  }
});

const { count, seed } = fuzzSettings(150);
// One step compares them all: its limit grows with FUZZ_COUNT (about 10 ms a session when idle).
const stepLimitMs = Math.max(90_000, count * 50);

test("tree order and context timestamps equal pi's on sessions with broken timestamps", {
  timeout: stepLimitMs + 30_000,
}, async () => {
  const { value } = await run("timestampsVsPi", { seed, count }, { stepLimitMs });
  assert.deepEqual(value.failures, [], `seed ${seed} (replay: FUZZ_SEED=${seed} FUZZ_COUNT=${count})`);
  assert.equal(value.compared, 2 * count);
  assert.ok(value.bigSiblingLists > 0, "some sessions have 64+ siblings (V8's merge path)");
});
