// A line ending in whitespace JS's trim() drops but JSON.parse refuses (U+2028, NBSP, U+3000,
// U+FEFF): pi 1.6.0's parseSessionEntries trims the whole text, so such a line is an entry only
// as the text's last (its file loader never keeps it: the README's differences row). A Session
// reads the file as parseSessionEntries does however it comes: whole as text, bytes or a byte
// source, or opened in part with the rest appended, at any cut and in pieces. The expected ids
// come from pi, run on each whole file.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Session } from "session-tree";
import { parseSessionEntries, SessionManager } from "../shared/pi.mjs";
import { memorySource } from "./helpers/session.mjs";

const T = "2026-01-01T00:00:00.000Z";
const HEADER = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: T, cwd: "/w" });
const message = (id, parentId) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: T, message: { role: "user", content: id, timestamp: 1 } });
const A = message("a", null);
const B = message("b", "a");
const FILES = {
  "U+2028 in the middle": `${HEADER}\n${A}\u2028\n${B}\n`,
  "U+2028 last": `${HEADER}\n${A}\n${B}\u2028\n`,
  "NBSP last, blank lines after": `${HEADER}\n${A}\n${B}\u00a0\n  \n\u2028\n`,
  "U+3000 U+FEFF last": `${HEADER}\n${A}\n${B}\u3000\ufeff\n`,
  "CR NBSP last": `${HEADER}\n${A}\n${B}\r\u00a0\n`,
  "U+2028 first on the last line": `${HEADER}\n${A}\n\u2028${B}\n`,
  "NBSP last, then a label of it": `${HEADER}\n${A}\n${B}\u00a0\n${JSON.stringify({ type: "label", id: "l", parentId: "a", timestamp: T, targetId: "b", label: "x" })}\n`,
};

const ids = (entries) =>
  entries
    .filter((e) => e.type !== "session")
    .map((e) => e.id)
    .join(",");
const encode = (s) => new TextEncoder().encode(s);

// A head whose last line is whole JSON without its newline, which the rest goes on with more
// than JSON whitespace: the head's open took that line (the README's row on a last line without
// a newline), where the whole file has it malformed. Those cuts are left out.
function tookItsLastLine(head, rest) {
  const last = head.slice(head.lastIndexOf("\n") + 1);
  let whole = false;
  try {
    JSON.parse(last);
    whole = true;
  } catch {}
  const next = rest.match(/[^ \t\r]/)?.[0];
  return whole && next !== undefined && next !== "\n";
}

test("pi keeps such a line only as the text's last", () => {
  // The facts the cases stand on, as pi 1.6.0 gives them.
  assert.equal(ids(parseSessionEntries(FILES["U+2028 in the middle"])), "b");
  assert.equal(ids(parseSessionEntries(FILES["U+2028 last"])), "a,b");
  assert.equal(ids(parseSessionEntries(FILES["U+2028 first on the last line"])), "a");
  assert.equal(ids(parseSessionEntries(FILES["NBSP last, then a label of it"])), "a,l");
});

for (const [name, file] of Object.entries(FILES)) {
  test(`${name}: the entries pi's parseSessionEntries gives, whole and after any cut`, () => {
    const pi = ids(parseSessionEntries(file));
    const bytes = encode(file);
    for (const [how, source] of [
      ["text", file],
      ["bytes", bytes],
      ["byte source", memorySource(bytes)],
    ]) {
      assert.equal(ids(Session.open(source).getEntries()), pi, `${how}, whole`);
    }
    // A string cut at every UTF-16 unit, the rest in one chunk; bytes cut at every byte, the
    // rest in one chunk and in chunks of 1 and 3 bytes (so every line end is a chunk's end once).
    for (let cut = 0; cut <= file.length; cut++) {
      const head = file.slice(0, cut);
      const rest = file.slice(cut);
      if (tookItsLastLine(head, rest)) continue;
      const session = Session.open(head);
      session.appendJsonl(rest);
      assert.equal(ids(session.getEntries()), pi, `text cut at ${cut}`);
    }
    for (let cut = 0; cut <= bytes.length; cut++) {
      const head = bytes.subarray(0, cut);
      const rest = bytes.subarray(cut);
      if (tookItsLastLine(new TextDecoder().decode(head), new TextDecoder().decode(rest))) continue;
      for (const piece of [rest.length || 1, 1, 3]) {
        for (const open of [(b) => Session.open(b.slice()), (b) => Session.open(memorySource(b.slice()))]) {
          let session;
          try {
            session = open(head);
          } catch {
            continue; // a byte source cut inside its header: not a session to read by piece
          }
          for (let at = 0; at < rest.length; at += piece) session.appendJsonl(rest.subarray(at, at + piece));
          assert.equal(ids(session.getEntries()), pi, `bytes cut at ${cut}, pieces of ${piece}`);
        }
      }
    }
  });
}

test("a line after the kept last line takes it back from every index, as pi reads the whole", (t) => {
  // In the whole file the NBSP line is in the middle: both of pi's readers skip it, so pi's
  // manager on that file is the reference for every lookup.
  const file = FILES["NBSP last, then a label of it"];
  const dir = mkdtempSync(join(tmpdir(), "session-tree-trimmed-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "s.jsonl"), file);
  const pi = SessionManager.open(join(dir, "s.jsonl"), dir);
  const cut = file.indexOf('{"type":"label"');
  const session = Session.open(file.slice(0, cut));
  assert.equal(session.getLeafEntry().id, "b", "the head's last line is an entry");
  session.appendJsonl(file.slice(cut));
  const same = (a, b, what) => assert.equal(JSON.stringify(a), JSON.stringify(b), what);
  same(session.getEntries(), pi.getEntries(), "entries");
  for (const id of ["a", "b", "l"]) {
    same(session.getEntry(id), pi.getEntry(id), `getEntry(${id})`);
    same(session.getChildren(id), pi.getChildren(id), `getChildren(${id})`);
    assert.equal(session.getLabel(id), pi.getLabel(id), `getLabel(${id})`);
  }
  same(session.getLeafEntry(), pi.getLeafEntry(), "leaf");
  same(session.getBranch(), pi.getBranch(), "branch");
  same(session.getTree(), pi.getTree(), "tree");
  assert.equal(session.toJsonl(), file, "the line stays in the text");
});
