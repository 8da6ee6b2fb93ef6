// Session against pi 1.6.0's SessionManager.inMemory(): the methods and rules 1.6 added or
// changed. Each test runs the same calls on both, with the clock held still, and compares
// results, errors and the whole file by JSON text (key order included), our ids mapped to pi's.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Session } from "session-tree";
import { getCurrentSystemMessage, loadPi } from "../shared/pi.mjs";

const { SessionManager, buildSessionProjection: piProjection, parseSessionEntries } = await loadPi("1.6.0");

// Both sides stamp entries with `new Date()`: hold it still so they write the same times.
const RealDate = globalThis.Date;
let clock = RealDate.UTC(2026, 10, 20, 10, 0, 0);
class FrozenDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(clock);
    else super(...args);
  }
  static now() {
    return clock;
  }
}
globalThis.Date = FrozenDate;
after(() => {
  globalThis.Date = RealDate;
});

const SID = "0193f2a4-0000-7000-8000-00000000abcd";

/** A pi manager and our session, started alike, with our ids mapped to pi's. */
function twin() {
  const pi = SessionManager.inMemory("/w", { id: SID });
  const ours = Session.create({ cwd: "/w", id: SID });
  const ids = new Map();
  const toPi = (v) =>
    v === undefined
      ? v
      : JSON.parse(JSON.stringify(v), (_, x) => (typeof x === "string" && ids.has(x) ? ids.get(x) : x));
  const toOurs = (v) => {
    for (const [o, p] of ids) if (p === v) return o;
    return v;
  };
  const outcome = (f) => {
    try {
      return { value: f() };
    } catch (e) {
      return { error: `${e.constructor.name}: ${e.message}` };
    }
  };
  /** Runs `call` on both (ours gets its own ids for pi's), expects the same outcome, maps new ids. */
  const both = (call, ...args) => {
    clock += 1000;
    const p = outcome(() => pi[call](...args));
    const o = outcome(() => ours[call](...args.map(toOurs)));
    if (o.value !== undefined && p.value !== undefined) {
      const [oi, pi_] = typeof p.value === "string" ? [o.value, p.value] : [o.value.id, p.value.id];
      if (typeof oi === "string" && typeof pi_ === "string") ids.set(oi, pi_);
    }
    if (o.error) {
      const mapped = [...ids].reduce((m, [oid, pid]) => m.replaceAll(oid, pid), o.error);
      assert.equal(mapped, p.error, `${call} error`);
    } else {
      assert.equal(p.error, undefined, `${call}: pi threw ${p.error}, ours returned`);
      assert.equal(JSON.stringify(toPi(o.value)), JSON.stringify(p.value), `${call} result`);
    }
    return p.value;
  };
  /** The whole file (as JSON text, with pi's ids), header, count, name and leaf agree. */
  const sameState = () => {
    const lines = ours.toJsonl().trimEnd().split("\n");
    const entries = toPi(lines.map((l) => JSON.parse(l)));
    assert.equal(JSON.stringify(entries.slice(1)), JSON.stringify(pi.getEntries()));
    assert.equal(JSON.stringify(entries[0]), JSON.stringify(pi.getHeader()));
    assert.equal(JSON.stringify(toPi(ours.getEntries())), JSON.stringify(pi.getEntries()));
    assert.equal(ours.getEntryCount(), pi.getEntryCount());
    assert.equal(ours.getSessionName(), pi.getSessionName());
    assert.equal(toPi([ours.leafId])[0], pi.getLeafId());
    // what the state means: the tree, and the context at the leaf (edits applied)
    assert.equal(JSON.stringify(toPi(ours.getTree())), JSON.stringify(pi.getTree()), "getTree()");
    assert.equal(
      JSON.stringify(toPi(ours.buildSessionContext())),
      JSON.stringify(pi.buildSessionContext()),
      "buildSessionContext()",
    );
  };
  return { pi, ours, both, sameState, ids, toPi };
}

