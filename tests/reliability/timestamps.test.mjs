// Missing and invalid timestamps: context timestamps are new Date(ts).getTime() (NaN where
// that is NaN), and tree children are in the order V8's sort gives pi (invalid times make the
// comparator inconsistent, so the order depends on V8's TimSort: lists of 2..270 siblings).
// pi runs in a worker, with a time limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSessionContext, getTree, inspectSession, parseSession, Session } from "session-tree";
import { parseSessionEntries, buildSessionContext as piContext } from "../shared/pi.mjs";
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

test("timestamps new Date cannot read (no string form, arrays too deep to join): NaN, nothing thrown", () => {
  // new Date(ts) throws on these: a TypeError (own toString and valueOf that are no
  // functions) or a RangeError (the join of arrays nested 100,000 deep overflows the
  // stack). pi throws only where it converts them (siblings' sort, the timestamp of a
  // custom or summary message); every function here used to throw for the whole file.
  const H = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  for (const ts of ['{"toString":1}', '{"valueOf":1,"toString":[]}', deep]) {
    assert.throws(() => new Date(JSON.parse(ts)), `${ts.slice(0, 20)}: new Date throws`);
    const broken = `{"type":"message","id":"a","parentId":null,"timestamp":${ts},"message":{"role":"user","content":"a","timestamp":1}}`;
    const next =
      '{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"b","timestamp":2}}';
    const custom = `{"type":"custom_message","id":"c","parentId":"b","timestamp":${ts},"customType":"x","content":"c","display":true}`;
    const text = `${H}\n${broken}\n${next}\n`;
    const what = ts.slice(0, 20);
    // Where pi does not convert the time (one child, a message entry), ours equals pi's.
    const piEntries = parseSessionEntries(text);
    for (const source of [text, Buffer.from(text), parseSession(text)]) {
      assert.equal(JSON.stringify(buildSessionContext(source)), JSON.stringify(piContext(piEntries)), what);
      const [root] = getTree(source);
      assert.deepEqual([root.entry.id, root.children[0].entry.id], ["a", "b"], what);
    }
    assert.ok(Array.isArray(inspectSession(text)), what);
    const session = Session.open(text);
    session.appendMessage({ role: "user", content: "more", timestamp: 3 });
    assert.equal(session.buildSessionContext().messages.length, 3, what);
    session.free();
    // Where pi converts it, it throws; ours reads NaN, as new Date gives for a value it can read.
    const withCustom = `${text}${custom}\n`;
    assert.throws(() => piContext(parseSessionEntries(withCustom)), what);
    for (const source of [withCustom, Buffer.from(withCustom), parseSession(withCustom)]) {
      assert.ok(Object.is(buildSessionContext(source).messages[2].timestamp, NaN), what);
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
