// Seeded generator of pi session files (JSONL), written the way pi writes them:
// one JSON.stringify(entry) per line, "\n" after each line.
//
// The one session generator of the suites: conformance compares every function with pi on
// its output, reliability mutates it into broken files.
//
// generateSession(seed, { maxEntries, pi16 }) -> { text, seed, version, features, ids, headerId }
//   maxEntries  caps the number of entries (default: no cap; 3 to 300, most under 120)
//   pi16      what pi 1.6 writes besides (default: nothing, and then the output is byte for
//             byte what it was before these options existed): `true` for all of it, or an
//             object of flags (PI16_FEATURES): system messages, context edits, usage entries,
//             retain-none compactions, checkpoints, null content, branch-summary usage. A
//             session with any of them is v3.
//   text      the JSONL file content (JSON.stringify escapes lone surrogates, but a malformed
//             line cut out of another can end in one: its UTF-8 bytes then hold U+FFFD)
//   version   1, 2 or 3: the format the session was written in
//   features  short tags describing what the session contains (for failure reports)
//   ids       entry ids present in the text (empty for v1: ids are made by migration)
//   headerId  the session header's id
//
// The generator stays away from the inputs where we deliberately differ from pi
// (parentId cycles, self-parented entries, duplicate ids, JSON lines that are not
// objects, files whose first entry is not a header, header-less files with ids).

import { Rng } from "./rng.mjs";

// ---------------------------------------------------------------- text content

const WORDS = (
  "the session tree agent refactor compaction branch summary tool call read write edit bash file " +
  "test build cargo npm wasm rust node module import export function return const let async await " +
  "parse migrate context model provider thinking level label custom message entry parent leaf root " +
  "I think we should look at this again, it seems the index is off by one. " +
  "ok let's do it please run the tests and show me the output"
).split(/\s+/);

// Unicode pieces: emoji (surrogate pairs, ZWJ sequences, flags, skin tones), CJK, RTL,
// combining marks, line/paragraph separators, control characters, lone surrogates
// (JSON.stringify escapes those, so the file stays well-formed), quotes and backslashes.
const UNICODE = [
  "😀",
  "👩‍💻",
  "🧑🏽‍🚀",
  "🇯🇵",
  "𝕏𝔂𝔷",
  "漢字",
  "日本語のテキストです",
  "中文内容",
  "한국어 문장",
  "مرحبا بالعالم",
  "שלום עולם",
  "\u202eRTL override\u202c",
  "e\u0301",
  "a\u0308\u0301\u0323",
  "Z\u0364\u0351\u0313\u0324\u0354",
  "\u200b\u200c\u200d",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\u0000",
  "\u0001\u001f",
  "\u007f",
  "\ud83d",
  "\udc00",
  "\\",
  '"',
  "</script>",
  "\t",
  "\r\n",
  "\n\n",
  "€£¥",
  "\uffff",
];

function words(rng, lo, hi) {
  const n = rng.range(lo, hi);
  const out = [];
  for (let i = 0; i < n; i++) {
    if (rng.chance(0.06)) out.push(rng.pick(UNICODE));
    else out.push(rng.pick(WORDS));
  }
  return out.join(rng.chance(0.1) ? "\n" : " ");
}

function codeBlob(rng, approxBytes) {
  const lines = [];
  let size = 0;
  let n = 1;
  while (size < approxBytes) {
    const line = `${String(n).padStart(5, " ")}\t${rng.pick([
      'import { readFileSync } from "fs";',
      "export function buildSessionContext(entries, leafId, byId) {",
      "\tconst path = [];",
      "\twhile (current) { path.unshift(current); }",
      "}",
      '// TODO: handle the "edge" case \\ with care',
      'fn main() { println!("{}", 42); }',
      `\tlet s = "${rng.pick(UNICODE)}";`,
      "",
    ])}`;
    lines.push(line);
    size += line.length + 1;
    n++;
  }
  return lines.join("\n");
}

function someText(rng) {
  const r = rng.next();
  if (r < 0.008) return codeBlob(rng, rng.range(10_000, 60_000)); // long lines, tens of KB
  if (r < 0.12) return codeBlob(rng, rng.range(200, 3000));
  return words(rng, 1, 40);
}