const userMsg = (text) => ({ role: "user", content: text, timestamp: 1 });
const assistantMsg = (text) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "p",
  model: "m",
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
  stopReason: "stop",
  timestamp: 2,
});
const USAGE = { input: 0, output: 0, cacheRead: 5, cacheWrite: 0, totalTokens: 5, cost: { total: 0.1 } };

test("appendUsage returns the entry itself; note only when truthy", () => {
  const t = twin();
  const u = t.both("appendMessage", userMsg("hi"));
  const e1 = t.both("appendUsage", "cache_warm", "anthropic", "claude", USAGE, "kept warm");
  const e2 = t.both("appendUsage", "other", "p", "m", USAGE, "");
  t.both("appendUsage", "other", "p", "m", USAGE);
  assert.deepEqual(Object.keys(e1), [
    "type",
    "id",
    "parentId",
    "timestamp",
    "kind",
    "provider",
    "model",
    "usage",
    "note",
  ]);
  assert.equal(e1.parentId, u);
  assert.equal("note" in e2, false);
  // The object handed back is the one the session holds.
  const ourEntry = t.ours.getLeafEntry();
  assert.equal(t.ours.getEntry(ourEntry.id), ourEntry);
  t.sameState();
});

test("appendContextEdit: pi's checks, in pi's order, with pi's messages", () => {
  const t = twin();
  const u = t.both("appendMessage", userMsg("question"));
  const a = t.both("appendMessage", assistantMsg("answer"));
  const sys = t.both("appendMessage", { role: "system", content: "be brief", timestamp: 3 });
  const tr = t.both("appendMessage", { role: "toolResult", toolCallId: "t", content: [], timestamp: 4 });
  const cm = t.both("appendCustomMessageEntry", "ext", "note", true);
  const bash = t.both("appendMessage", { role: "bashExecution", command: "ls", output: "", timestamp: 5 });
  const custom = t.both("appendCustomEntry", "ext", { x: 1 });
  // Invalid replacements come first, even for unknown targets.
  for (const bad of [undefined, "x", 5, [], {}, { content: 5 }, { content: null }, { other: "x" }]) {
    t.both("appendContextEdit", "nope", bad);
    t.both("appendContextEdit", u, bad);
  }
  t.both("appendContextEdit", "nope", null);
  for (const target of [sys, bash, custom]) t.both("appendContextEdit", target, { content: "x" });
  // Valid: null, a string (wrapped for assistant and toolResult only), an array, extra keys kept.
  t.both("appendContextEdit", u, { content: "shorter" });
  t.both("appendContextEdit", a, { content: "a-edit" });
  t.both("appendContextEdit", tr, { content: "tool-edit" });
  t.both("appendContextEdit", cm, { content: "custom-edit", extra: 1 });
  t.both("appendContextEdit", a, { content: [{ type: "text", text: "blocks" }] });
  const edit = t.both("appendContextEdit", u, null);
  t.sameState(); // u is left out of the context now
  // An edit is not editable itself; a target off the branch is refused.
  t.both("appendContextEdit", edit, { content: "x" });
  t.both("branch", u);
  t.both("appendMessage", userMsg("other branch"));
  t.both("appendContextEdit", a, null);
  t.both("appendContextEdit", cm, { content: "x" });
  t.sameState();
  const edits = t.pi.getEntries().filter((e) => e.type === "context_edit");
  assert.deepEqual(
    edits.map((e) => e.replacement),
    [
      { content: "shorter" },
      { content: [{ type: "text", text: "a-edit" }] },
      { content: [{ type: "text", text: "tool-edit" }] },
      { content: "custom-edit", extra: 1 },
      { content: [{ type: "text", text: "blocks" }] },
      null,
    ],
    "the two edits after branching away from their targets were refused",
  );
});

test("appendContextEdit on an empty branch: not on the active branch", () => {
  const t = twin();
  const u = t.both("appendMessage", userMsg("q"));
  t.both("resetLeaf");
  t.both("appendContextEdit", u, null);
  t.sameState();
});

