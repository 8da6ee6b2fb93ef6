// buildSessionContext, buildContextEntries, buildSessionProjection and
// currentSystemMessage against pi 1.6.0 run for real, on hand-built sessions
// that exercise every rule of the 1.6 context: compaction checkpoints, system
// messages in kept ranges, context edits, null content. Compared by
// JSON.stringify (key order included), for text, bytes and entry arrays.

import assert from "node:assert/strict";
import { test } from "node:test";
import { buildContextEntries, buildSessionContext, buildSessionProjection, currentSystemMessage } from "session-tree";
import { loadPi } from "../shared/pi.mjs";
import { caseSeed, envSeed, Rng } from "../shared/rng.mjs";
import { at, entry, header, jsonl, ms } from "./helpers/session.mjs";

const pi = await loadPi("1.6.0");
const { getCurrentSystemMessage } = await import(
  new URL("../node_modules/@earendil-works/pi-ai/dist/utils/transcript.js", import.meta.url).href
);

// Builders: `n` counts seconds, so every entry has its own time.
let clock = 0;
const tick = () => ++clock;
const message = (id, parentId, msg) => {
  const s = tick();
  return entry("message", id, parentId, s, { message: { ...msg } });
};
const user = (id, parentId, content = `u-${id}`) =>
  message(id, parentId, { role: "user", content, timestamp: ms(at(clock + 1)) });
const assistant = (id, parentId, content = [{ type: "text", text: `a-${id}` }], model = `m-${id}`) =>
  message(id, parentId, { role: "assistant", content, provider: "p", model, timestamp: 7 });
const toolResult = (id, parentId, content = [{ type: "text", text: `t-${id}` }]) =>
  message(id, parentId, {
    role: "toolResult",
    toolCallId: "c",
    toolName: "read",
    content,
    isError: false,
    timestamp: 8,
  });
const system = (id, parentId, fields) => message(id, parentId, { role: "system", ...fields });
const compaction = (id, parentId, firstKeptEntryId, extra = {}) =>
  entry("compaction", id, parentId, tick(), {
    summary: `sum-${id}`,
    firstKeptEntryId,
    tokensBefore: 100,
    ...extra,
  });
const edit = (id, parentId, targetId, replacement) =>
  entry("context_edit", id, parentId, tick(), replacement === undefined ? { targetId } : { targetId, replacement });
const usage = (id, parentId) =>
  entry("usage", id, parentId, tick(), {
    kind: "cache_warm",
    provider: "p2",
    model: "m-usage",
    usage: { input: 0, output: 0, cacheRead: 1, cacheWrite: 0, totalTokens: 1 },
  });
const custom = (id, parentId, fields = { content: "cm" }) =>
  entry("custom_message", id, parentId, tick(), { customType: "ext", ...fields, display: true });

/** A chain: each entry's parent is the one before (unless it names one). */
function chain(...entries) {
  return [header(), ...entries];
}

const SESSIONS = {};

// §2.7, the worked example.
clock = 0;
SESSIONS["worked example"] = chain(
  system("s1", null, {
    content: "base",
    sections: { a: "A", b: "B" },
    toolsAdded: [{ name: "read", description: "r", parameters: {} }],
    timestamp: 100,
  }),
  user("u1", "s1", "hi"),
  assistant("a1", "u1", [{ type: "text", text: "yo" }], "m"),
  system("s2", "a1", {
    content: "more",
    sections: { a: null, c: "C" },
    toolsRemoved: [{ name: "read" }],
    toolsAdded: [{ name: "write", description: "w", parameters: {} }],
    timestamp: 200,
  }),
  user("u2", "s2", "again"),
  compaction("c1", "u2", "u1", { systemMessage: { role: "system", content: "CKPT", timestamp: 600 } }),
  user("u3", "c1", "after"),
  edit("e1", "u3", "u1", { content: "EDITED" }),
  edit("e2", "e1", "a1", { content: "a-edit" }),
  edit("e3", "e2", "u2", null),
  usage("g1", "e3"),
);

