// migrate: pi's v1 -> v2 -> v3 migration (migrateSessionEntries), on entry
// arrays (in place) and on text (migrated JSONL; v3 text comes back as is).

import assert from "node:assert/strict";
import { test } from "node:test";
import { migrate, parseSession } from "session-tree";
import { at, jsonl, memorySource } from "./helpers/session.mjs";

const HEX8 = /^[0-9a-f]{8}$/;

const v1Header = { type: "session", id: "sess-v1", timestamp: at(0), cwd: "/p" };
const v1Entries = () => [
  structuredClone(v1Header),
  { type: "message", timestamp: at(1), message: { role: "user", content: "one", timestamp: 1 } },
  {
    type: "message",
    timestamp: at(2),
    message: { role: "assistant", content: [], provider: "p", model: "m", timestamp: 2 },
  },
  { type: "thinking_level_change", timestamp: at(3), thinkingLevel: "high" },
  {
    type: "message",
    timestamp: at(4),
    message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 4 },
  },
  // firstKeptEntryIndex counts the header: index 2 is the assistant message.
  { type: "compaction", timestamp: at(5), summary: "S", firstKeptEntryIndex: 2, tokensBefore: 100 },
  { type: "model_change", timestamp: at(6), provider: "p2", modelId: "m2" },
];

/** Checks the v1 -> v3 rules on migrated entries (header first). */
function checkV1Migrated(entries, original) {
  assert.equal(entries.length, original.length);
  assert.deepStrictEqual(entries[0], { ...v1Header, version: 3 });
  const ids = entries.slice(1).map((e) => e.id);
  for (const id of ids) assert.match(id, HEX8);
  assert.equal(new Set(ids).size, ids.length, "ids are unique");
  for (const [i, e] of entries.slice(1).entries()) {
    assert.equal(e.parentId, i === 0 ? null : ids[i - 1], `parentId of entry ${i + 1}`);
  }
  // Everything else is unchanged, apart from the two renames.
  const strip = ({ id, parentId, ...rest }) => rest;
  assert.deepStrictEqual(strip(entries[1]), original[1]);
  assert.deepStrictEqual(strip(entries[2]), original[2]);
  assert.deepStrictEqual(strip(entries[3]), original[3]);
  assert.deepStrictEqual(strip(entries[4]), { ...original[4], message: { ...original[4].message, role: "custom" } });
  const { firstKeptEntryIndex, ...compaction } = original[5];
  assert.deepStrictEqual(strip(entries[5]), { ...compaction, firstKeptEntryId: ids[1] });
  assert.ok(!("firstKeptEntryIndex" in entries[5]));
  assert.deepStrictEqual(strip(entries[6]), original[6]);
  return ids;
}

test("v1 entry array: migrated in place", () => {
  const original = v1Entries();
  const entries = v1Entries();
  const objects = [...entries];
  assert.equal(migrate(entries), true);
  for (const [i, e] of entries.entries()) assert.equal(e, objects[i], `entry ${i} is the same object`);
  checkV1Migrated(entries, original);
  // Migrating again changes nothing.
  const snapshot = structuredClone(entries);
  assert.equal(migrate(entries), false);
  assert.deepStrictEqual(entries, snapshot);
});

test("v1 text: migrated JSONL with new properties appended", () => {
  const original = v1Entries();
  const text = jsonl(original);
  for (const source of [text, Buffer.from(text), new TextEncoder().encode(text)]) {
    const migrated = migrate(source);
    // Bytes come back as bytes (a plain Uint8Array, not a Buffer), strings as strings.
    if (typeof source === "string") assert.equal(typeof migrated, "string");
    else assert.equal(Object.prototype.toString.call(migrated), "[object Uint8Array]");
    if (typeof source !== "string") assert.ok(!Buffer.isBuffer(migrated));
    const out = typeof migrated === "string" ? migrated : new TextDecoder().decode(migrated);
    assert.ok(out.endsWith("\n"));
    const lines = out.split("\n").slice(0, -1);
    const entries = lines.map((line) => JSON.parse(line));
    const ids = checkV1Migrated(entries, original);
    // Serialised like JSON.stringify of the migrated objects: existing keys
    // keep their order, version/id/parentId/firstKeptEntryId are appended.
    assert.equal(lines[0], JSON.stringify({ ...v1Header, version: 3 }));
    assert.equal(lines[1], JSON.stringify({ ...original[1], id: ids[0], parentId: null }));
    const { firstKeptEntryIndex, ...compaction } = original[5];
    assert.equal(lines[5], JSON.stringify({ ...compaction, id: ids[4], parentId: ids[3], firstKeptEntryId: ids[1] }));
  }
});