const PROVIDERS = [
  [
    "anthropic",
    "anthropic-messages",
    ["claude-opus-4-5", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-3-opus-20240229"],
  ],
  ["openai", "openai-responses", ["gpt-5.1-codex", "gpt-4o", "o3"]],
  ["openai-codex", "openai-codex-responses", ["gpt-5.3-codex"]],
  ["google", "google-generative-ai", ["gemini-2.5-pro", "gemini-2.5-flash"]],
  ["xai", "openai-completions", ["grok-4"]],
];
const THINKING = ["off", "minimal", "low", "medium", "high", "xhigh"];
const TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"];

function num(rng) {
  // Numbers whose formatting is easy to get wrong.
  return rng.weighted([
    [10, rng.int(0, 5000)],
    [3, rng.int(0, 200000)],
    [2, 0],
    [1, 0.013875000000000002],
    [1, 0.1 + 0.2],
    [1, 1e21],
    [1, 1e-7],
    [1, 5e-324],
    [1, 1.7976931348623157e308],
    [1, 2 ** 53 + 2],
    [1, -1.5],
    [1, 123456.789e3],
  ]);
}

function usage(rng) {
  const input = num(rng);
  const output = num(rng);
  const cacheRead = rng.chance(0.5) ? num(rng) : 0;
  const cacheWrite = rng.chance(0.3) ? num(rng) : 0;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: typeof input === "number" ? input + output + cacheRead + cacheWrite : 0,
    cost: {
      input: rng.next() * 0.05,
      output: rng.next() * 0.05,
      cacheRead: 0,
      cacheWrite: rng.chance(0.3) ? rng.next() * 0.2 : 0,
      total: rng.next() * 0.3,
    },
  };
}

class Clock {
  constructor(rng) {
    this.rng = rng;
    // 2024-06 .. 2026-06
    this.t = Date.UTC(2024, 5, 1) + rng.int(0, 730) * 86400000 + rng.int(0, 86400000);
  }
  tick() {
    const r = this.rng.next();
    if (r < 0.12) return this.t; // equal timestamps
    if (r < 0.85) this.t += this.rng.range(1, 8000);
    else this.t += this.rng.range(8000, 3_600_000);
    return this.t;
  }
}

function iso(ms) {
  return new Date(ms).toISOString();
}

// ---------------------------------------------------------------- messages

function userMessage(rng, ts) {
  let content;
  if (rng.chance(0.35)) content = someText(rng);
  else {
    content = [{ type: "text", text: someText(rng) }];
    if (rng.chance(0.08))
      content.push({
        type: "image",
        data: rng.hex(rng.range(8, 200)),
        mimeType: rng.pick(["image/png", "image/jpeg"]),
      });
  }
  return { role: "user", content, timestamp: ts };
}

function assistantMessage(rng, ts, model) {
  const content = [];
  if (rng.chance(0.35))
    content.push({
      type: "thinking",
      thinking: words(rng, 3, 60),
      thinkingSignature: rng.chance(0.8) ? rng.hex(rng.range(0, 120)) : "",
    });
  if (rng.chance(0.7)) content.push({ type: "text", text: someText(rng) });
  const calls = rng.chance(0.5) ? rng.range(1, 3) : 0;
  const callIds = [];
  for (let i = 0; i < calls; i++) {
    const id = `toolu_${rng.hex(24)}`;
    callIds.push(id);
    const call = {
      type: "toolCall",
      id,
      name: rng.pick(TOOLS),
      arguments: { path: `/work/${rng.pick(WORDS)}.ts`, ...(rng.chance(0.3) ? { offset: rng.int(0, 2000) } : {}) },
    };
    if (rng.chance(0.03)) call.partialJson = '{"path":"/wo';
    content.push(call);
  }
  const stopReason = calls
    ? "toolUse"
    : rng.weighted([
        [20, "stop"],
        [1, "length"],
        [1, "error"],
        [1, "aborted"],
      ]);
  const msg = {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.modelId,
    usage: usage(rng),
    stopReason,
    timestamp: ts,
  };
  if (stopReason === "error" || stopReason === "aborted")
    msg.errorMessage = rng.pick(["Request was aborted", "overloaded_error", "429 rate limited 😬"]);
  if (rng.chance(0.02)) delete msg.provider; // model from an assistant without provider
  return { msg, callIds };
}

function toolResult(rng, ts, callId) {
  const msg = {
    role: "toolResult",
    toolCallId: callId ?? `toolu_${rng.hex(24)}`,
    toolName: rng.pick(TOOLS),
    content: [{ type: "text", text: someText(rng) }],
  };
  if (rng.chance(0.3)) msg.details = { diff: words(rng, 1, 10), firstChangedLine: rng.int(0, 300) };
  msg.isError = rng.chance(0.1);
  msg.timestamp = ts;
  return msg;
}

function bashExecution(rng, ts) {
  const msg = {
    role: "bashExecution",
    command: rng.pick(["ls", "git status", "cargo test", "npm test -- --grep 'x'", "echo 'ünïcödé 🎉'"]),
    output: rng.chance(0.2) ? "" : someText(rng),
    exitCode: rng.weighted([
      [6, 0],
      [2, 1],
      [1, 127],
      [1, undefined],
      [1, null],
    ]),
    cancelled: rng.chance(0.1),
    truncated: rng.chance(0.1),
  };
  if (msg.truncated) msg.fullOutputPath = `/tmp/pi-bash-${rng.hex(8)}.log`;
  if (rng.chance(0.1)) msg.excludeFromContext = true;
  msg.timestamp = ts;
  return msg;
}

