// A JS string's lone surrogates (UTF-16 code units no UTF-8 can hold). They cross
// into the core as \uXXXX escapes, which mean the same inside a JSON string, where
// JSON.parse keeps a lone surrogate; a line kept as given must still come back as
// the string's own code units, and what pi writes with JSON.stringify (an entry it
// copies or rewrites) has the escape, as JSON.stringify writes it since Node 12.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspectSession, parseSession, Session } from "session-tree";
import { loadPi } from "../shared/pi.mjs";

const { parseSessionEntries } = await loadPi("1.6.0");

const HIGH = "\ud83d";
const LOW = "\ude00";
const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "s1",
  timestamp: "2025-01-01T00:00:00.000Z",
  cwd: "/p",
});
const message = (id, parentId, content, t) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: `2025-01-01T00:00:0${t}.000Z`,
    message: { role: "user", content, timestamp: t },
  });
// A valid entry with a raw lone surrogate in a string value (JSON.parse takes it).
const rawValid = (id, parentId, t) =>
  `{"type":"message","id":"${id}","parentId":${parentId === null ? "null" : `"${parentId}"`},"timestamp":"2025-01-01T00:00:0${t}.000Z","message":{"role":"user","content":"half ${HIGH} raw ${LOW}","timestamp":${t}}}`;
// Lines that are no JSON, with lone surrogates; and the six characters of an escape.
const malformed = [HIGH, `{broken ${LOW}`, `\r${HIGH}\r`, "\\ud83d", `x${LOW}${HIGH}y`];

const isWellFormed = (s) => !/\p{Cs}/u.test(s);

test("Session.open(string).toJsonl(): every line as given, lone surrogates included", () => {
  for (const eol of ["\n", "\r\n"]) {
    const lines = [header, malformed[0], message("a1", null, "one", 1), malformed[1], rawValid("a2", "a1", 2)];
    lines.push(malformed[2], malformed[3], malformed[4], message("a3", "a2", "x", 3));
    for (const end of [eol, "", `${eol}{unfinished ${HIGH}`]) {
      const text = lines.join(eol) + end;
      assert.ok(!isWellFormed(text));
      const s = Session.open(text);
      const out = s.toJsonl();
      assert.equal(out, end === "" ? `${text}\n` : text, JSON.stringify({ eol, end }));
      // The entry holds the lone surrogates, as JSON.parse gives them.
      assert.equal(s.getEntry("a2").message.content, `half ${HIGH} raw ${LOW}`);
      assert.equal(s.getEntry("a3").parentId, "a2");
    }
  }
});

test("toJsonl after appends keeps the opened lines and adds JSON.stringify's", () => {
  const text = `${[header, message("a1", null, "one", 1), malformed[1], rawValid("a2", "a1", 2)].join("\n")}\n`;
  const s = Session.open(text);
  const id = s.appendMessage({ role: "user", content: `new ${HIGH}`, timestamp: 9 });
  const out = s.toJsonl();
  assert.ok(out.startsWith(text));
  const added = out.slice(text.length).split("\n");
  assert.equal(added.length, 2);
  // pi appends JSON.stringify(entry): the lone surrogate as an escape.
  assert.equal(added[0], JSON.stringify(s.getEntry(id)));
  assert.ok(added[0].includes("new \\ud83d"));
  assert.equal(s.getEntry(id).message.content, `new ${HIGH}`);
});