// Retain-none compactions (firstKeptEntryId is the compaction's own id), with
// system messages before (lost) and after (kept, replayed).
clock = 0;
SESSIONS["retain-none"] = chain(
  system("s1", null, { content: "p1", timestamp: 1 }),
  user("u1", "s1"),
  compaction("c1", "u1", "c1"),
  system("s2", "c1", { content: ["x", { type: "text", text: "p2" }, { type: "image", data: "" }], timestamp: 2 }),
  user("u2", "s2"),
  compaction("c2", "u2", "c2", {
    systemMessage: { role: "system", content: "p1\n\np2", sections: { k: "v" }, timestamp: 3 },
  }),
  assistant("a2", "c2"),
);

// Chained checkpoints; an older compaction inside the newest's kept range;
// system messages in that range dropped, after it kept.
clock = 0;
SESSIONS["chained checkpoints"] = chain(
  system("s0", null, { content: "", sections: { pre: "P", 2: "two", 1: "one" }, timestamp: null }),
  user("u1", "s0"),
  assistant("a1", "u1"),
  compaction("c1", "a1", "a1", {
    systemMessage: {
      role: "system",
      content: "CK1",
      sections: { pre: "P" },
      toolsAdded: [{ name: "t1" }],
      timestamp: 10,
    },
  }),
  system("s1", "c1", { content: "later", sections: { pre: null, z: "Z" }, toolsAdded: [{ name: "t2" }] }),
  user("u2", "s1"),
  edit("e1", "u2", "c1", { content: "not applied to a compaction's messages" }),
  compaction("c2", "e1", "c1", {
    systemMessage: {
      role: "system",
      content: "CK2",
      sections: { 10: "ten", a: "A" },
      toolsAdded: [{ name: "t1" }, { name: "t2" }],
      timestamp: 20,
    },
  }),
  system("s2", "c2", {
    sections: { a: null, b: "B" },
    toolsRemoved: [{ name: "t1" }],
    toolsAdded: [{ name: "t1", v: 2 }],
    timestamp: 30,
  }),
  toolResult("t1", "s2"),
);

// Edits of every kind on every target kind, the last one winning; edits on
// other branches; an edit before its target; edits of edits.
clock = 0;
SESSIONS.edits = chain(
  user("u1", null),
  assistant("a1", "u1"),
  toolResult("t1", "a1"),
  message("cr", "t1", { role: "custom", customType: "x", content: "custom role", display: false, timestamp: 1 }),
  message("bx", "cr", { role: "bashExecution", command: "ls", output: "o", exitCode: 0, timestamp: 2 }),
  custom("cm", "bx"),
  entry("branch_summary", "bs", "cm", tick(), { fromId: "u1", summary: "bsum" }),
  edit("eb", "bs", "late", { content: "before its target" }),
  user("late", "eb"),
  edit("e1", "late", "u1", { content: "first" }),
  edit("e2", "e1", "u1", { content: [{ type: "text", text: "second" }] }),
  edit("e3", "e2", "a1", { content: "string on assistant" }),
  edit("e4", "e3", "t1", { content: "string on toolResult" }),
  edit("e5", "e4", "cr", { content: "on custom role" }),
  edit("e6", "e5", "bx", { content: "on bashExecution" }),
  edit("e7", "e6", "cm", { content: [{ type: "text", text: "on custom_message" }] }),
  edit("e8", "e7", "bs", { content: "on branch summary" }),
  edit("e9", "e8", "e1", null),
  edit("side", "bs", "u1", null),
  user("tip", "e9"),
);

// Odd replacements pass through unvalidated.
clock = 0;
SESSIONS["odd replacements"] = chain(
  user("u1", null),
  assistant("a1", "u1"),
  toolResult("t1", "a1"),
  custom("cm", "t1"),
  user("u2", "cm"),
  user("u3", "u2"),
  edit("e1", "u3", "u1", { content: 5 }),
  edit("e2", "e1", "a1", { content: null }),
  edit("e3", "e2", "t1", {}),
  edit("e4", "e3", "cm", "str"),
  edit("e5", "e4", "u2", []),
  edit("e6", "e5", "u3", { content: "s", extra: 1 }),
);

