// buildSessionContext: pi's buildSessionContext rules (leaf to root path,
// settings, compaction, branch summaries, custom messages).

import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSessionContext } from "session-tree";
import { assistant, at, entry, header, inputForms, ms, runInWorker, user } from "./helpers/session.mjs";

// u1 ─ a1 ─┬─ mc ─ tl ─ u2 ─ cm ─ ce ─ lb ─ si ─ a2
//          └─ bs ─ bs0 ─ u3        (u3 is the last entry)
const session = [
  header(),
  user("u1", null, "q1", 1),
  assistant("a1", "u1", "r1", 2, "prov-1", "model-1"),
  entry("model_change", "mc", "a1", 3, { provider: "prov-2", modelId: "model-2" }),
  entry("thinking_level_change", "tl", "mc", 4, { thinkingLevel: "medium" }),
  user("u2", "tl", "q2", 5),
  entry("custom_message", "cm", "u2", 6, {
    customType: "ext",
    content: [{ type: "text", text: "injected" }],
    display: true,
    details: { k: [1, 2] },
  }),
  entry("custom", "ce", "cm", 7, { customType: "state", data: { x: 1 } }),
  entry("label", "lb", "ce", 8, { targetId: "u1", label: "start" }),
  entry("session_info", "si", "lb", 9, { name: "named" }),
  assistant("a2", "si", "r2", 10, "prov-3", "model-3"),
  entry("branch_summary", "bs", "a1", 11, {
    fromId: "a2",
    summary: "the left branch",
    details: { f: 1 },
    fromHook: false,
  }),
  entry("branch_summary", "bs0", "bs", 12, { fromId: "a2", summary: "" }),
  user("u3", "bs0", "q3", 13),
];
const msg = (id) => session.find((e) => e.id === id).message;

const branchSummary = {
  role: "branchSummary",
  summary: "the left branch",
  fromId: "a2",
  timestamp: ms(at(11)),
};
const customMessage = {
  role: "custom",
  customType: "ext",
  content: [{ type: "text", text: "injected" }],
  display: true,
  details: { k: [1, 2] },
  timestamp: ms(at(6)),
};

const defaultContext = {
  messages: [msg("u1"), msg("a1"), branchSummary, msg("u3")],
  thinkingLevel: "off",
  model: { provider: "prov-1", modelId: "model-1" },
};
const a2Context = {
  messages: [msg("u1"), msg("a1"), msg("u2"), customMessage, msg("a2")],
  thinkingLevel: "medium",
  model: { provider: "prov-3", modelId: "model-3" },
};
const EMPTY = { messages: [], thinkingLevel: "off", model: null };

test("every input form, default leaf = last entry", () => {
  for (const [form, source] of Object.entries(inputForms(session))) {
    assert.deepStrictEqual(buildSessionContext(source), defaultContext, form);
    assert.deepStrictEqual(buildSessionContext(source, undefined), defaultContext, `${form}, undefined`);
    assert.deepStrictEqual(buildSessionContext(source, "no-such-id"), defaultContext, `${form}, unknown leaf`);
    assert.deepStrictEqual(buildSessionContext(source, "a2"), a2Context, `${form}, leaf a2`);
    assert.deepStrictEqual(buildSessionContext(source, null), EMPTY, `${form}, null leaf`);
  }
});

test("settings follow the path: model_change after an assistant message wins", () => {
  assert.deepStrictEqual(buildSessionContext(session, "tl"), {
    messages: [msg("u1"), msg("a1")],
    thinkingLevel: "medium",
    model: { provider: "prov-2", modelId: "model-2" },
  });
  assert.deepStrictEqual(buildSessionContext(session, "u1"), {
    messages: [msg("u1")],
    thinkingLevel: "off",
    model: null,
  });
});

test("non-message entries add no messages; an empty branch summary is skipped", () => {
  const { messages } = buildSessionContext(session, "bs0");
  assert.deepStrictEqual(messages, [msg("u1"), msg("a1"), branchSummary]);
});

test("custom_message without details", () => {
  const { messages } = buildSessionContext([
    header(),
    entry("custom_message", "c", null, 1, { customType: "t", content: "plain", display: false }),
  ]);
  assert.equal(messages.length, 1);
  const { details, ...rest } = messages[0];
  assert.equal(details, undefined);
  assert.deepStrictEqual(rest, {
    role: "custom",
    customType: "t",
    content: "plain",
    display: false,
    timestamp: ms(at(1)),
  });
});

test("empty sessions", () => {
  assert.deepStrictEqual(buildSessionContext(""), EMPTY);
  assert.deepStrictEqual(buildSessionContext([]), EMPTY);
  assert.deepStrictEqual(buildSessionContext([header()]), EMPTY);
  assert.deepStrictEqual(buildSessionContext("", "x"), EMPTY);
});

// e1 ─ e2 ─ e3 ─ e4 ─ c1 ─ e5 ─ e6 ─ c2 ─ e7
const compacted = [
  header(),
  user("e1", null, "m1", 1),
  assistant("e2", "e1", "r1", 2),
  user("e3", "e2", "m2", 3),
  assistant("e4", "e3", "r2", 4),
  entry("compaction", "c1", "e4", 5, { summary: "S1", firstKeptEntryId: "e3", tokensBefore: 1000 }),
  user("e5", "c1", "m3", 6),
  entry("branch_summary", "b5", "e5", 7, { fromId: "zz", summary: "kept summary" }),
  assistant("e6", "b5", "r3", 8, "prov-x", "model-x"),
  entry("compaction", "c2", "e6", 9, {
    summary: "S2",
    firstKeptEntryId: "e5",
    tokensBefore: 2000,
    details: { readFiles: [] },
  }),
  user("e7", "c2", "m4", 10),
  entry("compaction", "c3", "e4", 11, { summary: "S3", firstKeptEntryId: "nowhere", tokensBefore: 3 }),
  user("e8", "c3", "m5", 12),
];
const cmsg = (id) => compacted.find((e) => e.id === id).message;
const summary = (text, tokensBefore, seconds) => ({
  role: "compactionSummary",
  summary: text,
  tokensBefore,
  timestamp: ms(at(seconds)),
});

