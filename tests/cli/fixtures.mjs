// Hand-written session files for the command tests, in a fresh temporary
// folder per test file. Every expected value in the tests is worked out from
// these lines.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";

const J = (value) => JSON.stringify(value);
const T = (s) => `2025-03-01T10:00:${String(s).padStart(2, "0")}.000Z`;
const jsonl = (lines) => lines.map((line) => `${line}\n`).join("");
const M = (s) => Date.parse(T(s));
const model = { provider: "anthropic", model: "claude-sonnet-4-5", api: "messages", usage: {}, stopReason: "stop" };

/** A clean v3 session with two branches, a label, a tool call and a name. Leaf: the last line (a3). */
export const CLEAN = jsonl([
  J({ type: "session", version: 3, id: "sess-clean", timestamp: T(0), cwd: "/work/app" }),
  J({
    type: "message",
    id: "u1",
    parentId: null,
    timestamp: T(1),
    message: { role: "user", content: "Fix the build", timestamp: M(1) },
  }),
  J({
    type: "message",
    id: "a1",
    parentId: "u1",
    timestamp: T(2),
    message: {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "make build" } }],
      ...model,
      stopReason: "toolUse",
      timestamp: M(2),
    },
  }),
  J({
    type: "message",
    id: "r1",
    parentId: "a1",
    timestamp: T(3),
    message: {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text: "error: missing semicolon" }],
      isError: false,
      timestamp: M(3),
    },
  }),
  J({
    type: "message",
    id: "a2",
    parentId: "r1",
    timestamp: T(4),
    message: {
      role: "assistant",
      content: [{ type: "text", text: "A semicolon is missing." }],
      ...model,
      timestamp: M(4),
    },
  }),
  J({ type: "label", id: "l1", parentId: "a2", timestamp: T(5), targetId: "a2", label: "diagnosis" }),
  J({
    type: "message",
    id: "u2",
    parentId: "a2",
    timestamp: T(6),
    message: { role: "user", content: "Try another way", timestamp: M(6) },
  }),
  J({ type: "session_info", id: "n1", parentId: "u2", timestamp: T(7), name: "Build fix" }),
  J({
    type: "message",
    id: "u3",
    parentId: "u1",
    timestamp: T(8),
    message: { role: "user", content: "Actually, explain the error", timestamp: M(8) },
  }),
  J({
    type: "message",
    id: "a3",
    parentId: "u3",
    timestamp: T(9),
    message: {
      role: "assistant",
      content: [{ type: "text", text: "It means\na semicolon is missing." }],
      ...model,
      timestamp: M(9),
    },
  }),
]);

/** Problems on lines 3 (malformed) and 4 (orphan: its parent does not exist). */
export const BROKEN = jsonl([
  J({ type: "session", version: 3, id: "sess-broken", timestamp: T(0), cwd: "/work/app" }),
  J({
    type: "message",
    id: "u1",
    parentId: null,
    timestamp: T(1),
    message: { role: "user", content: "hi", timestamp: M(1) },
  }),
  '{"type":"message","id":"x",',
  J({
    type: "message",
    id: "a1",
    parentId: "nope",
    timestamp: T(2),
    message: { role: "assistant", content: [{ type: "text", text: "hello" }], ...model, timestamp: M(2) },
  }),
]);

/** A version 1 session: no ids, a linear history. */
export const V1 = jsonl([
  J({ type: "session", id: "sess-v1", timestamp: T(0), cwd: "/old" }),
  J({ type: "message", timestamp: T(1), message: { role: "user", content: "old question", timestamp: M(1) } }),
  J({
    type: "message",
    timestamp: T(2),
    message: { role: "assistant", content: [{ type: "text", text: "old answer" }], ...model, timestamp: M(2) },
  }),
]);

/** A fresh folder holding `files` ({ name: text }); removed by the returned `cleanup`. */
export function folder(files = {}) {
  const dir = mkdtempSync(join(os.tmpdir(), "session-tree-cli-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
