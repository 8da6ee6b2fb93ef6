// Orders a folder's sessions the way pi's resume list threads them: newest
// first, each fork (its header's `parentSession`, the path of the file it came
// from) nested under the session it came from. Pure ESM with no `node:`
// imports, so the browser viewer can load it as /pkg/cli/lineage.js.
//
// Input: `[{ path, info, ...anything }]`, where `info` is what `sessionInfo`
// returns (an item whose `info` is null or missing is kept, as oldest).
// Output: `[{ item, children }]` trees; the item objects are the caller's own.

/** Normalizes a path for comparison: separators, `.` and `..` segments, a trailing slash. */
export function normalizePath(path) {
  if (typeof path !== "string" || path === "") return "";
  const unified = path.replace(/\\/g, "/");
  const absolute = unified.startsWith("/");
  const drive = /^[A-Za-z]:\//.test(unified) ? unified.slice(0, 2).toUpperCase() : "";
  const rest = drive ? unified.slice(3) : unified;
  const parts = [];
  for (const part of rest.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
    else if (part !== ".." || !(absolute || drive)) parts.push(part);
  }
  return (drive ? `${drive}/` : absolute ? "/" : "") + parts.join("/");
}

function time(item) {
  const modified = item?.info?.modified;
  const t = modified instanceof Date ? modified.getTime() : typeof modified === "number" ? modified : Number.NaN;
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
}

// Newest first; equal times keep the order they came in (callers sort the
// files by name, descending, as pi's list reads them).
function newestFirst(nodes) {
  return nodes
    .map((node, index) => ({ node, index }))
    .sort((a, b) => b.node.latest - a.node.latest || a.index - b.index)
    .map(({ node }) => node);
}

/**
 * Builds the fork trees of `items`: roots and each node's children are sorted
 * by the latest `modified` in their subtree, newest first (pi's threaded
 * order). A fork whose parent is not among the items is a root. Forks whose
 * parents form a loop (or a file naming itself) are cut so that every item
 * appears exactly once: the loop's newest member becomes a root.
 *
 * `options.key(path)` turns a path into the comparison key (default:
 * `normalizePath`); pass one that resolves relative paths or follows symlinks
 * where that matters.
 */
export function buildLineage(items, options = {}) {
  const key = options.key ?? normalizePath;
  const nodes = items.map((item) => ({ item, children: [], parent: -1, latest: time(item) }));
  const byKey = new Map();
  nodes.forEach((node, i) => {
    const k = key(node.item.path);
    if (k !== "" && !byKey.has(k)) byKey.set(k, i);
  });
  nodes.forEach((node, i) => {
    const parentPath = node.item.info?.parentSession;
    if (typeof parentPath !== "string" || parentPath === "") return;
    const parent = byKey.get(key(parentPath));
    if (parent !== undefined && parent !== i) node.parent = parent;
  });

  // Cut loops: walk up from each node; a walk that comes back to a node it
  // has already visited in this walk found a loop, which gets its newest member
  // made a root. `state`: 0 unseen, 1 on the current walk, 2 settled.
  const state = new Uint8Array(nodes.length);
  for (let start = 0; start < nodes.length; start++) {
    const walk = [];
    let i = start;
    while (i !== -1 && state[i] === 0) {
      state[i] = 1;
      walk.push(i);
      i = nodes[i].parent;
    }
    if (i !== -1 && state[i] === 1) {
      const loop = walk.slice(walk.indexOf(i));
      let root = loop[0];
      for (const j of loop) if (nodes[j].latest > nodes[root].latest) root = j;
      nodes[root].parent = -1;
    }
    for (const j of walk) state[j] = 2;
  }

  const roots = [];
  for (const node of nodes) {
    if (node.parent === -1) roots.push(node);
    else nodes[node.parent].children.push(node);
  }
  // Latest activity of each subtree, children before parents, without recursion.
  const order = [];
  for (const stack = [...roots]; stack.length > 0; ) {
    const node = stack.pop();
    order.push(node);
    stack.push(...node.children);
  }
  for (let k = order.length - 1; k >= 0; k--) {
    const node = order[k];
    for (const child of node.children) if (child.latest > node.latest) node.latest = child.latest;
  }
  // Output nodes, children sorted, built without recursion (fork chains can be long).
  const out = new Map();
  for (const node of order) out.set(node, { item: node.item, children: [] });
  for (const node of order) out.get(node).children = newestFirst(node.children).map((child) => out.get(child));
  return newestFirst(roots).map((node) => out.get(node));
}

/**
 * Flattens `buildLineage`'s trees into display rows, parents before their
 * forks: `{ item, depth, isLast, parent }`, where `parent` is the row of the
 * session it was forked from (null at the top) and `isLast` says whether it is
 * its parent's last fork shown. `continuesOf(row)` gives the guide lines.
 */
export function flattenLineage(trees) {
  const rows = [];
  const stack = [];
  const push = (nodes, depth, parent) => {
    for (let i = nodes.length - 1; i >= 0; i--)
      stack.push({ node: nodes[i], depth, isLast: i === nodes.length - 1, parent });
  };
  push(trees, 0, null);
  while (stack.length > 0) {
    const { node, depth, isLast, parent } = stack.pop();
    const row = { item: node.item, depth, isLast, parent };
    rows.push(row);
    push(node.children, depth + 1, row);
  }
  return rows;
}

/**
 * For a row at depth `d` > 0, `d - 1` flags: flag `k` says whether the row's
 * ancestor at depth `k + 1` has later siblings, so a guide line (`│`) runs down
 * past this row at that depth. At most `limit` flags (the nearest levels).
 */
export function continuesOf(row, limit = Number.POSITIVE_INFINITY) {
  const flags = [];
  for (let a = row.parent; a !== null && a.depth > 0 && flags.length < limit; a = a.parent) flags.push(!a.isLast);
  return flags.reverse();
}

/** The items newest first with forks under their parents: `buildLineage` then `flattenLineage`. */
export function orderSessions(items, options) {
  return flattenLineage(buildLineage(items, options));
}