test("compaction: summary, then kept entries from firstKeptEntryId, then the rest", () => {
  for (const source of [compacted, inputForms(compacted).string]) {
    assert.deepStrictEqual(buildSessionContext(source, "e7"), {
      messages: [
        summary("S2", 2000, 9),
        cmsg("e5"),
        { role: "branchSummary", summary: "kept summary", fromId: "zz", timestamp: ms(at(7)) },
        cmsg("e6"),
        cmsg("e7"),
      ],
      thinkingLevel: "off",
      model: { provider: "prov-x", modelId: "model-x" },
    });
    assert.deepStrictEqual(buildSessionContext(source, "e6").messages, [
      summary("S1", 1000, 5),
      cmsg("e3"),
      cmsg("e4"),
      cmsg("e5"),
      { role: "branchSummary", summary: "kept summary", fromId: "zz", timestamp: ms(at(7)) },
      cmsg("e6"),
    ]);
    assert.deepStrictEqual(buildSessionContext(source, "c1").messages, [
      summary("S1", 1000, 5),
      cmsg("e3"),
      cmsg("e4"),
    ]);
    // firstKeptEntryId not on the path: nothing before the compaction is kept.
    assert.deepStrictEqual(buildSessionContext(source).messages, [summary("S3", 3, 11), cmsg("e8")]);
  }
});

test("timestamps are new Date(timestamp).getTime() of the entry", () => {
  const stamps = [
    "2025-06-01T12:34:56.789Z",
    "2025-06-01T12:34:56Z",
    "2025-06-01T12:34:56.789123Z",
    "2025-06-01T14:34:56.789+02:00",
    "2025-06-01",
    "+002025-06-01T00:00:00.000Z",
  ];
  const entries = [header()];
  stamps.forEach((timestamp, i) => {
    entries.push({
      type: "branch_summary",
      id: `b${i}`,
      parentId: i ? `b${i - 1}` : null,
      timestamp,
      fromId: "f",
      summary: `s${i}`,
    });
  });
  const { messages } = buildSessionContext(entries);
  assert.deepStrictEqual(
    messages.map((m) => m.timestamp),
    stamps.map((s) => new Date(s).getTime()),
  );
  const invalid = buildSessionContext([
    header(),
    { type: "branch_summary", id: "x", parentId: null, timestamp: "not a date", fromId: "f", summary: "s" },
  ]);
  assert.ok(Number.isNaN(invalid.messages[0].timestamp), "invalid date gives NaN, like getTime()");
});

test("entry arrays: the caller's message objects are returned, nothing is modified", () => {
  const entries = structuredClone(session);
  const snapshot = structuredClone(entries);
  const context = buildSessionContext(entries, "a2");
  assert.equal(context.messages[0], entries[1].message);
  assert.equal(context.messages[1], entries[2].message);
  assert.equal(context.messages[2], entries[5].message);
  assert.equal(context.messages[4], entries[10].message);
  assert.deepStrictEqual(entries, snapshot);
  // Header-less arrays too.
  const bare = entries.slice(1);
  assert.equal(buildSessionContext(bare).messages[3], entries[13].message);
});

test("a parentId cycle, a self-parented leaf and duplicate ids terminate", async () => {
  const cases = {
    cycle: { source: [header(), user("a", "c", "A", 1), user("b", "a", "B", 2), user("c", "b", "C", 3)], leafId: "c" },
    "cycle, default leaf": { source: [header(), user("a", "b", "A", 1), user("b", "a", "B", 2)] },
    "self-parented leaf": { source: [header(), user("a", null, "A", 1), user("s", "s", "S", 2)], leafId: "s" },
    "self-parented, text": { source: [header(), user("s", "s", "S", 2)].map((e) => JSON.stringify(e)).join("\n") },
    "duplicate ids": {
      source: [header(), user("d", null, "1", 1), user("d", "d", "2", 2), user("d", "d", "3", 3)],
      leafId: "d",
    },
  };
  for (const [name, { source, leafId }] of Object.entries(cases)) {
    const reply = await runInWorker("buildSessionContext", { source, leafId }, 10_000);
    assert.ok(reply.ok, `${name}: ${reply.name}: ${reply.message}`);
    assert.ok(Array.isArray(reply.value.roles), name);
    assert.ok(reply.value.roles.length <= 4, `${name}: no message repeated forever`);
  }
});

test("wrong argument types throw a TypeError naming the argument", () => {
  for (const bad of [42, null, undefined, {}, false, new ArrayBuffer(1)]) {
    assert.throws(
      () => buildSessionContext(bad),
      (error) => error instanceof TypeError && /source/.test(error.message),
      `source ${String(bad)}`,
    );
  }
  for (const bad of [42, {}, true, ["a2"]]) {
    assert.throws(
      () => buildSessionContext(session, bad),
      (error) => error instanceof TypeError && /leafId/.test(error.message),
      `leafId ${String(bad)}`,
    );
  }
  assert.deepStrictEqual(buildSessionContext(session, "a2"), a2Context, "still works");
});
