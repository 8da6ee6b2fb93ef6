// pkg/cli/lineage.js on what StrykerJS's mutants showed untested (docs/mutation-log.md,
// "JavaScript"): leading `..` segments of relative paths, drive letters only at the start,
// no key for a missing path, and the guide-line flags in depth order.
import assert from "node:assert/strict";
import { test } from "node:test";
import { continuesOf, flattenLineage, normalizePath } from "../../pkg/cli/lineage.js";

test("normalizePath keeps a relative path's leading .. segments and finds a drive only at the start", () => {
  assert.equal(normalizePath("../a"), "../a");
  assert.equal(normalizePath("../../a/./b/"), "../../a/b");
  assert.equal(normalizePath("x/../../a"), "../a");
  assert.equal(normalizePath("c:\\Users\\al\\..\\bo"), "C:/Users/bo");
  assert.equal(normalizePath("dir/c:/x"), "dir/c:/x");
  // No path, no key: such items match nothing.
  for (const none of [undefined, null, 5, ""]) assert.equal(normalizePath(none), "");
});

test("continuesOf: flag k is the ancestor at depth k + 1; a limit keeps the nearest levels", () => {
  // A ─ B ─ C ─ D, and E after B: B has a later sibling, C does not.
  const leaf = (item, children = []) => ({ item, children });
  const rows = flattenLineage([leaf("A", [leaf("B", [leaf("C", [leaf("D")])]), leaf("E")])]);
  const d = rows.find((r) => r.item === "D");
  assert.equal(d.depth, 3);
  assert.deepEqual(continuesOf(d), [true, false]);
  assert.deepEqual(continuesOf(d, 1), [false]);
});
