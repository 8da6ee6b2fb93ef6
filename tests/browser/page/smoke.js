// Imported by index.html. Runs the package in the browser and publishes the
// outcome of each call on window.__results for tests/browser/smoke.test.mjs.

import * as viaImportMap from "session-tree";
import { buildSessionContext, getTree, migrate, parseSession } from "/pkg/browser.js";

const SESSION = `${[
  { type: "session", version: 3, id: "sess-browser", timestamp: "2025-03-01T09:00:00.000Z", cwd: "/work" },
  {
    type: "message",
    id: "u1",
    parentId: null,
    timestamp: "2025-03-01T09:00:01.000Z",
    message: { role: "user", content: "first question", timestamp: 1740819601000 },
  },
  {
    type: "message",
    id: "a1",
    parentId: "u1",
    timestamp: "2025-03-01T09:00:02.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text: "first answer" }],
      api: "messages",
      provider: "anthropic",
      model: "claude-x",
      stopReason: "stop",
      timestamp: 1740819602000,
    },
  },
  {
    type: "thinking_level_change",
    id: "t1",
    parentId: "a1",
    timestamp: "2025-03-01T09:00:03.000Z",
    thinkingLevel: "high",
  },
  {
    type: "message",
    id: "u2",
    parentId: "t1",
    timestamp: "2025-03-01T09:00:04.000Z",
    message: { role: "user", content: "abandoned branch", timestamp: 1740819604000 },
  },
  {
    type: "branch_summary",
    id: "s1",
    parentId: "a1",
    timestamp: "2025-03-01T09:00:05.000Z",
    fromId: "u2",
    summary: "tried the other way",
  },
  {
    type: "message",
    id: "u3",
    parentId: "s1",
    timestamp: "2025-03-01T09:00:06.000Z",
    message: { role: "user", content: "second branch", timestamp: 1740819606000 },
  },
]
  .map((entry) => JSON.stringify(entry))
  .join("\n")}\n`;

const V1_SESSION = `${[
  { type: "session", id: "sess-v1", timestamp: "2024-06-01T00:00:00.000Z", cwd: "/old" },
  {
    type: "message",
    timestamp: "2024-06-01T00:00:01.000Z",
    message: { role: "user", content: "hello", timestamp: 1717200001000 },
  },
  {
    type: "message",
    timestamp: "2024-06-01T00:00:02.000Z",
    message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 1717200002000 },
  },
]
  .map((entry) => JSON.stringify(entry))
  .join("\n")}\n`;

const results = {};
function attempt(name, run) {
  try {
    results[name] = { ok: true, value: run() };
  } catch (error) {
    results[name] = { ok: false, name: error?.name, message: String(error?.message ?? error) };
  }
}

attempt("exports", () => ({
  types: [buildSessionContext, getTree, migrate, parseSession].map((f) => typeof f),
  importMapSameModule: viaImportMap.buildSessionContext === buildSessionContext,
}));
attempt("context", () => buildSessionContext(SESSION));
attempt("contextOtherLeaf", () => buildSessionContext(new TextEncoder().encode(SESSION), "u2"));
attempt("treeRoots", () =>
  getTree(SESSION).map(function shape(node) {
    return { id: node.entry.id, children: node.children.map(shape) };
  }),
);
attempt("parseCount", () => parseSession(`${SESSION}not json\n`).length);
attempt("migrateV1", () => migrate(V1_SESSION));
attempt("stillWorks", () => buildSessionContext(SESSION, null));

window.__results = results;
document.getElementById("out").textContent = JSON.stringify(results, null, 2);
