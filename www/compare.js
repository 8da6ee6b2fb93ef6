// Two branches side by side, without the DOM: where two paths fork and what
// each side did after it (messages, tool calls, files touched, and tokens and
// cost as the package counts them). The worker runs it on `Session.getBranch` paths; the compare panel
// (panels/compare.js) draws the result. Unit tests: tests/viewer/unit/compare.test.mjs.

import { formatToolCall, kindOf, summarize } from "./model.js";

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The index of the last entry two root-first paths share, or -1 when they
 * share none (different roots). Both paths come from the same tree, so they
 * agree up to the fork and differ after it.
 */
export function forkIndex(pathA, pathB) {
  const n = Math.min(pathA.length, pathB.length);
  let i = 0;
  while (i < n && pathA[i]?.id === pathB[i]?.id) i++;
  return i - 1;
}

/** The tools an assistant message calls: `{ id, name, arguments }`. */
export function toolCallsOf(entry) {
  if (entry?.type !== "message" || entry.message?.role !== "assistant") return [];
  const content = entry.message.content;
  if (!Array.isArray(content)) return [];
  return content
    .filter((b) => isObject(b) && b.type === "toolCall")
    .map((b) => ({ id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: b.arguments }));
}

/** The file a tool call names in its arguments (`path` or `file_path`), or `null`. */
export function fileOfCall(call) {
  const a = isObject(call.arguments) ? call.arguments : {};
  const p = typeof a.path === "string" ? a.path : typeof a.file_path === "string" ? a.file_path : null;
  return p?.trim() ? p : null;
}

/**
 * One side after the fork. `entries` are that side's entries after the fork
 * point, root first; `toolCalls` maps tool call ids to calls (for the
 * summaries of tool results; calls made before the fork count too);
 * `usageOf(entries)` is what those entries cost, as the package counts it
 * (the worker passes `sessionUsage(entries).total`: one implementation of
 * pi's accounting), or `null`.
 */
export function describeSide(entries, toolCalls = new Map(), usageOf = () => null) {
  const rows = [];
  const calls = [];
  const files = new Map();
  let messages = 0;
  for (const e of entries) {
    for (const call of toolCallsOf(e)) toolCalls.set(call.id, call);
  }
  for (const e of entries) {
    if (e?.type === "message" || e?.type === "custom_message") messages++;
    for (const call of toolCallsOf(e)) {
      calls.push({ entryId: e.id, id: call.id, name: call.name, text: formatToolCall(call.name, call.arguments) });
      const file = fileOfCall(call);
      if (file) {
        const f = files.get(file) ?? { path: file, tools: [] };
        if (!f.tools.includes(call.name)) f.tools.push(call.name);
        files.set(file, f);
      }
    }
    rows.push({
      id: String(e?.id ?? ""),
      kind: kindOf(e),
      role: e?.type === "message" ? String(e.message?.role ?? "") : "",
      summary: summarize(e, toolCalls),
    });
  }
  return { rows, messages, toolCalls: calls, files: [...files.values()], usage: usageOf(entries) };
}

/**
 * Compares the branches ending at two leaves, given their root-first paths:
 * the fork point (the last common entry, `null` without one) and each side's
 * entries after it, described by `describeSide` (`usageOf` as it takes it).
 */
export function compareBranches(pathA, pathB, usageOf) {
  const fork = forkIndex(pathA, pathB);
  const before = new Map();
  for (let i = 0; i <= fork; i++) for (const call of toolCallsOf(pathA[i])) before.set(call.id, call);
  const forkEntry = fork >= 0 ? pathA[fork] : null;
  return {
    fork: forkEntry ? { id: String(forkEntry.id), index: fork, summary: summarize(forkEntry, before) } : null,
    a: { leafId: String(pathA.at(-1)?.id ?? ""), ...describeSide(pathA.slice(fork + 1), new Map(before), usageOf) },
    b: { leafId: String(pathB.at(-1)?.id ?? ""), ...describeSide(pathB.slice(fork + 1), new Map(before), usageOf) },
  };
}

/** `#compare=<a>,<b>` as `[a, b]`, or `null` when the hash is something else. */
export function parseCompareHash(hash) {
  const m = /^#compare=([^,]*),(.*)$/.exec(String(hash ?? ""));
  if (!m) return null;
  const dec = (s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const a = dec(m[1]);
  const b = dec(m[2]);
  return a && b ? [a, b] : null;
}

/** The hash that opens the comparison of `a` and `b`. */
export const compareHash = (a, b) => `#compare=${encodeURIComponent(a)},${encodeURIComponent(b)}`;

/** The comparison of the leaves `a` and `b`, given `getBranch(id)` (root-first entries, `[]` for an unknown id). */
export function compareLeaves(getBranch, a, b, usageOf) {
  const pathA = getBranch(a);
  const pathB = getBranch(b);
  for (const [id, path] of [
    [a, pathA],
    [b, pathB],
  ]) {
    if (!path.length) throw new Error(`No entry with id "${id}" in this session, so there is nothing to compare.`);
  }
  return compareBranches(pathA, pathB, usageOf);
}