test("appendCompaction: null or undefined keeps nothing (its own id); usage before fromHook", () => {
  const t = twin();
  const u = t.both("appendMessage", userMsg("q"));
  t.both("appendMessage", assistantMsg("a"));
  const c1 = t.both("appendCompaction", "sum", null, 100);
  const c2 = t.both("appendCompaction", "sum", undefined, 100, { files: [] }, true, USAGE);
  const c3 = t.both("appendCompaction", "sum", u, 100, undefined, false);
  t.both("appendCompaction", "sum", "", 100);
  t.sameState();
  const entry = (id) => t.pi.getEntries().find((e) => e.id === id);
  assert.equal(entry(c1).firstKeptEntryId, c1);
  assert.equal(entry(c2).firstKeptEntryId, c2);
  assert.equal(entry(c3).firstKeptEntryId, u);
  assert.deepEqual(Object.keys(entry(c2)), [
    "type",
    "id",
    "parentId",
    "timestamp",
    "summary",
    "firstKeptEntryId",
    "tokensBefore",
    "details",
    "usage",
    "fromHook",
  ]);
});

test("branchWithSummary: fromId is the leaf before the call, or root", () => {
  const t = twin();
  const u0 = t.both("appendMessage", userMsg("zero"));
  const u1 = t.both("appendMessage", userMsg("one"));
  t.both("branchWithSummary", u0, "left one", { d: 1 }, true, USAGE);
  t.both("resetLeaf");
  t.both("branchWithSummary", null, "from nothing");
  t.both("branch", u0);
  t.both("branchWithSummary", null, "to the root");
  t.both("branch", u0);
  t.both("branchWithSummary", u0, "in place");
  t.both("branchWithSummary", "nope", "x");
  t.both("branch", u1);
  t.sameState();
  const summaries = t.pi.getEntries().filter((e) => e.type === "branch_summary");
  assert.deepEqual(
    summaries.map((e) => [e.parentId, e.fromId]),
    [
      [u0, u1],
      [null, "root"],
      [null, u0],
      [u0, u0],
    ],
  );
  assert.deepEqual(Object.keys(summaries[0]), [
    "type",
    "id",
    "parentId",
    "timestamp",
    "fromId",
    "summary",
    "details",
    "usage",
    "fromHook",
  ]);
});

test("appendSessionInfo folds each run of CR/LF into one space, then trims", () => {
  const t = twin();
  for (const name of ["  a\r\nb\n\nc\rd \n", "tab\tkept\u2028and\u0085too", "a \n b", "\n\n", "plain"]) {
    t.both("appendSessionInfo", name);
    t.sameState();
  }
  assert.equal(t.pi.getEntries()[0].name, "a b c d");
  assert.equal(t.pi.getEntries()[2].name, "a   b");
});