// null edits remove anything: the newest compaction's checkpoint and summary,
// branch summaries, bashExecution; edits before firstKeptEntryId are ignored.
clock = 0;
SESSIONS["null edits and kept ranges"] = chain(
  user("u0", null),
  edit("eOld", "u0", "u1", null),
  user("u1", "eOld"),
  edit("eKept", "u1", "u1b", { content: "kept edit" }),
  user("u1b", "eKept"),
  entry("branch_summary", "bs", "u1b", tick(), { fromId: "u0", summary: "b" }),
  message("bx", "bs", { role: "bashExecution", command: "ls", output: "", timestamp: 2 }),
  compaction("c1", "bx", "u1", { systemMessage: { role: "system", content: "ck", timestamp: 5 } }),
  edit("n1", "c1", "bs", null),
  edit("n2", "n1", "bx", null),
  user("u2", "n2"),
  edit("n3", "u2", "c1", null),
);

// Null or missing content, per role.
clock = 0;
SESSIONS["null content"] = chain(
  message("un", null, { role: "user", content: null, timestamp: 1 }),
  message("um", "un", { role: "user", timestamp: 1 }),
  message("an", "um", { role: "assistant", content: null, provider: "p", model: "m", timestamp: 1 }),
  message("am", "an", { role: "assistant", provider: "p", model: "m", timestamp: 1 }),
  message("tn", "am", { role: "toolResult", toolCallId: "c", content: null, timestamp: 1 }),
  message("tm", "tn", { role: "toolResult", toolCallId: "c", timestamp: 1 }),
  message("sn", "tm", { role: "system", content: null, timestamp: 1 }),
  message("sm", "sn", { role: "system", sections: { x: "y" } }),
  message("cn", "sm", { role: "custom", customType: "c", content: null, timestamp: 1 }),
  message("bn", "cn", { role: "bashExecution", command: "x", timestamp: 1 }),
  custom("kn", "bn", { content: null }),
  custom("km", "kn", {}),
  edit("e1", "km", "um", { content: "edited missing" }),
  edit("e2", "e1", "km", { content: "edited custom" }),
);

// System replay edges: timestamps null then missing, tools re-added after a
// removal, integer-like section names, usage entries that never set the model.
clock = 0;
SESSIONS["system replay"] = chain(
  assistant("a0", null),
  system("s1", "a0", { content: "one", timestamp: null, sections: { b: "1", a: "2" } }),
  usage("g1", "s1"),
  system("s2", "g1", { content: [{ type: "text" }, { type: "text", text: "two" }], sections: { b: null, 3: "x" } }),
  system("s3", "s2", { content: "", toolsAdded: [{ name: "x" }, { name: "y" }], timestamp: 9 }),
  system("s4", "s3", {
    toolsRemoved: [{ name: "x" }],
    toolsAdded: [
      { name: "x", again: true },
      { name: "y", v: 2 },
    ],
    sections: { b: "back" },
  }),
  usage("g2", "s4"),
);

function sources(entries) {
  const text = jsonl(entries);
  return { text, bytes: new TextEncoder().encode(text), array: structuredClone(entries) };
}

function leaves(entries) {
  return [undefined, null, "unknown", ...entries.slice(1).map((e) => e.id)];
}

const stringify = (v) => (v === undefined ? "undefined" : JSON.stringify(v));

function piSide(entries, leaf) {
  const projection = pi.buildSessionProjection(entries, leaf);
  return {
    context: stringify(pi.buildSessionContext(entries, leaf)),
    contextEntries: stringify(pi.buildContextEntries(entries, leaf)),
    projection: stringify(projection),
    system: stringify(getCurrentSystemMessage(projection.messages)),
  };
}

