// Session: the behaviour that is ours to define (storage handed to the host);
// agreement with pi's SessionManager is checked in tests/conformance/session.test.js.

import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSessionContext, getTree, Session, sessionInfo, sessionUsage, UsageLedger } from "session-tree";
import { assistant, at, header, jsonl, ms, user } from "./helpers/session.mjs";

const HEX8 = /^[0-9a-f]{8}$/;
const file = jsonl([
  header(),
  user("a", null, "first", 1),
  assistant("b", "a", "answer", 2),
  user("c", "a", "again", 3),
]);

test("open indexes the file: leaf, entries, children, branch, context", () => {
  const s = Session.open(file);
  assert.equal(s.leafId, "c");
  assert.equal(s.header.id, header().id);
  assert.deepEqual(
    s.getEntries().map((e) => e.id),
    ["a", "b", "c"],
  );
  assert.deepEqual(
    s.getChildren("a").map((e) => e.id),
    ["b", "c"],
  );
  assert.deepEqual(
    s.getBranch().map((e) => e.id),
    ["a", "c"],
  );
  assert.deepEqual(
    s.getBranch("b").map((e) => e.id),
    ["a", "b"],
  );
  assert.equal(JSON.stringify(s.buildSessionContext()), JSON.stringify(buildSessionContext(file, "c")));
  assert.equal(JSON.stringify(s.buildSessionContext("b")), JSON.stringify(buildSessionContext(file, "b")));
  assert.deepEqual(s.buildSessionContext(null), { messages: [], thinkingLevel: "off", model: null });
  assert.equal(JSON.stringify(s.getTree()), JSON.stringify(getTree(file)));
  assert.equal(s.toJsonl(), file);
  assert.equal(s.migrated, false);
});

test("appended ids come from the random pool: 8 hex digits, distinct, evenly spread", () => {
  // The pool is refilled from crypto in bulk (several refills here): an id
  // of bytes left unfilled, or drawn twice, shows as a repeat or a skew.
  const s = Session.create({ cwd: "/w" });
  const ids = new Set();
  for (let i = 0; i < 20_000; i++) {
    const id = s.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
    assert.match(id, HEX8);
    ids.add(id);
  }
  assert.equal(ids.size, 20_000);
  const digits = new Array(16).fill(0);
  for (const id of ids) for (const c of id) digits[Number.parseInt(c, 16)]++;
  // 10,000 of each expected, a standard deviation of about 97: ±5% is 5σ.
  for (const n of digits) assert.ok(Math.abs(n - 10_000) < 500, `digit counts ${digits}`);
});

test("a new session holds its lines back until the first user or assistant message", () => {
  const s = Session.create({ cwd: "/w" });
  assert.match(s.header.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, "a UUID v7");
  const m = s.appendModelChange("p", "m");
  assert.match(m, HEX8);
  assert.deepEqual(s.takePendingLines(), []);
  const q = s.appendMessage({ role: "user", content: "q", timestamp: 1 });
  const a = s.appendMessage({ role: "assistant", content: [], provider: "p", model: "m", timestamp: 2 });
  const lines = s.takePendingLines();
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).type),
    ["session", "model_change", "message", "message"],
  );
  assert.deepEqual(lines.map((l) => JSON.parse(l).id).slice(1), [m, q, a]);
  assert.equal(`${lines.join("\n")}\n`, s.toJsonl());
  assert.deepEqual(s.takePendingLines(), []);
  s.appendThinkingLevelChange("high");
  assert.deepEqual(
    s.takePendingLines().map((l) => JSON.parse(l).type),
    ["thinking_level_change"],
  );
});

test("an opened file hands out each new line at once and never its own", () => {
  const s = Session.open(jsonl([header(), user("a", null, "q", 1)]));
  s.appendThinkingLevelChange("low");
  assert.deepEqual(
    s.takePendingLines().map((l) => JSON.parse(l).type),
    ["thinking_level_change"],
  );
  s.appendMessage({ role: "user", content: "more", timestamp: 2 });
  assert.deepEqual(
    s.takePendingLines().map((l) => JSON.parse(l).message.content),
    ["more"],
  );
});

