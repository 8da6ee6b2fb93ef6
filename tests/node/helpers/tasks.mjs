// The calls runInWorker() (session.mjs) runs in a worker thread, through the shared
// runTask: each returns a small, clonable summary of the result (trees can be too
// deep to clone).
import * as sessionTree from "session-tree";

function summarizeTree(roots) {
  let count = 0;
  let maxDepth = 0;
  const stack = roots.map((node) => [node, 1]);
  while (stack.length > 0) {
    const [node, depth] = stack.pop();
    count++;
    if (depth > maxDepth) maxDepth = depth;
    for (const child of node.children) stack.push([child, depth + 1]);
  }
  return { rootIds: roots.slice(0, 20).map((n) => n.entry.id), rootCount: roots.length, count, maxDepth };
}

function summarizeContext(context) {
  return {
    roles: context.messages.map((m) => m.role),
    contents: context.messages.map((m) => m.content ?? m.summary),
    thinkingLevel: context.thinkingLevel,
    model: context.model,
  };
}

function deepSession(length) {
  const entries = new Array(length + 1);
  entries[0] = { type: "session", version: 3, id: "deep", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" };
  const base = Date.UTC(2025, 0, 1);
  for (let i = 1; i <= length; i++) {
    entries[i] = {
      type: "custom",
      id: `e${i}`,
      parentId: i === 1 ? null : `e${i - 1}`,
      timestamp: new Date(base + i).toISOString(),
      customType: "x",
    };
  }
  entries[length].type = "message";
  entries[length].message = { role: "user", content: "bottom", timestamp: base + length };
  return entries;
}

export function getTree(data) {
  return summarizeTree(sessionTree.getTree(data.source));
}

export function buildSessionContext(data) {
  return summarizeContext(sessionTree.buildSessionContext(data.source, data.leafId));
}

export function deepTree(data) {
  const entries = deepSession(data.length);
  const source = data.asText ? entries.map((e) => JSON.stringify(e)).join("\n") : entries;
  const tree = summarizeTree(sessionTree.getTree(source));
  const context = summarizeContext(sessionTree.buildSessionContext(source));
  return { tree, context };
}