function customContent(rng) {
  if (rng.chance(0.5)) return someText(rng);
  const c = [{ type: "text", text: words(rng, 1, 20) }];
  if (rng.chance(0.4)) c.push({ type: "image", data: rng.hex(64), mimeType: "image/png" });
  return c;
}

function details(rng) {
  return rng.weighted([
    [3, undefined],
    [2, { readFiles: ["/a.ts", "/b/ç.rs"], modifiedFiles: [] }],
    [1, { nested: { deep: [1, 2, { x: null }] }, emoji: "🦀" }],
    [1, null],
    [1, "string details"],
  ]);
}

function customRoleMessage(rng, ts, role) {
  const msg = {
    role,
    customType: rng.pick(["my-extension", "plan-mode", "hook:notify", "ext/数据"]),
    content: customContent(rng),
    display: rng.chance(0.6),
  };
  const d = details(rng);
  if (d !== undefined) msg.details = d;
  msg.timestamp = ts;
  return msg;
}

// ---------------------------------------------------------------- pi 1.6 pieces

/** The pi 1.6 additions generateSession can mix in, each behind its own flag. */
export const PI16_FEATURES = [
  "system", // system messages that set, patch and remove sections and tools
  "edits", // context_edit entries: null, string, array; re-edits, other branches, before firstKept, before the target
  "usage", // usage entries
  "retainNone", // compactions whose firstKeptEntryId is their own id
  "checkpoints", // compactions carrying the system checkpoint (chained: content accumulates)
  "nullContent", // null or missing content on user, assistant, toolResult, system, custom_message
  "summaryUsage", // usage on branch summaries and compactions
];

function pi16Flags(option) {
  if (!option) return null;
  const flags = {};
  for (const f of PI16_FEATURES) flags[f] = option === true || option[f] === true;
  return PI16_FEATURES.some((f) => flags[f]) ? flags : null;
}

const SECTION_NAMES = ["preamble", "cwd", "skills", "agents", "date", "10", "2"];
const TOOL_DEFS = TOOLS.map((name) => ({
  name,
  description: `The ${name} tool`,
  parameters: { type: "object", properties: { path: { type: "string", description: "a path" } }, required: ["path"] },
}));

function systemMessage(rng, ts, first, flags) {
  const msg = { role: "system" };
  const content = rng.weighted([
    [first ? 6 : 2, () => (first ? `You are an expert coding assistant. ${words(rng, 5, 30)}` : words(rng, 1, 20))],
    [first ? 1 : 5, () => ""],
    [
      2,
      () => [{ type: "text", text: words(rng, 1, 12) }, ...(rng.chance(0.3) ? [{ type: "text", text: "more" }] : [])],
    ],
    [flags.nullContent ? 1 : 0, () => null],
    [flags.nullContent ? 1 : 0, () => undefined],
  ])();
  if (content !== undefined) msg.content = content;
  if (rng.chance(first ? 0.9 : 0.6)) {
    msg.sections = {};
    for (let k = rng.range(1, 4); k > 0; k--)
      msg.sections[rng.pick(SECTION_NAMES)] = !first && rng.chance(0.3) ? null : words(rng, 1, 8);
  }
  if (!first && rng.chance(0.3))
    msg.toolsRemoved = [{ name: rng.pick(TOOLS) }, ...(rng.chance(0.2) ? [{ name: "nope" }] : [])];
  if (rng.chance(first ? 0.9 : 0.4)) {
    const tools = TOOL_DEFS.filter(() => rng.chance(0.5));
    if (tools.length || rng.chance(0.2)) msg.toolsAdded = tools;
  }
  const t = rng.weighted([
    [12, ts],
    [1, null],
    [1, undefined],
  ]);
  if (t !== undefined) msg.timestamp = t;
  return msg;
}

/** Text of a system message's content as pi-ai reads it (strings, text blocks joined by "\n"). */
function systemText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .filter((b) => b?.type === "text")
      .map((b) => b.text ?? "")
      .join("\n");
  return "";
}

/**
 * A compaction checkpoint: the system messages since the previous checkpoint replayed over it
 * (content accumulates, sections and tools replace by name), as pi's appendCompaction stores it.
 * It need not equal pi's exactly: readers only have to pass it on.
 */
