// Fixture helpers shared by the Node tests. Expected values in the tests are
// derived by hand from the session format's rules (docs/session-format.md and
// pi's session-manager.js), never from this package's output.
import { runTask } from "../../shared/workers.mjs";

const TASKS = new URL("./tasks.mjs", import.meta.url);

export const jsonl = (values) => `${values.map((value) => JSON.stringify(value)).join("\n")}\n`;

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
    usage: {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
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
 * Runs `task` of tasks.mjs in a worker thread; a hang becomes a failure after
 * `timeoutMs` instead of blocking the test run. Resolves `{ ok: true, value,
 * elapsedMs }`, or `{ ok: false, name, message }` when the call threw.
 */
export async function runInWorker(task, data = {}, timeoutMs = 10_000) {
  try {
    const { value, ms } = await runTask(TASKS, task, data, { stepLimitMs: timeoutMs });
    return { ok: true, value, elapsedMs: Math.round(ms) };
  } catch (error) {
    if (!error.workerError) throw error;
    const { name, message, ms } = error.workerError;
    return { ok: false, name, message, elapsedMs: Math.round(ms) };
  }
}

/** A byte source over bytes in memory, counting its reads. */
export function memorySource(bytes, name = "memory") {
  const source = {
    name,
    size: bytes.length,
    reads: 0,
    read(offset, length) {
      source.reads++;
      return bytes.slice(offset, offset + length);
    },
  };
  return source;
}
