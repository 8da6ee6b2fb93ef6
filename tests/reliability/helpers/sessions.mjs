// Realistic pi sessions (what pi writes: one JSON.stringify per line) and mutations of them.
import { Rng } from "./rng.mjs";

const BASE = Date.UTC(2025, 0, 2, 3, 0, 0);
const iso = (ms) => new Date(ms).toISOString();
const TEXTS = ["hi", "fix the bug", "héllo wörld", "日本語のテキスト", "emoji 😀 here", 'quote " and \\ backslash', "line\nbreak", "tab\there", "\u2028sep\u2029", ""];

/**
 * A seeded session: header (version 1, 2, 3 or missing), then a tree of entries of every type,
 * with branches, labels, compactions and branch summaries. Returns `{ text, entries }`.
 */
export function generateSession(seed, { maxEntries = 40 } = {}) {
  const rng = new Rng(seed);
  const version = rng.pick([1, 2, 3, 3, 3, undefined]);
  const entries = [];
  if (version !== undefined || rng.chance(0.5)) {
    const header = { type: "session", id: `0193f2a4-0000-7000-8000-${rng.hex8()}0000`, timestamp: iso(BASE), cwd: "/home/u/p" };
    if (version !== undefined) header.version = version;
    entries.push(header);
  }
  const withIds = version !== undefined && version >= 2;
  const ids = [];
  const n = rng.int(0, maxEntries);
  let time = BASE;
  for (let i = 0; i < n; i++) {
    time += rng.int(0, 5000);
    const e = { type: "message" };
    if (withIds) {
      e.id = rng.hex8();
      e.parentId = ids.length === 0 || rng.chance(0.05) ? null : rng.chance(0.8) ? ids[ids.length - 1] : rng.pick(ids);
    }
    e.timestamp = rng.chance(0.03) ? rng.pick(["not a date", "", "2025-13-45", 1735790400000]) : iso(time);
    const kind = rng.int(0, 20);
    const text = rng.pick(TEXTS);
    if (kind < 6) {
      e.message = { role: "user", content: rng.chance(0.5) ? text : [{ type: "text", text }], timestamp: time };
    } else if (kind < 11) {
      e.message = {
        role: "assistant",
        content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text }],
        api: "anthropic-messages",
        provider: rng.pick(["anthropic", "openai"]),
        model: rng.pick(["claude-sonnet-4-5", "gpt-5"]),
        usage: { input: rng.int(0, 1e6), output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0.1, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.1 } },
        stopReason: "stop",
        timestamp: time,
      };
    } else if (kind < 12) {
      e.message = { role: "toolResult", toolCallId: "call_1", toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: time };
    } else if (kind < 13) {
      e.message = { role: version === 2 || version === 1 ? "hookMessage" : "custom", customType: "ext", content: text, display: true, timestamp: time };
    } else if (kind === 13) {
      e.type = "thinking_level_change";
      e.thinkingLevel = rng.pick(["off", "low", "medium", "high"]);
    } else if (kind === 14) {
      e.type = "model_change";
      e.provider = "openai";
      e.modelId = "gpt-5";
    } else if (kind === 15) {
      e.type = "compaction";
      e.summary = `summary ${text}`;
      e.tokensBefore = rng.int(0, 200000);
      if (withIds && ids.length) e.firstKeptEntryId = rng.pick(ids);
      else if (!withIds) e.firstKeptEntryIndex = rng.int(0, entries.length + 1);
    } else if (kind === 16 && withIds) {
      e.type = "branch_summary";
      e.fromId = ids.length ? rng.pick(ids) : "root";
      e.summary = `branch ${text}`;
    } else if (kind === 17 && withIds && ids.length) {
      e.type = "label";
      e.targetId = rng.pick(ids);
      e.label = rng.chance(0.7) ? text || "mark" : undefined;
    } else if (kind === 18) {
      e.type = "custom_message";
      e.customType = "ext";
      e.content = text;
      e.display = rng.chance(0.5);
      if (rng.chance(0.5)) e.details = { n: 1 };
    } else {
      e.type = rng.pick(["custom", "session_info"]);
      if (e.type === "custom") {
        e.customType = "ext";
        e.data = { nested: [1, { deep: text }] };
      } else e.name = text;
    }
    entries.push(e);
    if (e.id) ids.push(e.id);
  }
  const eol = rng.chance(0.1) ? "\r\n" : "\n";
  const text = entries.map((e) => JSON.stringify(e)).join(eol) + (rng.chance(0.85) && entries.length ? eol : "");
  return { text, entries };
}

const INSERTS = ["{", "}", '"', "\\", "\n", "\r", "\r\n", "\0", "\ufeff", ",", "[", "\\u", "\\ud800", "\\udc00", " ", "\n\n", "1e400", "-0", "\u2028", "\u00a0", "null", '"__proto__":{"polluted":1},'];
const RAW = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xef, 0xbb, 0xbf], [0x80], [0x00]];

function splitLines(bytes) {
  const out = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      out.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return out;
}
function joinLines(lines) {
  const total = lines.reduce((n, l) => n + l.length, 0) + Math.max(0, lines.length - 1);
  const out = new Uint8Array(total);
  let at = 0;
  lines.forEach((l, i) => {
    if (i) out[at++] = 0x0a;
    out.set(l, at);
    at += l.length;
  });
  return out;
}
function splice(bytes, at, remove, insert) {
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at));
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

/** Applies 1 to `max` seeded mutations to `bytes`; returns `{ bytes, ops }` (ops describe what was done). */
export function mutate(bytes, rng, max = 4) {
  const ops = [];
  const n = rng.int(1, max + 1);
  for (let k = 0; k < n; k++) {
    const kind = rng.int(0, 7);
    if (kind === 0 && bytes.length) {
      const at = rng.int(0, bytes.length);
      const x = rng.int(1, 256);
      bytes = bytes.slice();
      bytes[at] ^= x;
      ops.push(`flip@${at}^${x}`);
    } else if (kind === 1 || kind === 2) {
      const lines = splitLines(bytes);
      const at = rng.int(0, lines.length);
      if (kind === 1) lines.splice(at, 1);
      else lines.splice(at, 0, lines[at]);
      bytes = joinLines(lines);
      ops.push(`${kind === 1 ? "delete" : "duplicate"}-line@${at}`);
    } else if (kind === 3 && bytes.length) {
      const at = rng.int(0, bytes.length);
      bytes = bytes.slice(0, at);
      ops.push(`truncate@${at}`);
    } else if (kind === 4) {
      const raw = rng.pick(RAW);
      const at = rng.int(0, bytes.length + 1);
      bytes = splice(bytes, at, 0, Uint8Array.from(raw));
      ops.push(`raw@${at}:${raw.map((b) => b.toString(16)).join(" ")}`);
    } else if (kind === 5) {
      const lines = splitLines(bytes);
      const a = rng.int(0, lines.length);
      const b = rng.int(0, lines.length);
      [lines[a], lines[b]] = [lines[b], lines[a]];
      bytes = joinLines(lines);
      ops.push(`swap-lines@${a},${b}`);
    } else {
      const ins = rng.pick(INSERTS);
      const at = rng.int(0, bytes.length + 1);
      bytes = splice(bytes, at, 0, Buffer.from(ins, "utf8"));
      ops.push(`insert@${at}:${JSON.stringify(ins)}`);
    }
  }
  return { bytes, ops };
}