test("v1: firstKeptEntryIndex pointing at the header or nowhere is dropped", () => {
  const entries = [
    structuredClone(v1Header),
    { type: "message", timestamp: at(1), message: { role: "user", content: "a", timestamp: 1 } },
    { type: "compaction", timestamp: at(2), summary: "S", firstKeptEntryIndex: 0, tokensBefore: 1 },
    { type: "compaction", timestamp: at(3), summary: "T", firstKeptEntryIndex: 99, tokensBefore: 1 },
  ];
  assert.equal(migrate(entries), true);
  for (const e of entries.slice(2)) {
    assert.ok(!("firstKeptEntryIndex" in e));
    assert.equal(e.firstKeptEntryId, undefined);
  }
});

test("v1 ids are fresh and unique across many entries", () => {
  const entries = [structuredClone(v1Header)];
  for (let i = 0; i < 2000; i++) entries.push({ type: "custom", timestamp: at(i), customType: "c" });
  migrate(entries);
  const ids = entries.slice(1).map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, HEX8);
  // Two runs do not produce the same ids.
  const again = [structuredClone(v1Header), { type: "custom", timestamp: at(0), customType: "c" }];
  const again2 = structuredClone(again);
  migrate(again);
  migrate(again2);
  assert.notEqual(again[1].id, again2[1].id);
});

test("v1 text: malformed lines are kept verbatim in place", () => {
  const original = v1Entries().slice(0, 3);
  const text = `${[
    JSON.stringify(original[0]),
    "{broken",
    JSON.stringify(original[1]),
    "not json at all",
    JSON.stringify(original[2]),
  ].join("\n")}\n`;
  const lines = migrate(text).split("\n");
  assert.equal(lines[1], "{broken");
  assert.equal(lines[3], "not json at all");
  const [h, a, b] = [lines[0], lines[2], lines[4]].map((l) => JSON.parse(l));
  assert.equal(h.version, 3);
  assert.equal(a.parentId, null);
  assert.equal(b.parentId, a.id);
});

test("v1 text with lone surrogates: malformed lines keep their very characters", () => {
  // A lone surrogate crosses into the core as a \uXXXX escape, which means the
  // same inside a JSON string but not in a line that is no JSON.
  const original = v1Entries().slice(0, 3);
  original[1].message.content = "half \ud83d of an emoji";
  const malformed = ["\ud83d", "{broken \udc00", "\r\ud83d\r", "\\ud83d"];
  for (const eol of ["\n", "\r\n"]) {
    const given = [
      JSON.stringify(original[0]),
      malformed[0],
      JSON.stringify(original[1]),
      malformed[1],
      malformed[2],
      malformed[3],
      JSON.stringify(original[2]),
    ];
    const lines = migrate(`${given.join(eol)}${eol}`).split(eol);
    assert.deepEqual([lines[1], lines[3], lines[4], lines[5]], malformed, JSON.stringify(eol));
    const [h, a, b] = [lines[0], lines[2], lines[6]].map((l) => JSON.parse(l));
    assert.equal(h.version, 3);
    assert.equal(a.message.content, "half \ud83d of an emoji");
    assert.equal(b.parentId, a.id);
    assert.equal(lines.length, given.length + 1);
  }
});

test("v1: firstKeptEntryIndex counts parsed entries, not lines", () => {
  const text = `${[
    JSON.stringify(v1Header),
    "garbage",
    JSON.stringify({ type: "message", timestamp: at(1), message: { role: "user", content: "a", timestamp: 1 } }),
    JSON.stringify({ type: "message", timestamp: at(2), message: { role: "user", content: "b", timestamp: 2 } }),
    JSON.stringify({ type: "compaction", timestamp: at(3), summary: "S", firstKeptEntryIndex: 2, tokensBefore: 1 }),
  ].join("\n")}\n`;
  const parsed = migrate(text)
    .split("\n")
    .filter((l) => l.startsWith("{"));
  const entries = parsed.map((l) => JSON.parse(l));
  assert.equal(entries[3].firstKeptEntryId, entries[2].id, "index 2 = the second message");
});