test("a session migrated on open keeps its malformed lines as given", () => {
  const v1 = [
    JSON.stringify({ type: "session", id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" }),
    malformed[0],
    JSON.stringify({
      type: "message",
      timestamp: "2025-01-01T00:00:01.000Z",
      message: { role: "user", content: "a", timestamp: 1 },
    }),
    malformed[4],
  ];
  const s = Session.open(`${v1.join("\n")}\n`);
  assert.equal(s.migrated, true);
  const lines = s.toJsonl().split("\n");
  assert.equal(lines[1], malformed[0]);
  assert.equal(lines[3], malformed[4]);
  assert.equal(JSON.parse(lines[0]).version, 3);
});

test("appendJsonl with string chunks: lines as given, a surrogate pair split across chunks whole", () => {
  const lines = [
    malformed[1],
    message("b1", null, `pair 😀 here`, 1),
    `{"a":1 😀 bad}`,
    malformed[4],
    rawValid("b2", "b1", 2),
  ];
  const tail = `${lines.join("\n")}\n{tail ${HIGH}`;
  for (const size of [1, 2, 3, 7, 1000]) {
    const s = Session.open(`${header}\n`);
    // Chunks cut by UTF-16 code units: a pair may be cut in two.
    for (let at = 0; at < tail.length; at += size) s.appendJsonl(tail.slice(at, at + size));
    assert.equal(s.toJsonl(), `${header}\n${tail}`, `chunks of ${size}`);
    assert.equal(s.getEntry("b1").message.content, "pair 😀 here", `chunks of ${size}`);
    assert.equal(s.getEntry("b2").message.content, `half ${HIGH} raw ${LOW}`, `chunks of ${size}`);
    // The unfinished line ends with a lone surrogate, kept too; finishing it keeps it.
    s.appendJsonl("\n");
    assert.equal(s.toJsonl(), `${header}\n${tail}\n`, `chunks of ${size}`);
  }
});

test("appendJsonl: a high surrogate at a string chunk's end is lone if bytes follow", () => {
  const s = Session.open(`${header}\n`);
  s.appendJsonl(`bad ${HIGH}`);
  s.appendJsonl(new TextEncoder().encode(" more\n"));
  assert.equal(s.toJsonl(), `${header}\nbad ${HIGH} more\n`);
});

test("appendJsonl after appends: the appended lines keep their places", () => {
  const s = Session.open(`${header}\n${message("a1", null, "x", 1)}\n`);
  s.appendJsonl(`{half ${HIGH}`);
  const id = s.appendMessage({ role: "user", content: "y", timestamp: 2 });
  s.appendJsonl(` line}\n${malformed[4]}\n`);
  const lines = s.toJsonl().split("\n");
  assert.equal(lines[2], JSON.stringify(s.getEntry(id)));
  assert.equal(lines[3], `{half ${HIGH} line}`);
  assert.equal(lines[4], malformed[4]);
});

test("fork and createBranchedSession write an entry with a lone surrogate as pi does: JSON.stringify", () => {
  const text = `${[header, message("a1", null, "one", 1), malformed[1], rawValid("a2", "a1", 2)].join("\n")}\n`;
  const piEntries = parseSessionEntries(text);
  const piA2 = piEntries.find((e) => e.id === "a2");
  assert.equal(piA2.message.content, `half ${HIGH} raw ${LOW}`);
  const s = Session.open(text);
  for (const out of [s.fork({}), s.createBranchedSession("a2")]) {
    const lines = out.split("\n");
    assert.equal(lines.length, 4);
    assert.equal(lines[2], JSON.stringify(piA2));
    assert.ok(isWellFormed(out));
  }
});

test("diagnostics count a lone surrogate as one character, as the line has it", () => {
  for (const c of ["a", "😀", HIGH, `${LOW}${HIGH}`.slice(1)]) {
    const line = `{"a":"${c}" x}`;
    const text = `${header}\n${line}\n`;
    const want = /^line 2, column 10: unexpected 'x'/;
    assert.match(inspectSession(text)[0].message, want, JSON.stringify(c));
    assert.match(Session.open(text).diagnostics()[0].message, want, JSON.stringify(c));
    assert.throws(
      () => parseSession(text, { strict: true }),
      (e) => e.line === 2 && e.column === 10,
    );
  }
  // Two lone surrogates before the error, and one that is the error.
  const line = `{"${HIGH}":"${LOW}"${HIGH}}`;
  const [d] = inspectSession(`${header}\n${line}\n`);
  assert.match(d.message, /^line 2, column 9: unexpected character U\+D83D, /);
  assert.throws(
    () => parseSession(`${header}\n${line}\n`, { strict: true }),
    (e) => e.line === 2 && e.column === 9 && /unexpected character U\+D83D/.test(e.message),
  );
});
