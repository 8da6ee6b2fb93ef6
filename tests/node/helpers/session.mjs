// Fixture helpers shared by the Node tests. Expected values in the tests are
// derived by hand from the session format's rules (docs/session-format.md and
// pi's session-manager.js), never from this package's output.
import { Worker } from "node:worker_threads";

export const jsonl = (values) => values.map((value) => JSON.stringify(value)).join("\n") + "\n";

export const ms = (iso) => new Date(iso).getTime();

/** ISO timestamp `seconds` after a fixed origin. */
export const at = (seconds) => new Date(Date.UTC(2025, 0, 2, 3, 0, 0) + seconds * 1000).toISOString();

export const header = (extra = {}) => ({
  type: "session",
  version: 3,
  id: "0193f2a4-0000-7000-8000-000000000001",
  timestamp: at(0),
  cwd: "/home/user/project",
  ...extra,
});

export const user = (id, parentId, text, seconds) => ({
  type: "message",
  id,
  parentId,
  timestamp: at(seconds),
  message: { role: "user", content: text, timestamp: ms(at(seconds)) },
});

export const assistant = (id, parentId, text, seconds, provider = "anthropic", model = "claude-sonnet") => ({
  type: "message",
  id,
  parentId,
  timestamp: at(seconds),
  message: {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider,
    model,
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: ms(at(seconds)),
  },
});

export const entry = (type, id, parentId, seconds, fields = {}) => ({
  type,
  id,
  parentId,
  timestamp: at(seconds),
  ...fields,
});

/**
 * The same session in every input form the functions accept. `entries`
 * starts with the header.
 */
export function inputForms(entries) {
  const text = jsonl(entries);
  const bytes = new TextEncoder().encode(text);
  // A view into a larger buffer: only the viewed bytes may be read.
  const padded = new Uint8Array(bytes.length + 8);
  padded.set(new TextEncoder().encode("XXXX"), 0);
  padded.set(bytes, 4);
  padded.set(new TextEncoder().encode("YYYY"), bytes.length + 4);
  return {
    string: text,
    Uint8Array: bytes,
    Buffer: Buffer.from(text),
    "Uint8Array view with offset": padded.subarray(4, 4 + bytes.length),
    "array with header": structuredClone(entries),
    "array without header": structuredClone(entries.slice(1)),
  };
}

/** Shape of a tree: ids only, recursively (fixtures are small). */
export const shape = (nodes) => nodes.map((node) => ({ id: node.entry.id, children: shape(node.children) }));

/**
 * Runs `task` (see worker.mjs) in a worker thread; a hang becomes a failure
 * after `timeoutMs` instead of blocking the test run.
 */
export function runInWorker(task, data = {}, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./worker.mjs", import.meta.url), { workerData: { task, data } });
    const timer = setTimeout(() => {
      worker.terminate();
      reject(new Error(`${task} did not finish within ${timeoutMs} ms (infinite loop?)`));
    }, timeoutMs);
    worker.once("message", (message) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(message);
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    worker.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`worker for ${task} exited with code ${code} before answering`));
    });
  });
}