export function checkpoint(systems, ms) {
  const texts = [];
  const sections = new Map();
  const tools = new Map();
  for (const m of systems) {
    const t = systemText(m.content);
    if (t) texts.push(t);
    for (const [k, v] of Object.entries(m.sections ?? {})) {
      if (v === null) sections.delete(k);
      else sections.set(k, v);
    }
    for (const r of m.toolsRemoved ?? []) tools.delete(r.name);
    for (const a of m.toolsAdded ?? []) tools.set(a.name, a);
  }
  const out = { role: "system", content: texts.join("\n\n") };
  if (sections.size) out.sections = Object.fromEntries(sections);
  if (tools.size) out.toolsAdded = [...tools.values()];
  out.timestamp = ms;
  return out;
}

/** A copy of `obj` with `key: value` placed just before `before` (or last). */
function insertBefore(obj, key, value, before) {
  const out = {};
  let placed = false;
  for (const [k, v] of Object.entries(obj)) {
    if (k === before && !placed) {
      out[key] = value;
      placed = true;
    }
    out[k] = v;
  }
  if (!placed) out[key] = value;
  return out;
}

// ---------------------------------------------------------------- sessions

function pickModel(rng) {
  const [provider, api, models] = rng.pick(PROVIDERS);
  return { provider, api, modelId: rng.pick(models) };
}

function sessionSize(rng, maxEntries) {
  const n = rng.weighted([
    [3, rng.range(0, 2)],
    [60, rng.range(3, 30)],
    [30, rng.range(30, 120)],
    [7, rng.range(120, 300)],
  ]);
  return Math.min(n, maxEntries);
}

function timestampQuirk(rng, ms) {
  // pi always writes toISOString(); other spellings still parse with new Date()
  return rng.weighted([
    [6, iso(ms)],
    [2, iso(ms).replace(/\.\d{3}Z$/, "Z")],
    [1, iso(ms).replace("Z", "+00:00")],
    [1, new Date(ms).toUTCString()],
    [1, "not a date"],
    [1, undefined],
    [1, ms],
  ]);
}

/** v1: linear, no ids; compactions point with firstKeptEntryIndex into the parsed array. */
function buildV1(rng, features, maxEntries) {
  const clock = new Clock(rng);
  const model = pickModel(rng);
  const header = { type: "session" };
  if (rng.chance(0.3)) {
    header.version = 1;
    features.add("v1-explicit-version");
  }
  header.id = rng.uuid();
  header.timestamp = iso(clock.t);
  header.cwd = rng.pick(["/Users/badlogic/workspaces/pi-mono", "/home/dev/проект", "C:\\Users\\dev\\code", "/tmp"]);
  header.provider = model.provider;
  header.modelId = model.modelId;
  header.thinkingLevel = rng.pick(THINKING);
  if (rng.chance(0.3)) header.branchedFrom = `/Users/x/.pi/agent/sessions/--tmp--/${rng.hex(8)}.jsonl`;

  // Entries with ids in a v1 file keep them in ours and are re-identified by
  // pi: a documented difference (README), tested in broken.test.js, so the
  // random run does not produce them.
  const strayIds = false;

  const entries = [header];
  const n = sessionSize(rng, maxEntries);
  let pendingCalls = [];
  let cur = model;
  const compactions = [];
  for (let i = 0; i < n; i++) {
    const ts = clock.tick();
    let e;
    if (pendingCalls.length) {
      e = { type: "message", timestamp: iso(ts), message: toolResult(rng, ts + 3, pendingCalls.shift()) };
    } else {
      const kind = rng.weighted([
        [30, "user"],
        [40, "assistant"],
        [4, "bash"],
        [5, "thinking"],
        [4, "model"],
        [3, "compaction"],
      ]);
      if (kind === "user") e = { type: "message", timestamp: iso(ts), message: userMessage(rng, ts - 5) };
      else if (kind === "assistant") {
        const a = assistantMessage(rng, ts - 2, cur);
        pendingCalls = a.callIds;
        e = { type: "message", timestamp: iso(ts), message: a.msg };
      } else if (kind === "bash") e = { type: "message", timestamp: iso(ts), message: bashExecution(rng, ts) };
      else if (kind === "thinking")
        e = { type: "thinking_level_change", timestamp: iso(ts), thinkingLevel: rng.pick(THINKING) };
      else if (kind === "model") {
        cur = pickModel(rng);
        e = { type: "model_change", timestamp: iso(ts), provider: cur.provider, modelId: cur.modelId };
      } else {
        e = {
          type: "compaction",
          timestamp: iso(ts),
          summary: rng.chance(0.1) ? "" : someText(rng),
          firstKeptEntryIndex: 0,
          tokensBefore: rng.range(1000, 200000),
        };
        compactions.push({ e, pos: entries.length });
      }
    }
    if (strayIds && rng.chance(0.5)) {
      e = { type: e.type, id: rng.hex(8), parentId: rng.chance(0.5) ? null : rng.hex(8), ...e };
    }
    entries.push(e);
  }
  if (rng.chance(0.02) && entries.length > 3) {
    // a second header mid-file (pi migrates every header it finds)
    const h2 = { type: "session", id: rng.uuid(), timestamp: iso(clock.tick()), cwd: "/tmp/other" };
    entries.splice(rng.range(2, entries.length - 1), 0, h2);
    features.add("second-header");
  }
  // now the indices are final: point firstKeptEntryIndex somewhere
  for (const { e } of compactions) {
    const pos = entries.indexOf(e);
    const choice = rng.weighted([
      [14, "before"],
      [2, "header"],
      [2, "out-of-range"],
      [2, "later"],
      [1, "self"],
      [1, "negative"],
      [1, "fraction"],
      [1, "string"],
      [1, "absent"],
    ]);
    features.add(`v1-fkei-${choice}`);
    if (choice === "before") e.firstKeptEntryIndex = rng.range(1, Math.max(1, pos - 1));
    else if (choice === "header") e.firstKeptEntryIndex = 0;
    else if (choice === "out-of-range") e.firstKeptEntryIndex = entries.length + rng.range(0, 50);
    else if (choice === "later") e.firstKeptEntryIndex = Math.min(entries.length - 1, pos + rng.range(1, 5));
    else if (choice === "self") e.firstKeptEntryIndex = pos;
    else if (choice === "negative") e.firstKeptEntryIndex = -rng.range(1, 3);
    else if (choice === "fraction") e.firstKeptEntryIndex = 1.5;
    else if (choice === "string") e.firstKeptEntryIndex = String(Math.max(1, pos - 1));
    else delete e.firstKeptEntryIndex;
  }
  return { entries, ids: [], headerId: header.id };
}