for (const [name, entries] of Object.entries(SESSIONS)) {
  test(`${name}: the same as pi 1.6.0 at every leaf, from text, bytes and arrays`, () => {
    const piEntries = pi.parseSessionEntries(jsonl(entries));
    pi.migrateSessionEntries(piEntries);
    for (const leaf of leaves(entries)) {
      const expected = piSide(piEntries, leaf);
      for (const [form, source] of Object.entries(sources(entries))) {
        const at = `${name}, ${form}, leaf ${leaf}`;
        assert.equal(stringify(buildSessionContext(source, leaf)), expected.context, `context: ${at}`);
        assert.equal(stringify(buildContextEntries(source, leaf)), expected.contextEntries, `entries: ${at}`);
        assert.equal(stringify(buildSessionProjection(source, leaf)), expected.projection, `projection: ${at}`);
        assert.equal(stringify(currentSystemMessage(source, leaf)), expected.system, `system: ${at}`);
      }
    }
  });
}

test("§2.7: the worked example gives what the note says", () => {
  const { messages, model, thinkingLevel } = buildSessionContext(jsonl(SESSIONS["worked example"]));
  assert.deepStrictEqual(
    messages.map((m) => [m.role, m.content ?? m.summary]),
    [
      ["system", "CKPT"],
      ["compactionSummary", "sum-c1"],
      ["user", "EDITED"],
      ["assistant", [{ type: "text", text: "a-edit" }]],
      ["user", "after"],
    ],
  );
  assert.deepStrictEqual(model, { provider: "p", modelId: "m" });
  assert.equal(thinkingLevel, "off");
});

test("the projection's messages are its entries' messages, the same objects", () => {
  for (const source of Object.values(sources(SESSIONS.edits))) {
    const p = buildSessionProjection(source);
    assert.deepStrictEqual(
      p.messages,
      p.entries.flatMap((e) => e.messages),
    );
    let n = 0;
    for (const e of p.entries) for (const m of e.messages) assert.equal(p.messages[n++], m);
    // A message entry's message is its own `message`, as in pi.
    const own = p.entries.find((e) => e.sourceEntry.id === "tip");
    assert.equal(own.messages[0], own.sourceEntry.message);
  }
  const array = structuredClone(SESSIONS.edits);
  const p = buildSessionProjection(array);
  for (const e of p.entries) assert.ok(array.includes(e.sourceEntry), "arrays give the caller's entries");
  assert.equal(buildContextEntries(array)[0], array[1]);
});

test("an edit whose replacement is content-less leaves undefined content, as pi's spread does", () => {
  const array = structuredClone(SESSIONS["odd replacements"]);
  for (const source of [array, jsonl(array)]) {
    const { messages } = buildSessionContext(source);
    const t1 = messages.find((m) => m.role === "toolResult");
    assert.ok(Object.hasOwn(t1, "content") && t1.content === undefined);
    assert.deepStrictEqual(Object.keys(t1), ["role", "toolCallId", "toolName", "content", "isError", "timestamp"]);
  }
});

// Where pi 1.6 throws, we do not (README, "Differences from pi").
clock = 0;
const missingReplacement = chain(
  user("u1", null),
  entry("branch_summary", "bs", "u1", tick(), { fromId: "u1", summary: "b" }),
  edit("e0", "bs", "u1", { content: "earlier edit" }),
  edit("e1", "e0", "u1"),
  edit("e2", "e1", "bs", null),
  edit("e3", "e2", "bs"),
);