test("new entries have pi's key order and link to the leaf", () => {
  const s = Session.open(file);
  const id = s.appendCustomMessageEntry("ext", "hello", true);
  const line = s.toJsonl().trimEnd().split("\n").pop();
  const keys = Object.keys(JSON.parse(line));
  assert.deepEqual(
    keys,
    ["type", "customType", "content", "display", "id", "parentId", "timestamp"],
    "details undefined is left out",
  );
  assert.equal(JSON.parse(line).parentId, "c");
  assert.equal(s.leafId, id);
  const sum = s.branchWithSummary(null, "gone");
  assert.deepEqual(Object.keys(s.getEntry(sum)), ["type", "id", "parentId", "timestamp", "fromId", "summary"]);
  assert.equal(s.getEntry(sum).fromId, id, "the leaf the branch left");
  assert.equal(s.getEntry(sum).parentId, null);
});

test("unknown ids throw pi's message; wrong types throw TypeError; the session keeps working", () => {
  const s = Session.open(file);
  assert.throws(() => s.branch("nope"), { message: "Entry nope not found" });
  assert.throws(() => s.appendLabelChange("nope", "x"), { message: "Entry nope not found" });
  assert.throws(() => s.branchWithSummary("nope", "x"), { message: "Entry nope not found" });
  assert.throws(() => s.branch(42), TypeError);
  assert.throws(() => s.appendSessionInfo(42), TypeError);
  assert.throws(() => Session.open(42), /Session.open: source/);
  assert.throws(() => Session.create({}), /options.cwd must be a string/);
  assert.throws(() => new Session(), TypeError);
  assert.equal(s.leafId, "c");
  s.branch("b");
  assert.equal(s.getEntry(s.appendMessage({ role: "user", content: "x", timestamp: 1 })).parentId, "b");
});

test("values JSON.stringify cannot write: its class of error, naming the call and the value", () => {
  // A session is JSONL: a cycle, a BigInt or nesting deeper than JSON.stringify's
  // stack cannot become a line. The error is the one JSON.stringify throws on
  // the value (its class, and the error itself as the cause), named for the call.
  const cycle = { a: 1 };
  cycle.self = cycle;
  let deep = [];
  for (let i = 0; i < 200_000; i++) deep = [deep];
  const bad = [
    ["a cycle", cycle],
    ["a BigInt", 1n],
    ["arrays nested 200,000 deep", deep],
  ];
  const thrownBy = (value) => {
    try {
      JSON.stringify(value);
    } catch (error) {
      return error;
    }
    assert.fail("JSON.stringify wrote it");
  };
  for (const [what, value] of bad) {
    const expected = thrownBy(value);
    const check = (run, prefix) => {
      assert.throws(run, (error) => {
        assert.equal(error.constructor, expected.constructor, `${what}: ${error}`);
        assert.ok(error.message.startsWith(`${prefix} cannot be written as JSON (`), `${what}: ${error.message}`);
        assert.equal(error.cause?.constructor, expected.constructor, what);
        return true;
      });
    };
    const entries = [header(), user("a", null, "hi", 1), { ...user("b", "a", "x", 2), extra: value }];
    check(() => Session.open(entries), "Session.open: entry 2 of the array");
    check(() => sessionUsage(entries), "sessionUsage: entry 2 of the array");
    check(() => new UsageLedger().add("/p.jsonl", entries), "UsageLedger.add: entry 2 of the array");
    const s = Session.open(file);
    const before = s.toJsonl();
    check(() => s.appendMessage({ role: "user", content: "x", timestamp: 1, value }), "appendMessage: the message");
    check(() => s.appendCustomEntry("kind", value), "appendCustomEntry: data");
    check(() => s.appendCompaction("sum", null, 10, value), "appendCompaction: details");
    check(() => s.branchWithSummary(null, "sum", value), "branchWithSummary: details");
    // An error of the value's own code is the caller's, as thrown.
    const mine = new Error("mine");
    const own = {
      toJSON() {
        throw mine;
      },
    };
    assert.throws(
      () => s.appendCustomEntry("kind", own),
      (error) => error === mine,
    );
    assert.throws(
      () => Session.open([header(), own]),
      (error) => error === mine,
    );
    // Nothing was appended, and the session still appends.
    assert.equal(s.toJsonl(), before, what);
    assert.equal(s.getEntry(s.appendMessage({ role: "user", content: "x", timestamp: 1 })).parentId, "c");
  }
});

