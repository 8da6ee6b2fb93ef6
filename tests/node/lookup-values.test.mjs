// The lookups (`getEntry`, `getChildren`, `getLabel`, `getBranch`) take any
// value, as pi's do: pi looks ids up in a `Map` and compares `parentId`s with
// `===`, so `getChildren(null)` gives the roots and `getEntry(5)` an entry
// whose id is the number 5 (a broken file, but one pi reads). Calls that
// write (`branch`, `appendLabelChange`…) still take string ids only (the
// README's wrong-type row). Expectations come from pi 1.6.0 opening the same
// file, for `Session` and for `session-tree/node`'s manager.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Session } from "session-tree";
import { SessionManager as OurManager } from "session-tree/node";
import { SessionManager } from "../shared/pi.mjs";

const at = (s) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
const message = (id, parentId, s, text) => ({
  type: "message",
  ...(id === undefined ? {} : { id }),
  ...(parentId === undefined ? {} : { parentId }),
  timestamp: at(s),
  message: { role: s % 2 ? "user" : "assistant", content: [{ type: "text", text }], timestamp: s },
});
const FILE = `${[
  { type: "session", version: 3, id: "s", timestamp: at(0), cwd: "/w" },
  message("a", null, 1, "root"),
  message(5, "a", 2, "number id"),
  message("c", 5, 3, "child of the number"),
  message("5", "a", 4, "the string 5"),
  message(true, "c", 5, "true id"),
  message("d", true, 6, "child of true"),
  message(0, "d", 7, "zero id"),
  message("e", 0, 8, "child of zero"),
  message("f", null, 9, "second root"),
  message(undefined, "f", 10, "no id"),
  message("g", undefined, 11, "no parentId"),
  message({ k: 1 }, "g", 11, "object id"),
  message("INF", "g", 11, "id 1e400, Infinity to JSON.parse"),
  { type: "label", id: "l1", parentId: "g", timestamp: at(12), targetId: 5, label: "five" },
  { type: "label", id: "l2", parentId: "l1", timestamp: at(13), targetId: true, label: "yes" },
  message("h", "l2", 14, "leaf"),
]
  .map((e) => JSON.stringify(e))
  .join("\n")}\n`.replace('"id":"INF"', '"id":1e400');

// -0 is 0 to a Map and to ===; NaN, objects (a Map compares them by identity), symbols and
// BigInts equal no id read from JSON (a BigInt or a symbol found the object id's entry once).
const VALUES = [
  ...["a", 5, "5", -0, 0, true, false, null, undefined, Number.NaN, "c", "h", {}, [5], { k: 1 }],
  ...[Infinity, "Infinity", 5n, 1n, Symbol("s"), "g"],
];
const show = (v) =>
  Object.is(v, -0) ? "-0" : typeof v === "string" ? JSON.stringify(v) : typeof v === "bigint" ? `${v}n` : String(v);
const same = (a, b, what) => assert.equal(JSON.stringify(a), JSON.stringify(b), what);

test("lookups by a number, true, null or undefined find what pi finds", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "session-tree-lookup-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "s.jsonl");
  writeFileSync(path, FILE);
  const pi = SessionManager.open(path, dir);
  const manager = OurManager.open(path, dir);
  t.after(() => manager.close());
  // the file itself is read alike, or nothing below would mean anything
  same(Session.open(FILE).getEntries(), pi.getEntries(), "entries");
  let found = 0;
  for (const [name, ours] of [
    ["Session", Session.open(FILE)],
    ["manager", manager],
  ]) {
    for (const v of VALUES) {
      const what = `${name}: ${show(v)}`;
      same(ours.getEntry(v), pi.getEntry(v), `getEntry(${what})`);
      same(ours.getChildren(v), pi.getChildren(v), `getChildren(${what})`);
      assert.equal(ours.getLabel(v), pi.getLabel(v), `getLabel(${what})`);
      same(ours.getBranch(v), pi.getBranch(v), `getBranch(${what})`);
      if (pi.getEntry(v) !== undefined || pi.getChildren(v).length) found++;
    }
  }
  // the file holds entries for most of these values: the comparisons above are not all of empty answers
  assert.ok(found >= 16, `${found} lookups found something`);
  assert.equal(pi.getChildren(null).length, 2, "pi: the two roots");
  assert.equal(pi.getEntry(5).message.content[0].text, "number id");
});

test("calls that write still take string ids only", () => {
  const session = Session.open(FILE);
  assert.throws(() => session.branch(5), TypeError);
  assert.throws(() => session.appendLabelChange(true, "x"), TypeError);
});