test("a context_edit without replacement leaves its target as it is (pi throws a TypeError)", () => {
  assert.throws(() => pi.buildSessionContext(structuredClone(missingReplacement)), TypeError);
  for (const source of Object.values(sources(missingReplacement))) {
    // The latest edit of u1 has no replacement: u1 as stored, not "earlier edit".
    assert.deepStrictEqual(buildSessionContext(source).messages, [
      missingReplacement[1].message,
      { role: "branchSummary", summary: "b", fromId: "u1", timestamp: ms(missingReplacement[2].timestamp) },
    ]);
  }
  // Where pi does not throw (a branch summary has no content to replace), the
  // edit wins over the earlier null one there too, and we agree with pi.
  const onSummary = [
    missingReplacement[0],
    missingReplacement[1],
    missingReplacement[2],
    missingReplacement[5],
    missingReplacement[6],
  ];
  onSummary[3] = { ...onSummary[3], parentId: "bs" };
  const expected = JSON.stringify(pi.buildSessionProjection(structuredClone(onSummary)));
  assert.equal(JSON.parse(expected).messages.length, 2);
  for (const source of Object.values(sources(onSummary))) {
    assert.equal(JSON.stringify(buildSessionProjection(source)), expected);
  }
});

test("currentSystemMessage reads unreadable content as no text (pi-ai throws a TypeError)", () => {
  clock = 0;
  const odd = chain(
    system("s1", null, { content: "kept", timestamp: 1 }),
    user("u1", "s1"),
    compaction("c1", "u1", "u1", {
      systemMessage: { role: "system", content: 5, toolsAdded: [null, { name: "t" }], timestamp: 2 },
    }),
    system("s2", "c1", { content: [null, { type: "text", text: "after" }], toolsRemoved: "t", sections: "no" }),
  );
  assert.throws(() => getCurrentSystemMessage(pi.buildSessionProjection(structuredClone(odd)).messages), TypeError);
  for (const source of Object.values(sources(odd))) {
    assert.deepStrictEqual(currentSystemMessage(source), {
      role: "system",
      content: "after",
      toolsAdded: [{ name: "t" }],
      timestamp: 2,
    });
  }
});

test("currentSystemMessage: undefined without system messages, or without timestamps and tools", () => {
  clock = 0;
  const none = chain(user("u1", null), system("s1", "u1", { content: "no timestamp" }));
  assert.equal(currentSystemMessage(jsonl(none), "u1"), undefined);
  assert.equal(currentSystemMessage(jsonl(none)), undefined);
  assert.equal(currentSystemMessage(none, null), undefined);
  assert.equal(getCurrentSystemMessage(pi.buildSessionContext(structuredClone(none)).messages), undefined);
});

test("a header is no entry of the context: pi's manager holds no header", () => {
  const only = [header()];
  for (const source of Object.values(sources(only))) {
    assert.deepStrictEqual(buildContextEntries(source), pi.buildContextEntries([]));
    assert.deepStrictEqual(buildSessionProjection(source), pi.buildSessionProjection([]));
  }
  // Nor a leaf by its id, nor a parent: entries after it are read as pi's manager reads them.
  clock = 0;
  const misplaced = [header(), user("u1", null), { ...header(), id: "h2" }, user("u2", "h2")];
  const held = misplaced.filter((e) => e.type !== "session");
  for (const source of Object.values(sources(misplaced))) {
    for (const leaf of [undefined, only[0].id, "h2", "u1"]) {
      assert.equal(
        JSON.stringify(buildSessionProjection(source, leaf)),
        JSON.stringify(pi.buildSessionProjection(held, leaf)),
        `leaf ${leaf}`,
      );
    }
  }
});

test("usage entries never set the model", () => {
  const context = buildSessionContext(SESSIONS["system replay"]);
  assert.deepStrictEqual(context.model, { provider: "p", modelId: "m-a0" });
});

test("wrong argument types throw a TypeError naming the argument", () => {
  for (const fn of [buildContextEntries, buildSessionProjection, currentSystemMessage]) {
    assert.throws(
      () => fn(42),
      (e) => e instanceof TypeError && /source/.test(e.message),
      fn.name,
    );
    assert.throws(
      () => fn("", 5),
      (e) => e instanceof TypeError && /leafId/.test(e.message),
      fn.name,
    );
  }
});

