// www/layout.js's `layoutForest` against its header's contract, written out naively here
// (recursion, arrays of intervals) on random forests: the row order (a node, its light
// subtrees oldest first, its heavy subtree; the heavy child has the largest subtree, ties to
// the newest), each chain's column (the lowest free over the chain's rows), the lane count
// and the connector masks. Written for the mutants StrykerJS left alive
// (docs/mutation-log.md, "JavaScript"). LAYOUT_SEED replays a run.
import assert from "node:assert/strict";
import { test } from "node:test";
import { layoutForest, MAX_LANES } from "../../../www/layout.js";
import { envSeed, Rng } from "../../shared/rng.mjs";

/** The layout the header describes, computed the slow, obvious way. */
function naiveLayout(parent) {
  const n = parent.length;
  const children = Array.from({ length: n }, () => []);
  const roots = [];
  for (let i = 0; i < n; i++) (parent[i] >= 0 ? children[parent[i]] : roots).push(i);
  const size = (v) => 1 + children[v].reduce((s, c) => s + size(c), 0);
  const heavy = children.map((cs) => {
    let best = -1;
    // Ties go to the newest: the later child wins an equal size.
    for (const c of cs) if (best < 0 || size(c) >= size(best)) best = c;
    return best;
  });
  const order = [];
  const visit = (v) => {
    order.push(v);
    for (const c of children[v]) if (c !== heavy[v]) visit(c);
    if (heavy[v] >= 0) visit(heavy[v]);
  };
  for (const r of roots) visit(r);
  const rowOf = [];
  order.forEach((v, r) => {
    rowOf[v] = r;
  });
  const col = [];
  const columns = []; // per column: the [first, last] rows of the chains in it
  const top = new Array(n).fill(0);
  const bot = new Array(n).fill(0);
  for (let r = 0; r < n; r++) {
    const v = order[r];
    const p = parent[v];
    if (p >= 0 && heavy[p] === v) {
      col[r] = col[rowOf[p]];
      continue;
    }
    let end = v;
    while (heavy[end] >= 0) end = heavy[end];
    const last = rowOf[end];
    let c = 0;
    while (columns[c]?.some(([, l]) => l >= r)) c++;
    columns[c] ??= [];
    columns[c].push([r, last]);
    col[r] = c;
    if (c < MAX_LANES && last > r) {
      bot[r] |= 1 << c;
      for (let k = r + 1; k < last; k++) {
        top[k] |= 1 << c;
        bot[k] |= 1 << c;
      }
      top[last] |= 1 << c;
    }
  }
  return {
    order,
    rowOf,
    col,
    parentRow: order.map((v) => (parent[v] >= 0 ? rowOf[parent[v]] : -1)),
    topMask: top.map((m) => m >>> 0),
    botMask: bot.map((m) => m >>> 0),
    lanes: columns.length,
  };
}

function randomForest(rng) {
  const n = rng.range(1, 60);
  const parent = new Int32Array(n);
  const rootChance = rng.pick([0, 0.05, 0.3]);
  for (let i = 0; i < n; i++) {
    // Chains (the previous node), bushes (any earlier node) and new roots.
    parent[i] = i === 0 || rng.chance(rootChance) ? -1 : rng.chance(0.5) ? i - 1 : rng.int(0, i);
  }
  return parent;
}

const plain = (layout) =>
  Object.fromEntries(Object.entries(layout).map(([k, v]) => [k, ArrayBuffer.isView(v) ? [...v] : v]));

test("layoutForest lays out random forests as its header describes", () => {
  const seed = envSeed("LAYOUT_SEED");
  const rng = new Rng(seed);
  for (let run = 0; run < 300; run++) {
    const parent = randomForest(rng);
    assert.deepEqual(plain(layoutForest(parent)), naiveLayout(parent), `seed ${seed}, run ${run}: [${parent}]`);
  }
});

test("layoutForest: equal subtrees go to the newest child, which keeps the parent's column", () => {
  // 0 has two leaf children, 1 and 2: the newest (2) is heavy, so 1 comes first, in column 1.
  const layout = layoutForest(Int32Array.from([-1, 0, 0]));
  assert.deepEqual([...layout.order], [0, 1, 2]);
  assert.deepEqual([...layout.col], [0, 1, 0]);
  assert.equal(layout.lanes, 2);
  // Column 0 runs from row 0 down to row 2, through row 1.
  assert.deepEqual([...layout.botMask], [1, 1, 0]);
  assert.deepEqual([...layout.topMask], [0, 1, 1]);
});

test("layoutForest: a bigger older subtree is heavy; a root after a forest starts in column 0", () => {
  // 0 → 1 → 2 is larger than 0 → 3, so 3 comes first in column 1; root 4 is laid out last.
  const layout = layoutForest(Int32Array.from([-1, 0, 1, 0, -1]));
  assert.deepEqual([...layout.order], [0, 3, 1, 2, 4]);
  assert.deepEqual([...layout.col], [0, 1, 0, 0, 0]);
  assert.deepEqual([...layout.parentRow], [-1, 0, 0, 2, -1]);
  assert.equal(layout.lanes, 2);
});

test("layoutForest of nothing is empty", () => {
  const layout = layoutForest(new Int32Array(0));
  assert.equal(layout.order.length, 0);
  assert.equal(layout.lanes, 0);
});