test("getEntryCount counts distinct ids", () => {
  const line = (id) =>
    JSON.stringify({ type: "custom", customType: "x", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z" });
  const text = `${JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" })}\n${line("a")}\n${line("a")}\n${line("b")}\n`;
  const s = Session.open(text);
  const pi = SessionManager.inMemory("/", undefined, parseSessionEntries(text));
  assert.equal(pi.getEntries().length, 3);
  assert.equal(pi.getEntryCount(), 2);
  assert.equal(s.getEntries().length, 3);
  assert.equal(s.getEntryCount(), 2);
  assert.equal(Session.create({ cwd: "/" }).getEntryCount(), 0);
});

test("session ids: pi's rule and message on create, fork and createBranchedSession", () => {
  const message =
    "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character";
  const s = Session.create({ cwd: "/w", id: "ok" });
  s.appendMessage(userMsg("q"));
  for (const bad of ["", "-abc", "abc-", ".a", "ab\n", "é", "a b", "a/b"]) {
    assert.throws(
      () => SessionManager.inMemory("/w", { id: bad }),
      (e) => e.constructor === Error && e.message === message,
    );
    for (const f of [
      () => Session.create({ cwd: "/w", id: bad }),
      () => s.fork({ id: bad }),
      () => s.createBranchedSession(undefined, { id: bad }),
    ]) {
      assert.throws(f, (e) => e.constructor === Error && e.message === message, JSON.stringify(bad));
    }
  }
  for (const good of ["a", "a..b", "A-b_c.9", "0193f2a4-0000-7000-8000-00000000abcd"]) {
    assert.equal(SessionManager.inMemory("/w", { id: good }).getSessionId(), good);
    assert.equal(Session.create({ cwd: "/w", id: good }).header.id, good);
    assert.equal(JSON.parse(s.fork({ id: good }).split("\n")[0]).id, good);
  }
  // null passes pi's check and then draws a new id.
  assert.match(SessionManager.inMemory("/w", { id: null }).getSessionId(), /^[0-9a-f-]{36}$/);
  assert.match(Session.create({ cwd: "/w", id: null }).header.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  // Ids must be strings here (pi would store the number 123).
  assert.throws(() => Session.create({ cwd: "/w", id: 123 }), TypeError);
});

test("createBranchedSession re-chains around labels and remaps firstKeptEntryId", () => {
  // PI-CURRENT.md §4.3: u0, L1, a0, L2, L3, C(firstKept=L2), u1.
  const t = twin();
  const u0 = t.both("appendMessage", userMsg("u0"));
  t.both("appendLabelChange", u0, "first");
  const a0 = t.both("appendMessage", assistantMsg("a0"));
  const l2 = t.both("appendLabelChange", a0, "second");
  t.both("appendLabelChange", "nope", "x");
  t.both("appendLabelChange", u0, undefined);
  const c = t.both("appendCompaction", "sum", l2, 10);
  const u1 = t.both("appendMessage", userMsg("u1"));
  t.sameState();
  clock += 1000;
  const ourText = t.ours.createBranchedSession(t.ours.leafId);
  const before = new Set(t.pi.getEntries().map((e) => e.id));
  t.pi.createBranchedSession(t.pi.getLeafId());
  const ourLines = ourText
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  const piEntries = t.pi.getEntries();
  // New label ids are random on both sides: map ours to pi's by position.
  ourLines.slice(1).forEach((e, i) => {
    if (!t.ids.has(e.id) && !before.has(piEntries[i].id)) t.ids.set(e.id, piEntries[i].id);
  });
  const header = ourLines[0];
  assert.deepEqual(Object.keys(header), ["type", "version", "id", "timestamp", "cwd"]);
  assert.equal(header.timestamp, t.pi.getHeader().timestamp);
  assert.equal(JSON.stringify(t.toPi(ourLines.slice(1))), JSON.stringify(piEntries));
  const byId = new Map(piEntries.map((e) => [e.id, e]));
  assert.equal(byId.get(a0).parentId, u0);
  assert.equal(byId.get(c).parentId, a0);
  assert.equal(byId.get(c).firstKeptEntryId, c);
  assert.equal(byId.get(u1).parentId, c);
});

test("createBranchedSession with no leaf throws pi's error", () => {
  const t = twin();
  t.both("appendMessage", userMsg("q"));
  t.both("resetLeaf");
  t.both("createBranchedSession");
  t.both("createBranchedSession", null);
  t.both("createBranchedSession", "nope");
});

test("pending lines: held until the first user or assistant message, then each line", () => {
  const s = Session.create({ cwd: "/w" });
  s.appendModelChange("p", "m");
  s.appendMessage({ role: "system", content: "prompt", timestamp: 1 });
  s.appendThinkingLevelChange("high");
  assert.deepEqual(s.takePendingLines(), []);
  s.appendMessage(userMsg("first"));
  assert.deepEqual(
    s.takePendingLines().map((l) => JSON.parse(l).type),
    ["session", "model_change", "message", "thinking_level_change", "message"],
  );
  s.appendUsage("k", "p", "m", USAGE);
  assert.deepEqual(
    s.takePendingLines().map((l) => JSON.parse(l).type),
    ["usage"],
  );
  // An opened session never holds back: every new line, even a lone model change.
  const opened = Session.open(
    `${JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" })}\n`,
  );
  opened.appendModelChange("p", "m");
  assert.deepEqual(
    opened.takePendingLines().map((l) => JSON.parse(l).type),
    ["model_change"],
  );
});

test("appendCompaction checkpoints the prompt at the leaf; the read methods agree with pi's", () => {
  const t = twin();
  const sameReads = () => {
    t.sameState();
    const leaf = t.pi.getLeafId();
    assert.equal(JSON.stringify(t.toPi(t.ours.buildContextEntries())), JSON.stringify(t.pi.buildContextEntries()));
    assert.equal(
      JSON.stringify(t.toPi(t.ours.buildSessionProjection())),
      JSON.stringify(t.pi.buildSessionProjection()),
    );
    assert.equal(
      JSON.stringify(t.toPi(t.ours.currentSystemMessage())),
      JSON.stringify(getCurrentSystemMessage(t.pi.buildSessionProjection().messages)),
    );
    assert.equal(JSON.stringify(t.toPi(t.ours.buildSessionContext())), JSON.stringify(t.pi.buildSessionContext()));
    assert.deepEqual(t.ours.buildContextEntries(null), []);
    assert.equal(t.ours.currentSystemMessage(null), undefined);
    return leaf;
  };
  t.both("appendMessage", {
    role: "system",
    content: "base",
    sections: { preamble: "You are", cwd: "/p" },
    toolsAdded: [{ name: "read", description: "r", parameters: {} }],
    timestamp: 10,
  });
  const u1 = t.both("appendMessage", userMsg("hi"));
  t.both("appendMessage", assistantMsg("yo"));
  t.both("appendMessage", {
    role: "system",
    content: [{ type: "text", text: "more" }],
    sections: { cwd: null, skills: "<skills>" },
    toolsRemoved: [{ name: "read" }],
    toolsAdded: [{ name: "write", description: "w", parameters: {} }],
    timestamp: 20,
  });
  t.both("appendMessage", userMsg("again"));
  sameReads();
  t.both("appendCompaction", "sum1", u1, 500);
  const first = sameReads();
  t.both("appendMessage", { role: "system", content: "later", sections: { skills: null } });
  t.both("appendContextEdit", u1, { content: "EDITED" });
  t.both("appendUsage", "cache_warm", "p", "m2", USAGE);
  // Chained: this checkpoint starts from the first one.
  t.both("appendCompaction", "sum2", null, 600);
  sameReads();
  const last = t.pi.getEntries().at(-1);
  assert.equal(last.systemMessage.content, "base\n\nmore\n\nlater");
  assert.equal(last.systemMessage.timestamp, Date.parse(last.timestamp));
  // At an earlier leaf, the reads follow that leaf.
  for (const leaf of [first, u1]) {
    const ours = t.ours;
    const mine = [...t.ids].find(([, p]) => p === leaf)[0];
    assert.equal(
      JSON.stringify(t.toPi(ours.buildSessionProjection(mine))),
      JSON.stringify(piProjection(t.pi.getEntries(), leaf)),
    );
  }
});

test("a compaction with no system state at the leaf has no checkpoint", () => {
  const t = twin();
  t.both("appendMessage", userMsg("q"));
  // A system message without a timestamp and without tools is not checkpointed (pi-ai returns undefined).
  t.both("appendMessage", { role: "system", content: "no time" });
  t.both("appendCompaction", "sum", null, 1);
  t.sameState();
  assert.equal("systemMessage" in t.pi.getEntries().at(-1), false);
});

test("appendCompaction over a system message pi cannot read appends (pi throws)", () => {
  const s = Session.create({ cwd: "/w" });
  s.appendMessage({ role: "system", content: 5, sections: { a: "x" }, timestamp: 1 });
  const id = s.appendCompaction("sum", null, 1);
  const entry = s.getEntry(id);
  // The unreadable content adds no text; the sections stay; the time is the compaction's.
  assert.deepEqual(entry.systemMessage, { role: "system", content: "", sections: { a: "x" }, timestamp: clock });
  assert.equal(entry.timestamp, new RealDate(clock).toISOString());
});