const v2 = () => [
  { type: "session", version: 2, id: "sess-v2", timestamp: at(0), cwd: "/p" },
  {
    type: "message",
    id: "aaaa0001",
    parentId: null,
    timestamp: at(1),
    message: { role: "user", content: "u", timestamp: 1 },
  },
  {
    type: "message",
    id: "aaaa0002",
    parentId: "aaaa0001",
    timestamp: at(2),
    message: {
      role: "hookMessage",
      customType: "ext",
      content: [{ type: "text", text: "t" }],
      display: false,
      timestamp: 2,
    },
  },
  {
    type: "custom_message",
    id: "aaaa0003",
    parentId: "aaaa0002",
    timestamp: at(3),
    customType: "c",
    content: "x",
    display: true,
  },
  {
    type: "compaction",
    id: "aaaa0004",
    parentId: "aaaa0003",
    timestamp: at(4),
    summary: "S",
    firstKeptEntryId: "aaaa0002",
    tokensBefore: 5,
  },
];

test("v2: hookMessage becomes custom, ids untouched, header version 3", () => {
  const entries = v2();
  const message = entries[2].message;
  assert.equal(migrate(entries), true);
  const expected = v2();
  expected[0].version = 3;
  expected[2].message.role = "custom";
  assert.deepStrictEqual(entries, expected);
  assert.equal(entries[2].message, message, "message object kept");

  const out = migrate(jsonl(v2()));
  assert.equal(out, jsonl(expected));
});

test("v3 text comes back byte for byte", () => {
  const samples = [
    jsonl([{ type: "session", version: 3, id: "s", timestamp: at(0), cwd: "/" }]),
    // Odd spacing, CRLF, malformed lines, blank lines, unicode, no final newline.
    '{ "type" : "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/" }\r\n' +
      "\r\n" +
      "{broken\n" +
      '{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"hookMessage","content":"\\u00e9 é \u2028"}}\n' +
      "   \n" +
      '{"big":9007199254740993,"z":-0,"e":1E2}',
    `\uFEFF${jsonl([{ type: "session", version: 3, id: "s", timestamp: at(0), cwd: "/" }])}`,
    jsonl([{ type: "session", version: 4, id: "future", timestamp: at(0), cwd: "/" }]),
  ];
  for (const text of samples) {
    assert.equal(migrate(text), text);
  }
  // Bytes come back as a copy of the very bytes, even bytes that are not UTF-8.
  for (const bytes of [
    Buffer.from(samples[1]),
    Buffer.concat([Buffer.from(samples[3]), Buffer.from([0xff, 0xfe, 0x0a])]),
  ]) {
    const out = migrate(bytes);
    assert.ok(out instanceof Uint8Array && !Buffer.isBuffer(out));
    assert.deepStrictEqual(Buffer.from(out), bytes);
    out[0] ^= 1;
    assert.notEqual(out[0], bytes[0], "a copy, not a view of the caller's bytes");
  }
});

test("v3 entry arrays are left alone", () => {
  const entries = [
    { type: "session", version: 3, id: "s", timestamp: at(0), cwd: "/" },
    { type: "message", id: "a", parentId: null, timestamp: at(1), message: { role: "hookMessage", content: "kept" } },
  ];
  const snapshot = structuredClone(entries);
  assert.equal(migrate(entries), false);
  assert.deepStrictEqual(entries, snapshot);
});

test("entries without a header count as version 1 (pi: version = header?.version ?? 1)", () => {
  const entries = [
    {
      type: "message",
      id: "keep-me",
      parentId: "nope",
      timestamp: at(1),
      message: { role: "user", content: "a", timestamp: 1 },
    },
    { type: "message", timestamp: at(2), message: { role: "hookMessage", content: "b", timestamp: 2 } },
  ];
  assert.equal(migrate(entries), true);
  // A deliberate difference from pi (README): an entry that has a string id
  // keeps it and its parentId; pi would re-id it and lose the link.
  assert.equal(entries[0].id, "keep-me");
  assert.equal(entries[0].parentId, "nope");
  assert.match(entries[1].id, HEX8);
  assert.equal(entries[1].parentId, "keep-me");
  assert.equal(entries[1].message.role, "custom");
});

