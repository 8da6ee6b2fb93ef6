// parseSession: pi's parseSessionEntries rules. The reference for every line
// is JSON.parse of that line (after pi's whole-text trim and "\n" split);
// bytes are decoded as TextDecoder does.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSession } from "session-tree";
import { assistant, header, inputForms, jsonl, user } from "./helpers/session.mjs";

/** pi's rule, restated: trim the text, split on "\n", skip blank and unparsable lines. */
function reference(text) {
  const out = [];
  for (const line of text.trim().split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // skipped
    }
  }
  return out;
}

function assertSameAsJsonParse(actual, expected, label) {
  assert.deepStrictEqual(actual, expected, label);
  // Key order too (deepStrictEqual ignores it).
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${label}: key order`);
}

const session = [
  header(),
  user("u1", null, "hello", 1),
  assistant("a1", "u1", "hi", 2),
  { type: "label", id: "l1", parentId: "a1", timestamp: "2025-01-02T03:00:03.000Z", targetId: "u1", label: "start" },
];

test("every input form parses to the same entries", () => {
  for (const [form, source] of Object.entries(inputForms(session))) {
    const expected = form === "array without header" ? session.slice(1) : session;
    assert.deepStrictEqual(parseSession(source), expected, form);
    assert.deepStrictEqual(parseSession(source, {}), expected, `${form} with {}`);
    assert.deepStrictEqual(parseSession(source, { strict: true }), expected, `${form} strict`);
  }
});

test("parsing an array does not modify it", () => {
  const input = structuredClone(session);
  parseSession(input);
  assert.deepStrictEqual(input, session);
});

test("blank and malformed lines are skipped", () => {
  const text = [
    "",
    "   ",
    JSON.stringify(session[0]),
    "{not json",
    "\t",
    JSON.stringify(session[1]),
    '{"type":"message",',
    "}",
    JSON.stringify(session[2]),
    "",
    "",
  ].join("\n");
  assert.deepStrictEqual(parseSession(text), session.slice(0, 3));
  assert.deepStrictEqual(parseSession(""), []);
  assert.deepStrictEqual(parseSession("\n\n  \n"), []);
  assert.deepStrictEqual(parseSession(new Uint8Array(0)), []);
});

test("any JSON value on a line is kept, as pi keeps it", () => {
  const text = '1\nnull\n"text"\n[1,2]\ntrue\n{"a":1}\n';
  assert.deepStrictEqual(parseSession(text), reference(text));
});

test("falsy values and Unicode whitespace at the ends are kept as pi 1.6's parseSessionEntries keeps them", () => {
  // pi 1.6's file loader reads these differently (it skips falsy lines and does not trim); its
  // string parser, which parseSession is, did not change. The README's differences table says
  // what the other functions do.
  const text = `\u00a0\u2028${jsonl(session.slice(0, 2))}null\nfalse\n0\n""\n${JSON.stringify(session[2])}\u00a0`;
  const expected = [session[0], session[1], null, false, 0, "", session[2]];
  assert.deepStrictEqual(parseSession(text), expected);
  assert.deepStrictEqual(parseSession(Buffer.from(text)), expected);
  assert.deepStrictEqual(reference(text), expected);
});

test("CRLF line ends and a BOM are accepted", () => {
  const text = jsonl(session).replace(/\n/g, "\r\n");
  assert.deepStrictEqual(parseSession(text), session, "CRLF string");
  assert.deepStrictEqual(parseSession(Buffer.from(text)), session, "CRLF bytes");
  assert.deepStrictEqual(parseSession(`\uFEFF${jsonl(session)}`), session, "BOM string");
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jsonl(session))]);
  assert.deepStrictEqual(parseSession(bom), session, "BOM bytes");
  assert.deepStrictEqual(parseSession(bom, { strict: true }), session, "BOM bytes strict");
});

test("tricky lines behave exactly as JSON.parse", () => {
  const lines = [
    '{"big":9007199254740993,"neg":-9007199254740993,"huge":123456789012345678901234567890}',
    '{"negZero":-0,"negZeroFloat":-0.0,"arr":[-0,0]}',
    '{"inf":1e400,"negInf":-1e400,"tiny":1e-400,"exp":1E+2,"frac":0.1}',
    '{"lone":"\\ud800","loneLow":"\\udc00x","pair":"\\ud83d\\ude00","nul":"\\u0000"}',
    '{"__proto__":{"polluted":true},"a":1}',
    '{"nested":{"__proto__":[1,2]},"constructor":{"prototype":{"polluted":true}}}',
    '{"dup":1,"other":2,"dup":3}',
    '{"b":1,"2":"two","1":"one","a":2}',
    '{"ls":"\u2028\u2029","emoji":"😀","esc":"\\"\\\\\\/\\b\\f\\n\\r\\t"}',
    '  \t{"padded":true}\t  ',
    '{"s":"\\u00e9\\u4e2d"}',
    "[]",
    '{"deep":[[[[[[[[[[{"x":[[[]]]}]]]]]]]]]]}',
  ];
  const text = lines.join("\n");
  const expected = reference(text);
  assert.equal(expected.length, lines.length);
  const actual = parseSession(text);
  assert.equal(actual.length, lines.length);
  for (let i = 0; i < lines.length; i++) {
    assertSameAsJsonParse(actual[i], expected[i], `line ${i + 1}: ${lines[i]}`);
  }
  // Spot checks of what JSON.parse gives, so a broken reference is noticed.
  assert.equal(actual[0].big, 9007199254740992);
  assert.ok(Object.is(actual[1].negZero, -0), "-0 stays -0");
  assert.equal(actual[2].inf, Infinity);
  assert.equal(actual[3].lone, "\ud800");
  assert.ok(Object.hasOwn(actual[4], "__proto__"), "__proto__ is an own property");
  assert.equal(Object.getPrototypeOf(actual[4]), Object.prototype);
  assert.equal(actual[4].polluted, undefined);
  assert.equal({}.polluted, undefined, "Object.prototype untouched");
  assert.equal(Object.prototype.polluted, undefined);
  assert.deepEqual(Object.keys(actual[6]), ["dup", "other"]);
  assert.equal(actual[6].dup, 3);
});

test("lines that JSON.parse rejects are skipped", () => {
  const lines = [
    "{'single':1}",
    '{"trailing":1,}',
    "{a:1}",
    "NaN",
    "01",
    '{"x":1} {"y":2}',
    '"\\x41"',
    '{"ctl":"\u0001"}',
    "\u00a0{}",
    "{}\u00a0",
    "\uFEFF{}",
    "undefined",
    '{"ok":true}',
  ];
  const text = `{}\n${lines.join("\n")}`;
  assert.deepStrictEqual(parseSession(text), reference(text));
  assert.deepStrictEqual(reference(text), [{}, { ok: true }]);
});

test("invalid UTF-8 is decoded as TextDecoder does (U+FFFD)", () => {
  const cases = [
    [0xff],
    [0xc0, 0x80],
    [0xed, 0xa0, 0x80],
    [0xe2, 0x82],
    [0xf0, 0x9f, 0x98],
    [0x80, 0xbf],
    [0xf4, 0x90, 0x80, 0x80],
    [0xe2, 0x82, 0xac],
  ];
  for (const bad of cases) {
    const bytes = Buffer.concat([Buffer.from('{"type":"custom","text":"a'), Buffer.from(bad), Buffer.from('b"}\n')]);
    const expected = reference(new TextDecoder().decode(bytes));
    assert.equal(expected.length, 1);
    assert.deepStrictEqual(parseSession(bytes), expected, `bytes ${bad.map((b) => b.toString(16)).join(" ")}`);
  }
  // Invalid bytes at the very end, after the last line.
  const tail = Buffer.concat([Buffer.from('{"a":1}\n'), Buffer.from([0xe2, 0x82])]);
  assert.deepStrictEqual(parseSession(tail), [{ a: 1 }]);
});

test("strict mode throws at the first malformed line, naming its number", () => {
  const text = [JSON.stringify(session[0]), "", "{oops", JSON.stringify(session[1]), "also bad"].join("\n");
  assert.throws(
    () => parseSession(text, { strict: true }),
    (error) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /\bline\b/i);
      assert.match(error.message, /\b3\b/, "line 3 is the first malformed one (blank lines count)");
      assert.doesNotMatch(error.message, /\b5\b/);
      return true;
    },
  );
  assert.throws(() => parseSession(Buffer.from(text.replace(/\n/g, "\r\n")), { strict: true }), /\b3\b/);
  assert.throws(() => parseSession('{"a":1}\n[1,}', { strict: true }), /\b2\b/);
  // Not strict: the same text parses.
  assert.deepStrictEqual(parseSession(text), session.slice(0, 2));
  assert.deepStrictEqual(parseSession(text, { strict: false }), session.slice(0, 2));
  // After the error the module still works.
  assert.deepStrictEqual(parseSession(jsonl(session), { strict: true }), session);
});

test("wrong argument types throw a TypeError naming the argument", () => {
  for (const bad of [42, null, undefined, {}, true, Symbol("s"), new ArrayBuffer(4), () => {}]) {
    assert.throws(
      () => parseSession(bad),
      (error) => error instanceof TypeError && /source/.test(error.message),
      `source ${String(bad?.toString?.() ?? bad)}`,
    );
  }
  for (const bad of [42, "strict", true]) {
    assert.throws(
      () => parseSession("", bad),
      (error) => error instanceof TypeError && /options/.test(error.message),
      `options ${String(bad)}`,
    );
  }
  assert.deepStrictEqual(parseSession(jsonl(session)), session, "still works afterwards");
});

test("very deep nesting parses like JSON.parse", () => {
  const depth = 100_000;
  const [value] = parseSession(`${"[".repeat(depth) + "]".repeat(depth)}\n${"{".repeat(3)}`);
  let level = 0;
  for (let node = value; Array.isArray(node); node = node[0]) level++;
  assert.equal(level, depth);
  assert.throws(() => parseSession(`{}\n${"[".repeat(depth)}`, { strict: true }), /\b2\b/);
  assert.deepStrictEqual(parseSession('{"a":1}'), [{ a: 1 }], "still works");
});

test("countEntries counts what parseSession returns, without building it", async () => {
  const { countEntries } = await import("session-tree");
  const texts = [
    "",
    "\n\n",
    '{"type":"session"}\n{"a":1}\r\n\n{broken\n42\n[1,2]\n"x"\nnull\n',
    '\ufeff{"a":1}\n{"b":"\\ud800"}\n{"c":1e400}\n{"d":{"e":[[[[]]]]}}',
    "{}\n".repeat(1000),
  ];
  for (const text of texts) {
    assert.equal(countEntries(text), parseSession(text).length, JSON.stringify(text.slice(0, 40)));
    assert.equal(countEntries(Buffer.from(text)), parseSession(Buffer.from(text)).length);
  }
  assert.equal(countEntries([{}, {}, 1]), 3);
  assert.throws(() => countEntries(42), TypeError);
});
