// Hostile bytes and values: every function must read them exactly as JSON.parse / pi does,
// and nothing may leak into Object.prototype.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSessionContext, getTree, inspectSession, migrate, parseSession, Session } from "session-tree";
import {
  parseSessionEntries,
  buildSessionContext as piContext,
  piLoad,
  piText,
  piTree,
  SessionManager,
} from "../shared/pi.mjs";

const J = JSON.stringify;
const H3 = J({ type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" });
const H1 = J({ type: "session", id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" });

/** parseSession equals pi's parseSessionEntries (by JSON.stringify, key order included). */
function sameAsPi(source, what) {
  assert.equal(J(parseSession(source)), J(parseSessionEntries(piText(source))), what);
}
/** getTree and buildSessionContext equal pi's on a file without cycles (pi runs in-process). */
function treeAndContextAsPi(source, what) {
  // Without a header first, pi re-identifies every entry (a documented difference): skip.
  if (parseSession(source)[0]?.type !== "session") return;
  const entries = piLoad(source);
  assert.equal(J(buildSessionContext(source)), J(piContext(entries)), `${what}: context`);
  const strip = (nodes) => J(nodes, (_k, v) => v);
  assert.equal(strip(getTree(source)), strip(piTree(piLoad(source))), `${what}: tree`);
}

test("invalid UTF-8 bytes decode as TextDecoder does, in every function", () => {
  const cases = [
    [0xff],
    [0xfe],
    [0xc0, 0x80],
    [0xc3],
    [0xe2, 0x82],
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xf0, 0x9f, 0x98],
    [0xf4, 0x90, 0x80, 0x80],
    [0xf8, 0x88, 0x80, 0x80, 0x80],
    [0x80, 0x80],
    [0xe0, 0x80, 0xaf],
    [0xc3, 0x28],
    [0xf0, 0x28, 0x8c, 0xbc],
  ];
  for (const bad of cases) {
    const prefix = Buffer.from(
      `${H3}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"<`,
    );
    const suffix = Buffer.from('>"}}\n');
    const bytes = new Uint8Array(Buffer.concat([prefix, Buffer.from(bad), suffix]));
    const decoded = new TextDecoder().decode(bytes);
    const what = bad.map((b) => b.toString(16)).join(" ");
    assert.equal(J(parseSession(bytes)), J(parseSession(decoded)), what);
    assert.equal(parseSession(bytes)[1].message.content, JSON.parse(decoded.split("\n")[1]).message.content, what);
    sameAsPi(bytes, what);
    assert.equal(
      buildSessionContext(bytes).messages[0].content,
      JSON.parse(decoded.split("\n")[1]).message.content,
      what,
    );
    assert.equal(getTree(bytes)[0].entry.message.content, JSON.parse(decoded.split("\n")[1]).message.content, what);
    assert.equal(inspectSession(bytes)[0].kind, "invalid-utf8", what);
    assert.deepStrictEqual(migrate(bytes), bytes, `${what}: a v3 file's bytes come back as they are`);
    assert.equal(migrate(decoded), decoded, `${what}: its decoded text comes back as it is`);
  }
  // Invalid bytes outside strings make the line malformed, as JSON.parse of the decoded text does.
  const outside = new Uint8Array(
    Buffer.concat([Buffer.from(`${H3}\n{"type":"message",`), Buffer.from([0xff]), Buffer.from('"id":"a"}\n')]),
  );
  sameAsPi(outside, "outside a string");
  assert.equal(parseSession(outside).length, 1);
  // A view into a larger buffer: only its own bytes count.
  const big = Buffer.from(`xxxx${H3}\nyyyy`);
  assert.equal(J(parseSession(big.subarray(4, 4 + H3.length))), J([JSON.parse(H3)]));
});

test("CRLF, CR alone, NUL bytes, U+2028 and friends", () => {
  const m = (id, extra = "") =>
    `{"type":"message","id":"${id}","parentId":null,"message":{"role":"user","content":"c${extra}"}}`;
  const cases = {
    crlf: `${H3}\r\n${m("a")}\r\n${m("b")}\r\n`,
    "cr only": `${H3}\r${m("a")}\r${m("b")}`,
    "mixed ends": `${H3}\r\n${m("a")}\n\r\n${m("b")}\r`,
    "nul inside string": `${H3}\n${m("a", "\0")}\n`,
    "nul escaped": `${H3}\n${m("a", "\\u0000")}\n`,
    "nul between lines": `${H3}\n\0\n${m("a")}\0\n\0${m("b")}`,
    "nul as whole file": "\0\0\0",
    "u2028 inside string": `${H3}\n${m("a", "\u2028\u2029")}\n`,
    "u2028 as line separator": `${H3}\u2028${m("a")}\u2029${m("b")}`,
    "nbsp and bom padding": `\u00a0\ufeff${H3}\n\ufeff${m("a")}\n${m("b")}\u3000`,
    "vertical tab and form feed": `\v${H3}\f\n${m("a")}\n`,
  };
  for (const [what, t] of Object.entries(cases)) {
    sameAsPi(t, what);
    sameAsPi(Buffer.from(t), `${what} (bytes)`);
    treeAndContextAsPi(t, what);
    assert.ok(Array.isArray(inspectSession(t)));
  }
});

test("numbers: beyond 2^53, -0, 1e400, tiny and long forms, exactly as JSON.parse", () => {
  const nums = [
    "9007199254740993",
    "-9007199254740993",
    "18446744073709551617",
    "1e400",
    "-1e400",
    "1e-400",
    "-0",
    "-0.0",
    "0e10",
    "1E+2",
    "123456789012345678901234567890",
    "0.1000000000000000055511151231257827",
    "2.2250738585072014e-308",
    "4.9e-324",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
  ];
  for (const n of nums) {
    const t = `${H3}\n{"type":"message","id":"a","parentId":null,"n":${n},"message":{"role":"user","content":${n},"timestamp":${n}}}\n`;
    sameAsPi(t, n);
    const [, e] = parseSession(t);
    assert.ok(Object.is(e.n, JSON.parse(n)), `${n}: ${e.n}`);
    const ctx = buildSessionContext(t);
    assert.ok(Object.is(ctx.messages[0].content, JSON.parse(n)), `${n} in context`);
    assert.ok(Object.is(getTree(t)[0].entry.n, JSON.parse(n)), `${n} in tree`);
  }
  // Numbers as timestamps: new Date(n).getTime() (NaN beyond the Date range).
  for (const n of ["1e400", "-0", "8.64e15", "8.640000000000001e15", "1735689600000.9"]) {
    const t = `${H3}\n{"type":"custom_message","id":"a","parentId":null,"timestamp":${n},"customType":"x","content":"c","display":true}\n`;
    const got = buildSessionContext(t).messages[0].timestamp;
    assert.ok(Object.is(got, new Date(JSON.parse(n)).getTime()), `${n}: ${got}`);
  }
  // Numbers survive a v1 migration byte for byte.
  const v1 = `${H1}\n{"type":"message","n":9007199254740993,"z":-0,"big":1e400,"message":{"role":"user","content":"x"}}\n`;
  assert.match(migrate(v1), /"n":9007199254740993,"z":-0,"big":1e400,/);
});

test("lone surrogate escapes and lone surrogate characters", () => {
  const t = `${H3}\n{"type":"message","id":"\\ud800","parentId":null,"message":{"role":"user","content":"a\\udc00b\\ud83d\\ude00\\ud83d"}}\n{"type":"message","id":"x","parentId":"\\ud800","message":{"role":"user","content":"child"}}\n`;
  sameAsPi(t, "escapes");
  treeAndContextAsPi(t, "escapes");
  const [, e] = parseSession(t);
  assert.equal(e.id, "\ud800");
  assert.equal(e.message.content, "a\udc00b\ud83d\ude00\ud83d");
  assert.equal(buildSessionContext(t, "x").messages.length, 2, "a lone-surrogate id is a working parent id");
  // A JS string holding lone surrogate characters (not escapes), inside and outside JSON strings.
  const raw = `${H3}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"\ud800 \udfff"}}\n\ud800{"x":1}\n`;
  sameAsPi(raw, "raw surrogates");
  assert.equal(parseSession(raw)[1].message.content, "\ud800 \udfff");
});

test("a lone-surrogate id is found by its own string, never by U+FFFD (leafId, Session lookups)", () => {
  const t = `${H3}\n{"type":"message","id":"\\ud800","parentId":null,"message":{"role":"user","content":"first"}}\n{"type":"message","id":"\\ufffd","parentId":null,"message":{"role":"user","content":"fffd"}}\n{"type":"message","id":"x","parentId":null,"message":{"role":"user","content":"last"}}\n`;
  const entries = parseSessionEntries(t);
  for (const leaf of ["\ud800", "\ufffd", "\udc00"]) {
    assert.equal(J(buildSessionContext(t, leaf)), J(piContext(entries, leaf)), `text, leaf ${J(leaf)}`);
    assert.equal(J(buildSessionContext(parseSession(t), leaf)), J(piContext(entries, leaf)), `array, leaf ${J(leaf)}`);
  }
  const s = Session.open(t);
  try {
    assert.equal(s.getEntry("\ud800")?.message.content, "first");
    assert.equal(s.getEntry("\udc00"), undefined);
    s.branch("\ud800");
    assert.equal(s.leafId, "\ud800");
  } finally {
    s.free();
  }
});

test("a lone-surrogate id is a string id: inspectSession, createBranchedSession's labels, v1 migration", () => {
  const at = (n) => `"timestamp":"2025-01-01T00:00:0${n}.000Z"`;
  const msg = (id, parent, n) =>
    `{"type":"message","id":"${id}","parentId":${parent},${at(n)},"message":{"role":"user","content":"m${n}"}}`;
  // A clean file says nothing; the checks on string ids find what they find on ASCII ones.
  assert.deepEqual(inspectSession(`${H3}\n${msg("a\\ud800", "null", 1)}\n${msg("b", '"a\\ud800"', 2)}\n`), []);
  const broken = [
    H3,
    msg("a\\ud800", "null", 1),
    msg("a\\ud800", "null", 2),
    `{"type":"branch_summary","id":"bs","parentId":null,${at(3)},"fromId":"gone\\udc00","summary":"s"}`,
    `{"type":"compaction","id":"c","parentId":null,${at(4)},"firstKeptEntryId":"gone\\udc00","summary":"s","tokensBefore":1}`,
  ].join("\n");
  assert.deepEqual(
    inspectSession(broken).map((d) => [d.kind, d.line]),
    [
      ["duplicate-id", 3],
      ["missing-branch-source", 4],
      ["missing-first-kept-entry", 5],
    ],
  );

  // pi re-adds the path's labels after its last entry: `last?.id || null`.
  const labelled = `${H3}\n${msg("a", "null", 1)}\n{"type":"label","id":"l","parentId":"a",${at(2)},"targetId":"a","label":"L"}\n${msg("b\\ud800", '"l"', 3)}\n`;
  const sm = SessionManager.inMemory("/tmp");
  sm.fileEntries = parseSessionEntries(labelled);
  sm._buildIndex();
  sm.createBranchedSession("b\ud800");
  const piLabel = sm.fileEntries.at(-1);
  const s = Session.open(labelled);
  try {
    const ours = parseSession(s.createBranchedSession("b\ud800")).at(-1);
    assert.equal(ours.type, "label");
    assert.equal(ours.parentId, piLabel.parentId);
    assert.equal(ours.parentId, "b\ud800");
  } finally {
    s.free();
  }

  // v1: string ids are kept (a README difference), a lone surrogate's too; the next entry's
  // parent and a compaction's kept entry name it exactly, in text, arrays and streams.
  const v1 = `${H1}\n{"type":"message","id":"k\\ud800",${at(1)},"message":{"role":"user","content":"k"}}\n{"type":"message",${at(2)},"message":{"role":"user","content":"n"}}\n{"type":"compaction",${at(3)},"summary":"s","firstKeptEntryIndex":1,"tokensBefore":1}\n`;
  const check = (entries, what) => {
    const [, k, n, c] = entries;
    assert.deepEqual([k.id, k.parentId, n.parentId, c.firstKeptEntryId], ["k\ud800", null, "k\ud800", "k\ud800"], what);
  };
  check(parseSession(migrate(v1)), "text");
  check(parseSession(migrate(Buffer.from(v1))), "bytes");
  const array = parseSession(v1);
  migrate(array);
  check(array, "array");
  const chunks = [];
  const bytes = Buffer.from(v1);
  migrate(
    { size: bytes.length, read: (o, l) => bytes.subarray(o, o + l) },
    { write: (b) => chunks.push(Buffer.from(b)) },
  );
  check(parseSession(Buffer.concat(chunks)), "stream");
});

test("__proto__ and constructor keys: own properties, as JSON.parse; Object.prototype untouched", () => {
  const evil = `{"__proto__":{"polluted":"yes","toString":1},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}`;
  const t = [
    H1.replace("{", `{"__proto__":{"polluted":"header"},`),
    `{"type":"message","__proto__":{"polluted":1},"message":{"role":"user","content":${evil},"__proto__":{"polluted":2}}}`,
    `{"type":"thinking_level_change","thinkingLevel":"__proto__","constructor":{"polluted":3}}`,
    `{"type":"custom_message","customType":"__proto__","content":${evil},"details":${evil},"display":true}`,
    `{"type":"compaction","summary":${evil},"tokensBefore":{"__proto__":{"polluted":4}},"firstKeptEntryIndex":1}`,
    `{"type":"model_change","provider":"__proto__","modelId":"constructor"}`,
    `{"type":"message","message":{"role":"assistant","provider":"__proto__","model":"constructor","content":[]}}`,
    `{"type":"label","targetId":"__proto__","label":"constructor"}`,
  ].join("\n");
  const check = () => {
    assert.equal({}.polluted, undefined);
    assert.equal(Object.prototype.polluted, undefined);
    assert.equal(typeof {}.toString, "function");
    assert.equal(Object.getOwnPropertyNames(Object.prototype).includes("polluted"), false);
  };
  sameAsPi(t, "proto keys");
  const parsed = parseSession(t);
  const expected = t.split("\n").map((l) => JSON.parse(l));
  assert.equal(J(parsed), J(expected));
  assert.ok(Object.hasOwn(parsed[1], "__proto__"));
  assert.equal(Object.getPrototypeOf(parsed[1]), Object.prototype);
  assert.equal(parsed[1].polluted, undefined);
  assert.ok(Object.hasOwn(parsed[1].message.content, "constructor"));
  check();
  // Every function, then compare with pi (the file has no cycles) and check again.
  const migratedText = migrate(t);
  const noIds = (list) =>
    J(list.map((e) => ({ ...e, id: undefined, parentId: undefined, firstKeptEntryId: e.firstKeptEntryId && "<id>" })));
  assert.equal(noIds(parseSession(migratedText)), noIds(piLoad(t)));
  const entries = parseSession(t);
  assert.equal(migrate(entries), true);
  check();
  const ctx = buildSessionContext(migratedText);
  assert.equal(J(ctx), J(piContext(parseSession(migratedText))));
  assert.ok(Object.hasOwn(ctx.messages.find((m) => m.role === "user").content, "__proto__"));
  assert.ok(Object.hasOwn(ctx.messages.find((m) => m.role === "compactionSummary").summary, "__proto__"));
  assert.equal(J(buildSessionContext(entries)), J(piContext(entries)));
  check();
  const tree = getTree(migratedText);
  assert.equal(J(tree), J(piTree(parseSession(migratedText))));
  check();
  const s = Session.open(t);
  s.appendMessage({ role: "user", content: JSON.parse(evil), timestamp: 1 });
  s.appendCustomEntry("__proto__", JSON.parse(evil));
  assert.equal(J(s.buildSessionContext()), J(piContext(s.getEntries())));
  assert.ok(s.toJsonl().includes('"__proto__":{"polluted":"yes"'));
  s.free();
  inspectSession(t);
  check();
});

test("deep nesting: 1,000, 10,000, 100,000 and 1,000,000 levels, as JSON.parse", () => {
  for (const depth of [1_000, 10_000, 100_000, 1_000_000]) {
    const nested = "[".repeat(depth) + "]".repeat(depth);
    const obj = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    for (const [name, value] of [
      ["array", nested],
      ["object", obj],
    ]) {
      const t = `${H3}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":${value}}}\n{"type":"custom","id":"b","parentId":"a"}\n`;
      let piResult;
      try {
        piResult = parseSessionEntries(t).length;
      } catch (e) {
        piResult = `throws ${e.constructor.name}`;
      }
      const ours = parseSession(t);
      assert.equal(ours.length, piResult, `${name} ${depth}`);
      // The other functions must not overflow either.
      assert.equal(buildSessionContext(t).messages.length, ours.length === 3 ? 1 : 0, `${name} ${depth}: context`);
      assert.equal(getTree(t).length, 1, `${name} ${depth}: tree`);
      // Read by piece, with the previews the index pass writes (the value kept whole,
      // or walked down a path that goes on past it).
      const bytes = Buffer.from(t);
      const source = { size: bytes.length, read: (at, n) => bytes.subarray(at, at + n) };
      const [root] = getTree(source, {
        pieceSize: 4096,
        preview: ["message.content.text"],
        detail: { preview: ["message.content"], where: { "message.role": ["user"] } },
      });
      let levels = 0;
      for (let v = root.preview.message.content; Array.isArray(v); v = v[0]) levels++;
      if (name === "array") assert.equal(levels, depth, `${name} ${depth}: preview`);
      else assert.deepEqual(root.preview.message.content, {}, `${name} ${depth}: preview`);
      assert.equal(root.detail.length, value.length + '{"message":{"content":}}'.length, `${name} ${depth}: detail`);
      assert.ok(Array.isArray(inspectSession(t)));
      assert.equal(typeof migrate(t.replace(H3, H1)), "string");
      assert.equal(
        parseSession(`${H3}\n${nested.slice(0, -1)}\n`).length,
        1,
        `${name} ${depth}: unbalanced is malformed`,
      );
    }
  }
});

test("nesting inside the header, ids and parentIds that are objects or arrays", () => {
  const t = [
    `{"type":"session","version":{"v":[3]},"id":[1]}`,
    `{"type":"message","id":{"x":1},"parentId":[null],"message":{"role":"user","content":"o"}}`,
    `{"type":"message","id":"b","parentId":{"x":1},"message":{"role":"user","content":"b"}}`,
  ].join("\n");
  sameAsPi(t, "object ids");
  treeAndContextAsPi(t, "object ids");
  assert.ok(Array.isArray(inspectSession(t)));
});