test("v1 entries that already have ids keep them; new ids avoid every existing id", () => {
  const entries = [structuredClone(v1Header)];
  entries.push({ type: "custom", timestamp: at(0), customType: "c", id: "a", parentId: null });
  entries.push({ type: "custom", timestamp: at(1), customType: "c", id: "b", parentId: "a" });
  entries.push({ type: "custom", timestamp: at(2), customType: "c", id: "c", parentId: "a" });
  entries.push({ type: "custom", timestamp: at(3), customType: "c" });
  assert.equal(migrate(entries), true);
  assert.deepStrictEqual(
    entries.slice(1, 4).map((e) => [e.id, e.parentId]),
    [
      ["a", null],
      ["b", "a"],
      ["c", "a"],
    ],
  );
  assert.match(entries[4].id, HEX8);
  assert.equal(entries[4].parentId, "c");
  assert.equal(entries[0].version, 3);
});

test("migrated text parses back with parseSession", () => {
  const out = migrate(jsonl(v1Entries()));
  const entries = parseSession(out, { strict: true });
  assert.equal(entries.length, 7);
  assert.equal(entries[0].version, 3);
});

test("wrong argument types throw a TypeError naming the argument", () => {
  for (const bad of [42, null, undefined, {}, true, new ArrayBuffer(2)]) {
    assert.throws(
      () => migrate(bad),
      (error) => error instanceof TypeError && /source|entries/.test(error.message),
      String(bad),
    );
  }
  // Still works.
  const entries = v2();
  assert.equal(migrate(entries), true);
  assert.equal(entries[0].version, 3);
});

/** A byte source over `text`'s UTF-8, counting its reads. */
const sourceOf = (text) => memorySource(Buffer.from(text), "mem.jsonl");

test("a byte source with options.write: the migrated file, streamed in pieces", () => {
  const text = jsonl(v1Entries());
  const pieces = [];
  const source = sourceOf(text);
  assert.equal(migrate(source, { pieceSize: 7, write: (bytes) => pieces.push(bytes) }), true);
  assert.ok(pieces.every((p) => p instanceof Uint8Array));
  const out = Buffer.concat(pieces).toString("utf8");
  checkV1Migrated(parseSession(out), v1Entries());
  // The lines, new ids aside, are those migrate() gives the same text.
  const ids = /"(id|parentId|firstKeptEntryId)":"[0-9a-f]{8}"/g;
  assert.equal(out.replace(ids, "$1"), migrate(text).replace(ids, "$1"));
  // A current file: false, nothing written, read no further than its header.
  const current = sourceOf(`${JSON.stringify({ type: "session", version: 3, id: "s" })}\n`.repeat(1000));
  assert.equal(
    migrate(current, {
      pieceSize: 64,
      write: () => assert.fail("nothing is written"),
    }),
    false,
  );
  assert.ok(current.reads < 10, `${current.reads} reads`);
});

test("options.write: a function, with a byte source; what it throws ends the migration", () => {
  const source = sourceOf(jsonl(v1Entries()));
  assert.throws(
    () => migrate(source, { write: "out.jsonl" }),
    (error) => error instanceof TypeError && /options\.write must be a function/.test(error.message),
  );
  assert.throws(
    () => migrate(jsonl(v1Entries()), { write: () => {} }),
    (error) => error instanceof TypeError && /source must be a byte source \(with options\.write\)/.test(error.message),
  );
  const full = new Error("ENOSPC");
  let calls = 0;
  assert.throws(
    () =>
      migrate(source, {
        pieceSize: 3,
        write: () => {
          calls++;
          throw full;
        },
      }),
    (error) => error === full,
  );
  assert.equal(calls, 1);
  // Other functions ignore the key.
  assert.equal(parseSession(jsonl(v1Entries()), { write: 5 }).length, 7);
});
