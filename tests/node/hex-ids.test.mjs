// Ids that look like pi's (eight lowercase hex digits) but are not, and ids
// that are pi's written another way: the session holds pi's ids inline, as
// the word their digits spell, and every other id as its text. Whatever the
// form, ids must compare as JS compares them (`===`, `Map` keys) and come
// back exactly as the file has them. Expectations come from pi 1.6.0's
// SessionManager opening the same file.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileSource, Session } from "session-tree";
import { SessionManager } from "../shared/pi.mjs";

const line = (o) => JSON.stringify(o);
const msg = (id, parentId, text, extra = "") =>
  `{"type":"message","id":${id},"parentId":${parentId},"timestamp":"2026-01-01T00:00:0${text.length % 10}.000Z"${extra},"message":{"role":"user","content":${JSON.stringify(text)},"timestamp":1}}`;

// Ids as JSON texts. Each pair differs in one way from a canonical pi id.
const ROOT = '"0000abcd"';
const FILE = [
  line({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
  msg(ROOT, "null", "root"),
  msg('"0000ABCD"', ROOT, "upper"), // uppercase: not pi's form, another id
  msg('"000abcd"', ROOT, "seven"), // 7 digits
  msg('"0000abcd0"', '"0000ABCD"', "nine"), // 9 digits, child of the uppercase one
  msg('"0000abc\\ud800"', '"000abcd"', "lone surrogate"), // a lone surrogate where a digit was
  msg("12345678", ROOT, "number"), // a number id: no string equals it
  msg('"1234567g"', '"12345678"', "string parent of the number"), // names no entry
  msg('"ffffffff"', '"0000abc\\ud800"', "top word"),
  msg('"00000000"', '"ffffffff"', "zero word"),
  msg('" 0000abcd"', '"00000000"', "space"),
  msg('"0000abcd "', '"00000000"', "trailing space"),
  line({
    type: "label",
    id: "aaaaaaaa",
    parentId: "0000abcd",
    timestamp: "2026-01-01T00:00:09.000Z",
    targetId: "0000ABCD",
    label: "upper",
  }),
  line({
    type: "label",
    id: "aaaaaaab",
    parentId: "aaaaaaaa",
    timestamp: "2026-01-01T00:00:09.000Z",
    targetId: "0000abcd",
    label: "root",
  }),
  msg('"0000abcc"', '"aaaaaaab"', "leaf"),
].join("\n");
// The root's id written with an escape: the same string, so the same id
// (this later entry wins `getEntry`, and the root's children now walk to
// it). pi's `getTree` repeats nodes for a repeated id (a README difference):
// the tree is compared on the file without it.
const DUP = msg('"\\u0030000abcd"', "null", "escaped duplicate");
const IDS = [
  "0000abcd",
  "0000ABCD",
  "000abcd",
  "0000abcd0",
  "0000abc\ud800",
  "1234567g",
  "12345678",
  "ffffffff",
  "00000000",
  " 0000abcd",
  "0000abcd ",
  "aaaaaaaa",
  "aaaaaaab",
  "0000abcc",
  "0000abce",
];

// JSON.stringify keeps a lone surrogate as its escape: exact comparisons.
const same = (a, b, what) => assert.equal(JSON.stringify(a), JSON.stringify(b), what);

for (const dup of [false, true])
  test(`ids that look like pi's but are not stay distinct and come back exactly, as in pi${dup ? " (a repeated id)" : ""}`, (t) => {
    const dir = mkdtempSync(join(tmpdir(), "session-tree-hex-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "s.jsonl");
    const text = `${FILE}\n${dup ? `${DUP}\n` : ""}`;
    writeFileSync(path, text);
    const source = fileSource(path);
    t.after(() => source.close());
    for (const [name, ours] of [
      ["text", Session.open(text)],
      ["fileSource", Session.open(source)],
    ]) {
      const pi = SessionManager.open(path, dir);
      same(ours.getEntries(), pi.getEntries(), `${name}: entries`);
      if (!dup) same(ours.getTree(), pi.getTree(), `${name}: tree`);
      assert.equal(ours.getEntryCount(), pi.getEntryCount(), `${name}: distinct ids`);
      assert.equal(ours.leafId, pi.getLeafId(), `${name}: leaf`);
      for (const id of IDS) {
        same(ours.getEntry(id), pi.getEntry(id), `${name}: getEntry(${JSON.stringify(id)})`);
        same(ours.getChildren(id), pi.getChildren(id), `${name}: getChildren(${JSON.stringify(id)})`);
        assert.equal(ours.getLabel(id), pi.getLabel(id), `${name}: getLabel(${JSON.stringify(id)})`);
        same(ours.getBranch(id), pi.getBranch(id), `${name}: getBranch(${JSON.stringify(id)})`);
      }
      same(ours.buildSessionContext(), pi.buildSessionContext(), `${name}: context`);
      // Appending: the new entry's parentId is the leaf's id, exactly; and a
      // branch to each id moves the leaf to the entry pi moves to.
      for (const id of IDS.filter((id) => pi.getEntry(id))) {
        pi.branch(id);
        ours.branch(id);
        assert.equal(ours.leafId, pi.getLeafId(), `${name}: branch(${JSON.stringify(id)})`);
        same(ours.getBranch(), pi.getBranch(), `${name}: path after branch(${JSON.stringify(id)})`);
      }
      const appended = ours.appendMessage({ role: "user", content: "new", timestamp: 1 });
      assert.equal(ours.getEntry(appended).parentId, ours.getBranch().at(-2).id);
      assert.equal(ours.getEntry(appended).parentId, IDS.filter((id) => pi.getEntry(id)).at(-1));
    }
  });
