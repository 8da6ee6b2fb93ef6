// Built by `vite build` with no config; tests/consumer/vite.test.mjs runs the
// output in Chromium and reads window.__results.
import { buildSessionContext, migrate } from "session-tree";

const session = [
  { type: "session", version: 3, id: "sess-vite", timestamp: "2025-05-05T12:00:00.000Z", cwd: "/app" },
  {
    type: "model_change",
    id: "m1",
    parentId: null,
    timestamp: "2025-05-05T12:00:01.000Z",
    provider: "openai",
    modelId: "gpt-x",
  },
  {
    type: "message",
    id: "u1",
    parentId: "m1",
    timestamp: "2025-05-05T12:00:02.000Z",
    message: { role: "user", content: "from vite", timestamp: 1746446402000 },
  },
  {
    type: "custom_message",
    id: "c1",
    parentId: "u1",
    timestamp: "2025-05-05T12:00:03.000Z",
    customType: "note",
    content: "injected",
    display: false,
    details: { n: 1 },
  },
]
  .map((entry) => JSON.stringify(entry))
  .join("\n");

const results = {};
for (const [name, run] of Object.entries({
  context: () => buildSessionContext(session),
  migrateV3: () => migrate(session) === session,
})) {
  try {
    results[name] = { ok: true, value: run() };
  } catch (error) {
    results[name] = { ok: false, name: error?.name, message: String(error?.message ?? error) };
  }
}
window.__results = results;
document.getElementById("out").textContent = JSON.stringify(results, null, 2);
