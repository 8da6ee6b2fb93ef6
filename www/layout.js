// Lane layout for the branch graph, in the style of `git log --graph`.
//
// Input: a forest of `count` nodes given by `parent` (an Int32Array, -1 for a
// root) where every parent comes before its children; children keep their
// index order (oldest first). Everything here is iterative: a chain of a
// million entries is no problem.
//
// Rows: a node is followed by the subtrees of its "light" children, then by
// its "heavy" child (the one with the largest subtree; ties go to the newest),
// which continues the parent's column. So the longest line of work runs
// straight down and side branches fork off to the right. Each column is held
// by one chain (a head and its heavy descendants) from the head's row to the
// chain's last row; a root-to-node path crosses at most log2(n) light edges,
// so the number of columns stays small even for huge sessions.

export const MAX_LANES = 32; // lanes drawn with connector lines (bit masks)

export function layoutForest(parent) {
  const count = parent.length;
  const childCount = new Int32Array(count);
  for (let i = 0; i < count; i++) if (parent[i] >= 0) childCount[parent[i]]++;
  const childStart = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) childStart[i + 1] = childStart[i] + childCount[i];
  const children = new Int32Array(childStart[count]);
  const fill = childStart.slice(0, count);
  const roots = [];
  for (let i = 0; i < count; i++) {
    const p = parent[i];
    if (p >= 0) children[fill[p]++] = i;
    else roots.push(i);
  }

  // Subtree sizes (parents precede children, so one backwards sweep).
  const size = new Int32Array(count).fill(1);
  for (let i = count - 1; i >= 0; i--) if (parent[i] >= 0) size[parent[i]] += size[i];
  const heavy = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    let best = -1;
    for (let k = childStart[i]; k < childStart[i + 1]; k++) {
      const c = children[k];
      if (best < 0 || size[c] >= size[best]) best = c;
    }
    heavy[i] = best;
  }

  // Row order: node, light subtrees (oldest first), heavy subtree.
  const order = new Int32Array(count);
  const rowOf = new Int32Array(count);
  const stack = new Int32Array(count);
  let top = 0;
  let row = 0;
  for (let r = roots.length - 1; r >= 0; r--) stack[top++] = roots[r];
  while (top > 0) {
    const v = stack[--top];
    order[row] = v;
    rowOf[v] = row++;
    if (heavy[v] >= 0) stack[top++] = heavy[v];
    for (let k = childStart[v + 1] - 1; k >= childStart[v]; k--) {
      const c = children[k];
      if (c !== heavy[v]) stack[top++] = c;
    }
  }

  // Columns: each chain takes the lowest column free over its rows.
  const col = new Uint16Array(count);
  const parentRow = new Int32Array(count);
  const topMask = new Uint32Array(count);
  const botMask = new Uint32Array(count);
  const freeAt = []; // per column: first row at which it is free again
  let lanes = 0;
  for (let r = 0; r < count; r++) {
    const v = order[r];
    const p = parent[v];
    parentRow[r] = p >= 0 ? rowOf[p] : -1;
    if (p >= 0 && heavy[p] === v) {
      col[r] = col[rowOf[p]];
      continue;
    }
    let end = v;
    while (heavy[end] >= 0) end = heavy[end];
    const endRow = rowOf[end];
    let c = 0;
    while (c < freeAt.length && freeAt[c] > r) c++;
    freeAt[c] = endRow + 1;
    col[r] = c;
    if (c + 1 > lanes) lanes = c + 1;
    if (c < MAX_LANES && endRow > r) {
      const bit = (1 << c) >>> 0;
      botMask[r] |= bit;
      for (let k = r + 1; k < endRow; k++) {
        topMask[k] |= bit;
        botMask[k] |= bit;
      }
      topMask[endRow] |= bit;
    }
  }
  return { order, rowOf, col, parentRow, topMask, botMask, lanes };
}