/** v2 / v3: id/parentId tree with branches, all entry types. */
function buildTree(rng, version, features, maxEntries, flags = null) {
  const clock = new Clock(rng);
  const header = {
    type: "session",
    version,
    id: rng.uuid(),
    timestamp: iso(clock.t),
    cwd: rng.pick(["/home/dev/project", "/Users/mario/ワーク", "/tmp"]),
  };
  if (rng.chance(0.15)) header.parentSession = `/home/dev/.pi/agent/sessions/--tmp--/${rng.hex(8)}.jsonl`;
  const entries = [header];
  const byId = new Map();
  const used = new Set();
  const newId = () => {
    for (;;) {
      const id = rng.hex(8);
      if (!used.has(id)) {
        used.add(id);
        return id;
      }
    }
  };
  const unknownId = () => {
    for (;;) {
      const id = rng.chance(0.5) ? rng.hex(8) : rng.pick(["missing", "nonexistent", "deadbeef0", "00000000"]);
      if (!used.has(id)) return id;
    }
  };
  const pathTo = (id) => {
    const p = [];
    let cur = id ? byId.get(id) : undefined;
    while (cur) {
      p.unshift(cur);
      cur = cur.parentId ? byId.get(cur.parentId) : undefined;
    }
    return p;
  };
  let leaf = null;
  let cur = pickModel(rng);
  let pendingCalls = [];
  const quirkyTimes = rng.chance(0.03);
  if (quirkyTimes) features.add("timestamp-quirks");
  const stamp = (ms) => (quirkyTimes && rng.chance(0.3) ? timestampQuirk(rng, ms) : iso(ms));
  const add = (e) => {
    entries.push(e);
    byId.set(e.id, e);
    leaf = e.id;
  };
  // pi 1.6: an id reserved by an edit written before its target (the next message takes it)
  let reservedId = null;
  const base = (type, ms) => {
    let id;
    if (type === "message" && reservedId !== null) {
      id = reservedId;
      reservedId = null;
    } else id = newId();
    return { type, id, parentId: leaf, timestamp: stamp(ms) };
  };
  const edited = [];
  if (flags?.system && rng.chance(0.7)) {
    // pi 1.6 writes the prompt state at the session's first request
    const e = base("message", clock.t);
    e.message = systemMessage(rng, clock.t, true, flags);
    add(e);
    features.add("system-first");
  }

  /** The newest checkpoint on the path to `id`, and the system messages after it (for the next one). */
  const systemsSinceCheckpoint = (path) => {
    const out = [];
    for (let k = path.length - 1; k >= 0; k--) {
      const x = path[k];
      if (x.type === "compaction" && x.systemMessage) {
        out.unshift(x.systemMessage);
        break;
      }
      if (x.type === "message" && x.message?.role === "system") out.unshift(x.message);
    }
    return out;
  };
  const compaction16 = (e, path, ts) => {
    let out = e;
    if (flags.retainNone && rng.chance(0.15)) {
      out.firstKeptEntryId = out.id; // retain-none, as pi 1.6 writes for null
      features.add("retain-none");
    }
    if (flags.summaryUsage && rng.chance(0.5)) {
      out = insertBefore(out, "usage", usage(rng), "fromHook");
      features.add("compaction-usage");
    }
    if (flags.checkpoints && rng.chance(0.8)) {
      const systems = systemsSinceCheckpoint(path);
      if (systems.length) {
        out.systemMessage = checkpoint(systems, rng.chance(0.9) ? ts : ts + rng.range(-5000, 5000));
        features.add(
          path.some((x) => x.type === "compaction" && x.systemMessage) ? "checkpoint-chained" : "checkpoint",
        );
      }
    }
    return out;
  };
  const editableOnPath = (path) =>
    path.filter(
      (x) =>
        x.type === "custom_message" ||
        (x.type === "message" && ["user", "assistant", "toolResult"].includes(x.message?.role)),
    );
  const pi16Entry = (kind, ts) => {
    if (kind === "system") {
      const e = base("message", ts);
      e.message = systemMessage(rng, ts - 2, false, flags);
      features.add("system");
      return e;
    }
    if (kind === "usage") {
      const e = base("usage", ts);
      e.kind = rng.pick(["cache_warm", "cache_warm", "extension", ""]);
      const m = pickModel(rng);
      e.provider = m.provider;
      e.model = m.modelId;
      e.usage = usage(rng);
      if (rng.chance(0.3)) e.note = rng.pick(["extension override", "warm-up 🔥"]);
      features.add("usage");
      return e;
    }
    if (kind === "null-content") {
      const e = base("message", ts);
      const role = rng.pick(["user", "assistant", "toolResult", "system", "custom_message"]);
      if (role === "custom_message") {
        const c = { type: "custom_message", customType: "ext", display: rng.chance(0.5) };
        if (rng.chance(0.5)) c.content = null;
        features.add("null-content-custom_message");
        return { ...c, id: e.id, parentId: e.parentId, timestamp: e.timestamp };
      }
      const msg = { role };
      if (rng.chance(0.5)) msg.content = null;
      if (role === "assistant")
        Object.assign(msg, { api: cur.api, provider: cur.provider, model: cur.modelId, stopReason: "stop" });
      if (role === "toolResult")
        Object.assign(msg, { toolCallId: `toolu_${rng.hex(24)}`, toolName: rng.pick(TOOLS), isError: false });
      msg.timestamp = ts - 1;
      e.message = msg;
      features.add(`null-content-${role}`);
      return e;
    }
    // a context edit
    const e = base("context_edit", ts);
    const path = pathTo(leaf);
    const editable = editableOnPath(path);
    const choice = rng.weighted([
      [10, "on-path"],
      [edited.length ? 3 : 0, "re-edit"],
      [2, "off-path"],
      [2, "before-target"],
      [1, "unknown"],
      [1, "not-editable"],
    ]);
    let target;
    if (choice === "on-path" && editable.length) target = rng.pick(editable).id;
    else if (choice === "re-edit") target = rng.pick(edited);
    else if (choice === "off-path" && entries.length > 1) target = entries[rng.range(1, entries.length - 1)].id;
    else if (choice === "before-target") {
      reservedId = newId();
      target = reservedId;
    } else if (choice === "not-editable" && path.length) target = rng.pick(path).id;
    else target = unknownId();
    features.add(`edit-${choice}`);
    edited.push(target);
    e.targetId = target;
    e.replacement = rng.weighted([
      [3, () => null],
      [3, () => ({ content: words(rng, 1, 10) })],
      [3, () => ({ content: [{ type: "text", text: words(rng, 1, 10) }] })],
      [1, () => ({ content: [] })],
      [1, () => ({ content: "with extra keys", extra: { kept: true } })],
    ])();
    if (e.replacement === null) features.add("edit-omits");
    return e;
  };

  const n = sessionSize(rng, maxEntries);
  for (let i = 0; i < n; i++) {
    let ts = clock.tick();
    const all = entries.length - 1;
    // branching: move the leaf to an earlier entry
    if (all > 2 && rng.chance(0.07)) {
      const from = leaf;
      const target = entries[rng.range(1, all)];
      leaf = target.id;
      pendingCalls = [];
      features.add("branch");
      if (rng.chance(0.3)) {
        // a sibling written later, with an earlier timestamp (clock skew)
        ts -= rng.range(1, 100000);
        features.add("skewed-sibling");
      }
      if (rng.chance(0.45)) {
        const e = {
          type: "branch_summary",
          id: newId(),
          parentId: leaf,
          timestamp: stamp(ts),
          fromId: from ?? "root",
          summary: rng.chance(0.15) ? "" : someText(rng),
        };
        const d = details(rng);
        if (d !== undefined) e.details = d;
        if (rng.chance(0.2)) e.fromHook = rng.chance(0.5);
        if (flags?.summaryUsage && rng.chance(0.5)) {
          add(insertBefore(e, "usage", usage(rng), "fromHook"));
          features.add("branch-summary-usage");
          continue;
        }
        add(e);
        features.add(e.summary ? "branch-summary" : "branch-summary-empty");
        continue;
      }
    } else if (all > 0 && rng.chance(0.008)) {
      leaf = null; // resetLeaf(): a second root
      features.add("second-root");
    }
    if (rng.chance(0.005) && all > 0) {
      // orphan: parent that does not exist
      leaf = unknownId();
      features.add("orphan");
    }

    let e;
    if (pendingCalls.length && rng.chance(0.9)) {
      e = base("message", ts);
      e.message = toolResult(rng, ts - 1, pendingCalls.shift());
      add(e);
      continue;
    }
    pendingCalls = [];
    if (flags) {
      const extra = rng.weighted([
        [40, "none"],
        [flags.system ? 3 : 0, "system"],
        [flags.edits ? 5 : 0, "edit"],
        [flags.usage ? 3 : 0, "usage"],
        [flags.nullContent ? 2 : 0, "null-content"],
      ]);
      if (extra !== "none") {
        add(pi16Entry(extra, ts));
        continue;
      }
    }
    const kind = rng.weighted([
      [28, "user"],
      [34, "assistant"],
      [3, "bash"],
      [3, "custom-role"],
      [3, "thinking"],
      [3, "model"],
      [3, "compaction"],
      [3, "custom"],
      [4, "custom_message"],
      [4, "label"],
      [2, "session_info"],
    ]);
    if (kind === "user") {
      e = base("message", ts);
      e.message = userMessage(rng, ts - 4);
    } else if (kind === "assistant") {
      e = base("message", ts);
      const a = assistantMessage(rng, ts - 1, cur);
      e.message = a.msg;
      pendingCalls = a.callIds;
    } else if (kind === "bash") {
      e = base("message", ts);
      e.message = bashExecution(rng, ts);
    } else if (kind === "custom-role") {
      e = base("message", ts);
      e.message = customRoleMessage(rng, ts, version === 2 ? "hookMessage" : "custom");
      features.add(version === 2 ? "hookMessage" : "custom-role");
    } else if (kind === "thinking") {
      e = base("thinking_level_change", ts);
      e.thinkingLevel = rng.pick(THINKING);
    } else if (kind === "model") {
      cur = pickModel(rng);
      e = base("model_change", ts);
      e.provider = cur.provider;
      e.modelId = cur.modelId;
    } else if (kind === "compaction") {
      e = base("compaction", ts);
      e.summary = rng.chance(0.05) ? "" : someText(rng);
      const path = pathTo(leaf);
      const choice = rng.weighted([
        [12, "on-path"],
        [2, "off-path"],
        [1, "unknown"],
        [1, "parent"],
        [1, "absent"],
        [1, "self-compaction"],
      ]);
      features.add(`fkei-${choice}`);
      let fk;
      if (choice === "on-path" && path.length) fk = rng.pick(path).id;
      else if (choice === "off-path" && all > 0) fk = entries[rng.range(1, all)].id;
      else if (choice === "unknown") fk = unknownId();
      else if (choice === "parent") fk = leaf ?? undefined;
      else if (choice === "self-compaction") fk = e.id;
      if (fk !== undefined) e.firstKeptEntryId = fk;
      e.tokensBefore = rng.range(1000, 200000);
      const d = details(rng);
      if (d !== undefined) e.details = d;
      if (rng.chance(0.2)) e.fromHook = rng.chance(0.5);
      if (version === 2 && rng.chance(0.05)) {
        e.firstKeptEntryIndex = rng.int(0, all + 2);
        features.add("v2-fkei");
      }
      if (flags) e = compaction16(e, path, ts);
    } else if (kind === "custom") {
      e = { type: "custom", customType: rng.pick(["my_data", "plan-mode", "拡張"]) };
      if (rng.chance(0.85))
        e.data = rng.weighted([
          [3, { key: "value", n: num(rng) }],
          [1, [1, "two", null]],
          [1, null],
          [1, words(rng, 1, 5)],
        ]);
      Object.assign(e, { id: newId(), parentId: leaf, timestamp: stamp(ts) });
    } else if (kind === "custom_message") {
      e = {
        type: "custom_message",
        customType: rng.pick(["my-extension", "todo", "ext/数据"]),
        content: customContent(rng),
        display: rng.chance(0.5),
      };
      const d = details(rng);
      if (d !== undefined) e.details = d;
      Object.assign(e, { id: newId(), parentId: leaf, timestamp: stamp(ts) });
      features.add("custom_message");
    } else if (kind === "label") {
      e = base("label", ts);
      const targets = entries.slice(1);
      e.targetId = targets.length && rng.chance(0.92) ? rng.pick(targets).id : unknownId();
      const l = rng.weighted([
        [7, "set"],
        [1, "empty"],
        [2, "absent"],
      ]);
      if (l === "set") e.label = rng.pick(["checkpoint", "start", "✅ works", "重要", "v2", words(rng, 1, 3)]);
      else if (l === "empty") e.label = "";
      features.add(`label-${l}`);
    } else {
      e = base("session_info", ts);
      e.name = rng.chance(0.1) ? "" : words(rng, 1, 4);
    }
    add(e);
  }
  const ids = entries.slice(1).map((x) => x.id);
  return { entries, ids, headerId: header.id };
}