// Random trees of every 1.6 entry kind (no cycles, no edit without replacement,
// only readable system content: where pi throws we differ on purpose).
function randomSession(rng) {
  const entries = [header()];
  const ids = [];
  const n = rng.range(1, 30);
  const texts = ["x", "", "日本語", "é\n"];
  const content = () =>
    rng.weighted([
      [3, rng.pick(texts)],
      [2, [{ type: "text", text: rng.pick(texts) }]],
      [1, null],
      [1, undefined],
    ]);
  for (let i = 0; i < n; i++) {
    const id = `r${i}`;
    const parentId = ids.length && rng.chance(0.9) ? rng.pick(ids.slice(-4)) : null;
    const base = { id, parentId, timestamp: at(i) };
    const kind = rng.weighted([
      [4, "user"],
      [3, "assistant"],
      [1, "toolResult"],
      [2, "system"],
      [1, "custom_message"],
      [2, "context_edit"],
      [1, "compaction"],
      [1, "usage"],
      [1, "branch_summary"],
    ]);
    let e;
    const withContent = (m) => {
      const c = content();
      return c === undefined ? m : { ...m, content: c };
    };
    if (kind === "user" || kind === "toolResult") {
      e = { type: "message", ...base, message: withContent({ role: kind, timestamp: i }) };
    } else if (kind === "assistant") {
      e = {
        type: "message",
        ...base,
        message: withContent({ role: "assistant", provider: "p", model: `m${i}`, timestamp: i }),
      };
    } else if (kind === "system") {
      const m = withContent({ role: "system" });
      if (rng.chance(0.5)) m.sections = { [rng.pick(["a", "b", "1"])]: rng.chance(0.3) ? null : `s${i}` };
      if (rng.chance(0.4)) m.toolsRemoved = [{ name: rng.pick(["t", "u"]) }];
      if (rng.chance(0.5)) m.toolsAdded = [{ name: rng.pick(["t", "u"]), v: i }];
      const t = rng.pick([i, null, undefined]);
      if (t !== undefined) m.timestamp = t;
      e = { type: "message", ...base, message: m };
    } else if (kind === "custom_message") {
      e = withContent({ type: "custom_message", ...base, customType: "c", display: true });
    } else if (kind === "context_edit") {
      const replacement = rng.pick([
        null,
        { content: "E" },
        { content: [{ type: "text", text: "E" }] },
        { content: 5 },
        {},
      ]);
      e = { type: "context_edit", ...base, targetId: rng.pick([...ids, "nowhere"]), replacement };
    } else if (kind === "compaction") {
      e = {
        type: "compaction",
        ...base,
        summary: "S",
        firstKeptEntryId: rng.pick([...ids, id, "nowhere"]),
        tokensBefore: 1,
      };
      if (rng.chance(0.6)) e.systemMessage = { role: "system", content: rng.pick(texts), timestamp: i };
    } else if (kind === "usage") {
      e = { type: "usage", ...base, kind: "k", provider: "q", model: "mu" };
    } else {
      e = { type: "branch_summary", ...base, fromId: "root", summary: rng.pick(["", "B"]) };
    }
    entries.push(e);
    ids.push(id);
  }
  return entries;
}

test("random 1.6 sessions: the same as pi 1.6.0 at every leaf", () => {
  const seed = envSeed("CONTEXT_SEED");
  for (let k = 0; k < 150; k++) {
    const rng = new Rng(caseSeed(seed, k));
    const entries = randomSession(rng);
    const text = jsonl(entries);
    const piEntries = pi.parseSessionEntries(text).slice(1);
    for (const leaf of [undefined, null, ...entries.slice(1).map((e) => e.id)]) {
      const expected = piSide(piEntries, leaf);
      const where = `CONTEXT_SEED=${seed} case ${k}, leaf ${leaf}`;
      for (const source of [text, structuredClone(entries)]) {
        assert.equal(stringify(buildSessionContext(source, leaf)), expected.context, where);
        assert.equal(stringify(buildContextEntries(source, leaf)), expected.contextEntries, where);
        assert.equal(stringify(buildSessionProjection(source, leaf)), expected.projection, where);
        assert.equal(stringify(currentSystemMessage(source, leaf)), expected.system, where);
      }
    }
  }
});
