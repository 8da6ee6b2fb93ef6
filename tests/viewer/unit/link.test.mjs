// Unit tests of www/link.js: where the address's `#leaf=` (or pi's
// `?leafId=&targetId=`) leads in the open file. Expected values follow from the
// rules in the module's comments: a link is followed only to an entry the file
// has; a target only with its own leaf; a missing entry is told about unless the
// viewer wrote that hash itself.

import assert from "node:assert/strict";
import { test } from "node:test";
import { followLink, leafHash, missingLinkText, parseLeafHash } from "../../../www/link.js";

const file = (...ids) => {
  const set = new Set(ids);
  return (id) => set.has(id);
};

test("parseLeafHash reads the id of #leaf=, decoded, and nothing else", () => {
  assert.equal(parseLeafHash("#leaf=a1"), "a1");
  assert.equal(parseLeafHash("#leaf=a%20b%2Fc"), "a b/c");
  assert.equal(parseLeafHash("#leaf=100%"), "100%", "a malformed escape is kept as written");
  assert.equal(parseLeafHash("#leaf="), null);
  assert.equal(parseLeafHash(""), null);
  assert.equal(parseLeafHash("#compare=a,b"), null);
  assert.equal(parseLeafHash("#xleaf=a"), null);
  assert.equal(parseLeafHash(undefined), null);
});

test("leafHash and parseLeafHash give back the id, whatever its characters", () => {
  for (const id of ["a", "a b", "#leaf=x", "é/ü?&", "%41"]) assert.equal(parseLeafHash(leafHash(id)), id);
});

test("a link to an entry the file has is followed, with its target", () => {
  assert.deepEqual(followLink({ leafId: "b", targetId: "a", ours: false }, file("a", "b", "c"), "c"), {
    leaf: "b",
    targetId: "a",
    missing: null,
    tell: false,
    waits: false,
  });
});

test("a target the file lacks is dropped, the leaf still followed", () => {
  const to = followLink({ leafId: "b", targetId: "z", ours: false }, file("a", "b"), "a");
  assert.equal(to.leaf, "b");
  assert.equal(to.targetId, null);
  assert.equal(to.missing, null);
});

test("no link: the fallback leaf, no target, nothing to say", () => {
  assert.deepEqual(followLink({ leafId: null, targetId: null, ours: false }, file("a"), "a"), {
    leaf: "a",
    targetId: null,
    missing: null,
    tell: false,
    waits: false,
  });
  // A target without its leaf is not followed on its own.
  assert.equal(followLink({ leafId: null, targetId: "a", ours: false }, file("a"), "a").targetId, null);
});

test("a link to an entry the file lacks: the fallback is shown, no target, and it is told", () => {
  assert.deepEqual(followLink({ leafId: "nowhere", targetId: "a", ours: false }, file("a", "b"), "b"), {
    leaf: "b",
    targetId: null,
    missing: "nowhere",
    tell: true,
    waits: false,
  });
});

test("the viewer's own hash left from the previous file is rewritten, not told about", () => {
  const to = followLink({ leafId: "old", targetId: null, ours: true }, file("a"), "a");
  assert.equal(to.missing, "old");
  assert.equal(to.tell, false);
  assert.equal(to.leaf, "a");
});

test("a missing link in a file with no entries leaves no leaf", () => {
  const to = followLink({ leafId: "x", targetId: null, ours: false }, file(), null);
  assert.equal(to.leaf, null);
  assert.equal(to.missing, "x");
});

test("in the sample, a link someone followed waits for its session; the viewer's own does not", () => {
  const to = followLink({ leafId: "b2", targetId: "b1", ours: false }, file("a"), "a", { sample: true });
  assert.deepEqual(to, { leaf: "a", targetId: null, missing: "b2", tell: true, waits: true });
  const own = followLink({ leafId: "old", targetId: null, ours: true }, file("a"), "a", { sample: true });
  assert.equal(own.waits, false, "the previous file's leaf is rewritten, as in any file");
  const there = followLink({ leafId: "a", targetId: null, ours: false }, file("a"), "z", { sample: true });
  assert.equal(there.waits, false, "a link the sample has is followed there");
  assert.equal(there.leaf, "a");
});

test("the banner names the missing entry and what is shown instead", () => {
  assert.equal(missingLinkText("nowhere"), "The link's entry nowhere is not in this file; its last entry is shown.");
  assert.equal(
    missingLinkText("nowhere", { kept: true }),
    "The link's entry nowhere is not in this file; the leaf shown is kept.",
  );
  assert.equal(
    missingLinkText("b2", { sample: true }),
    "The link's entry b2 is not in the sample: open the session it was made for to go there.",
  );
});