test("labels: set, read, clear, and carried into a branched session", () => {
  const s = Session.open(file);
  s.appendLabelChange("a", "start");
  s.appendLabelChange("b", "kept");
  s.appendLabelChange("c", "other branch");
  assert.equal(s.getLabel("a"), "start");
  s.appendLabelChange("a", "");
  assert.equal(s.getLabel("a"), undefined);
  s.appendLabelChange("a", "again");
  const text = s.createBranchedSession("b", { parentSession: "/old.jsonl" });
  const lines = text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(lines[0].type, "session");
  assert.equal(lines[0].parentSession, "/old.jsonl");
  assert.equal(lines[0].cwd, header().cwd);
  assert.deepEqual(
    lines.slice(1, 3).map((e) => e.id),
    ["a", "b"],
  );
  // Labels on the path, in the order pi's label map holds them: b first (a was cleared and set again).
  const labels = lines.slice(3);
  assert.deepEqual(
    labels.map((l) => [l.targetId, l.label]),
    [
      ["b", "kept"],
      ["a", "again"],
    ],
  );
  assert.equal(labels[0].parentId, "b");
  assert.equal(labels[1].parentId, labels[0].id);
  assert.throws(() => s.createBranchedSession("zzz"), { message: "Entry zzz not found" });
});

test("appendJsonl ingests chunks that end mid-line and mid-character", () => {
  const extra = jsonl([user("d", "c", "ünïcödé ✓", 4), assistant("e", "d", "done", 5)]);
  const whole = Session.open(file + extra);
  const s = Session.open(file);
  const bytes = new TextEncoder().encode(extra);
  const cut = [7, extra.indexOf("ü") + 1, bytes.length - 3];
  let from = 0;
  for (const at of [...cut, bytes.length]) {
    s.appendJsonl(bytes.subarray(from, at));
    from = at;
  }
  assert.equal(s.leafId, "e");
  assert.equal(s.getEntry("d").message.content, "ünïcödé ✓");
  assert.equal(JSON.stringify(s.buildSessionContext()), JSON.stringify(whole.buildSessionContext()));
  assert.equal(s.toJsonl(), whole.toJsonl());
  assert.deepEqual(s.takePendingLines(), [], "ingested lines are the host's already");
});

test("a file opened while its last line stops inside a character: the rest completes it", () => {
  // A follower can read the file between two writes of one line: the open keeps the cut
  // character's bytes, and the chunk that follows finishes it (not two U+FFFD).
  const extra = jsonl([user("d", "c", "naïve ✓", 4)]);
  const bytes = new TextEncoder().encode(file + extra);
  const inside = [bytes.indexOf(0xc3) + 1, bytes.indexOf(0xe2) + 1, bytes.indexOf(0xe2) + 2];
  for (const cut of inside) {
    const source = { size: cut, read: (offset, length) => bytes.slice(offset, offset + length) };
    for (const [form, opened] of [
      ["bytes", () => Session.open(bytes.slice(0, cut))],
      ["byte source", () => Session.open(source, { pieceSize: 16 })],
    ]) {
      const s = opened();
      assert.equal(s.leafId, "c", `${form}, cut at ${cut}: the torn line is no entry yet`);
      s.appendJsonl(bytes.slice(cut));
      assert.equal(s.getEntry("d")?.message.content, "naïve ✓", `${form}, cut at ${cut}`);
      assert.equal(s.toJsonl(), file + extra, `${form}, cut at ${cut}`);
      s.free();
    }
  }
});

test("open migrates v1 in memory and says so", () => {
  const v1 = jsonl([
    { type: "session", id: "old", timestamp: at(0), cwd: "/" },
    { type: "message", timestamp: at(1), message: { role: "user", content: "hi", timestamp: 1 } },
  ]);
  const s = Session.open(v1);
  assert.equal(s.migrated, true);
  assert.equal(s.header.version, 3);
  assert.match(s.leafId, HEX8);
  assert.equal(s.getLeafEntry().parentId, null);
});

test("sessionInfo reads what pi's session list shows", () => {
  const named = file + jsonl([{ type: "session_info", id: "n", parentId: "c", timestamp: at(9), name: "  My run " }]);
  const info = sessionInfo(named);
  assert.equal(info.id, header().id);
  assert.equal(info.cwd, header().cwd);
  assert.equal(info.name, "My run");
  assert.equal(info.messageCount, 3);
  assert.equal(info.firstMessage, "first");
  assert.equal(info.created.getTime(), ms(at(0)));
  assert.equal(info.modified.getTime(), ms(at(3)), "the last user/assistant message's own timestamp");
  assert.equal(sessionInfo(jsonl([user("a", null, "x", 1)])), null, "no header first: null");
});

test("free releases a session; using it afterwards throws instead of crashing", () => {
  const s = Session.open(file);
  s.free();
  assert.throws(() => s.getEntries());
  assert.equal(Session.open(file).leafId, "c");
});