// ---------------------------------------------------------------- file decoration

const GARBAGE = [
  "not json",
  "garbage content",
  "<<<<<<< HEAD",
  "}{",
  "{",
  '{"type":"message",',
  "undefined",
  "NaN",
  "{'single':'quotes'}",
  "💥 broken ☃ line",
  '{"type":"message"}}',
  "[1,2",
  "\u0000\u0001binary",
  '{"a":1}trailing',
];

function isJson(line) {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** Cut a line at a code-point boundary so the text stays well-formed UTF-16. */
function truncateLine(rng, line) {
  if (line.length < 2) return "{";
  let cut = rng.range(1, line.length - 1);
  const c = line.charCodeAt(cut);
  if (c >= 0xdc00 && c <= 0xdfff) cut--; // don't split a surrogate pair
  return line.slice(0, Math.max(1, cut));
}

function malformedLine(rng, lines) {
  for (let tries = 0; tries < 20; tries++) {
    const cand = rng.chance(0.5) && lines.length ? truncateLine(rng, rng.pick(lines)) : rng.pick(GARBAGE);
    if (cand.includes("\n") || cand.includes("\r") || cand.trim() === "" || isJson(cand)) continue;
    return cand;
  }
  return "not json";
}

const BLANKS = ["", " ", "\t", "   \t "];

// ---------------------------------------------------------------- entry point

/**
 * A generated session that is not an empty file: the first of seeds `seed`, `seed + 1`, …
 * that `generateSession` does not draw as one (about 1 in 100 are), for a test that needs a
 * header. Header-only sessions (about 1 in 140) are kept.
 */
export function generateWithHeader(seed, options) {
  for (let s = seed >>> 0; ; s = (s + 1) >>> 0) {
    const generated = generateSession(s, options);
    if (!generated.features.includes("empty-file")) return generated;
  }
}

export function generateSession(seed, { maxEntries = Number.POSITIVE_INFINITY, pi16 = false } = {}) {
  const rng = new Rng(seed);
  const features = new Set();
  const flags = pi16Flags(pi16);
  const version = flags
    ? 3
    : rng.weighted([
        [25, 1],
        [20, 2],
        [55, 3],
      ]);
  if (flags) features.add("pi16");
  features.add(`v${version}`);

  if (rng.chance(0.01)) {
    features.add("empty-file");
    const text = rng.pick(["", "\n", "  \n\t\n", "\r\n"]);
    return { text, seed, version, features: [...features], ids: [], headerId: undefined };
  }

  const built =
    version === 1 ? buildV1(rng, features, maxEntries) : buildTree(rng, version, features, maxEntries, flags);
  if (built.entries.length === 1) features.add("header-only");
  const lines = built.entries.map((e) => JSON.stringify(e));

  // decorations: malformed lines, blank lines (never before the header)
  if (rng.chance(0.15)) {
    features.add("malformed-lines");
    const k = rng.range(1, 3);
    for (let i = 0; i < k; i++) lines.splice(rng.range(1, lines.length), 0, malformedLine(rng, lines));
  }
  if (rng.chance(0.1)) {
    features.add("blank-lines");
    const k = rng.range(1, 3);
    for (let i = 0; i < k; i++) lines.splice(rng.range(1, lines.length), 0, rng.pick(BLANKS));
  }
  let truncatedTail = false;
  if (rng.chance(0.03) && lines.length > 1) {
    // crash mid-write: the last line is cut off (and has no newline)
    features.add("truncated-tail");
    lines.push(malformedLine(rng, [lines[lines.length - 1]]));
    truncatedTail = true;
  }
  const eol = rng.chance(0.08) ? "\r\n" : "\n";
  if (eol === "\r\n") features.add("crlf");
  let text = lines.join(eol);
  if (!truncatedTail) {
    if (rng.chance(0.9)) text += eol;
    else features.add("no-final-newline");
  }
  if (rng.chance(0.02)) {
    features.add("trailing-blank-lines");
    text += `${eol}${eol}`;
  }
  return { text, seed, version, features: [...features], ids: built.ids, headerId: built.headerId };
}
