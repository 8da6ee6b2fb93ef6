// cli/lineage.js: newest first, forks under the session they came from. The
// expected orders are worked out by hand from the items below.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildLineage, continuesOf, flattenLineage, normalizePath, orderSessions } from "../../pkg/cli/lineage.js";

const item = (path, minute, parentSession) => ({
  path,
  info: { modified: new Date(Date.UTC(2025, 0, 1, 0, minute)), parentSession },
});
const names = (rows) => rows.map((r) => `${"  ".repeat(r.depth)}${r.item.path}`);

test("lineage: newest first, a fork under its parent, a subtree sorted by its latest activity", () => {
  const items = [
    item("/s/a.jsonl", 10),
    item("/s/b.jsonl", 30),
    item("/s/c.jsonl", 20, "/s/a.jsonl"), // fork of a, newer than a: a's subtree is at 20
    item("/s/d.jsonl", 5, "/s/a.jsonl"),
    item("/s/e.jsonl", 40, "/elsewhere/x.jsonl"), // its parent is not listed: a root
  ];
  assert.deepEqual(names(orderSessions(items)), [
    "/s/e.jsonl",
    "/s/b.jsonl",
    "/s/a.jsonl",
    "  /s/c.jsonl",
    "  /s/d.jsonl",
  ]);
});

test("lineage: forks of forks, with the connectors' continuation flags", () => {
  const items = [
    item("/s/root.jsonl", 1),
    item("/s/f1.jsonl", 3, "/s/root.jsonl"),
    item("/s/f2.jsonl", 2, "/s/root.jsonl"),
    item("/s/f1a.jsonl", 4, "/s/f1.jsonl"),
  ];
  const rows = orderSessions(items);
  assert.deepEqual(names(rows), ["/s/root.jsonl", "  /s/f1.jsonl", "    /s/f1a.jsonl", "  /s/f2.jsonl"]);
  assert.deepEqual(
    rows.map((r) => [r.depth, r.isLast, continuesOf(r)]),
    [
      [0, true, []],
      [1, false, []],
      [2, true, [true]], // f1 has a later sibling (f2): its line continues past f1a
      [1, true, []],
    ],
  );
});

test("lineage: parent paths are compared normalized (separators, dot segments, trailing slash)", () => {
  const items = [
    item("/s/a.jsonl", 1),
    item("/s/b.jsonl", 2, "/s/./x/../a.jsonl"),
    item("/s/c.jsonl", 3, "//s//a.jsonl"),
  ];
  assert.deepEqual(names(orderSessions(items)), ["/s/a.jsonl", "  /s/c.jsonl", "  /s/b.jsonl"]);
  assert.equal(normalizePath("C:\\Users\\me\\s.jsonl"), "C:/Users/me/s.jsonl");
  assert.equal(normalizePath("/a/b/../../.."), "/");
  assert.equal(normalizePath("a/../../b"), "../b");
  assert.equal(normalizePath(undefined), "");
});

test("lineage: a custom key function", () => {
  const items = [item("A.jsonl", 1), item("b.jsonl", 2, "a.jsonl")];
  const rows = orderSessions(items, { key: (p) => p.toLowerCase() });
  assert.deepEqual(names(rows), ["A.jsonl", "  b.jsonl"]);
});

test("lineage: loops and self-parents keep every session, the loop's newest as root", () => {
  const items = [
    item("/s/self.jsonl", 1, "/s/self.jsonl"),
    item("/s/x.jsonl", 5, "/s/y.jsonl"),
    item("/s/y.jsonl", 7, "/s/z.jsonl"),
    item("/s/z.jsonl", 6, "/s/x.jsonl"),
    item("/s/w.jsonl", 2, "/s/x.jsonl"), // hangs off the loop
  ];
  // y is the loop's newest: root; x is y's fork (x names y), z is x's, w is x's.
  assert.deepEqual(names(orderSessions(items)), [
    "/s/y.jsonl",
    "  /s/x.jsonl",
    "    /s/z.jsonl",
    "    /s/w.jsonl",
    "/s/self.jsonl",
  ]);
});

test("lineage: equal times keep the input order; missing or invalid dates sort last", () => {
  const items = [
    { path: "/s/no-info.jsonl", info: null },
    item("/s/b.jsonl", 1),
    { path: "/s/bad-date.jsonl", info: { modified: new Date(Number.NaN) } },
    item("/s/a.jsonl", 1),
    item("/s/c.jsonl", 2),
  ];
  assert.deepEqual(names(orderSessions(items)), [
    "/s/c.jsonl",
    "/s/b.jsonl",
    "/s/a.jsonl",
    "/s/no-info.jsonl",
    "/s/bad-date.jsonl",
  ]);
});

test("lineage: the caller's objects come back; a long fork chain needs no recursion", () => {
  const items = [item("/s/0.jsonl", 0)];
  for (let i = 1; i < 20000; i++) items.push(item(`/s/${i}.jsonl`, 0, `/s/${i - 1}.jsonl`));
  const trees = buildLineage(items);
  assert.equal(trees.length, 1);
  assert.equal(trees[0].item, items[0]);
  const rows = flattenLineage(trees);
  assert.equal(rows.length, 20000);
  assert.equal(rows.at(-1).depth, 19999);
  assert.equal(rows.at(-1).item, items.at(-1));
  assert.equal(rows.at(-1).parent, rows.at(-2));
  assert.deepEqual(continuesOf(rows.at(-1), 3), [false, false, false]);
});

test("lineage: duplicate paths: the first holds the forks, both are listed", () => {
  const items = [item("/s/a.jsonl", 1), item("/s/a.jsonl", 2), item("/s/f.jsonl", 3, "/s/a.jsonl")];
  const rows = orderSessions(items);
  assert.equal(rows.length, 3);
  assert.equal(rows[0].item, items[0]);
  assert.equal(rows[1].item, items[2]);
  assert.equal(rows[1].depth, 1);
  assert.equal(rows[2].item, items[1]);
});
