// Replay machinery for session.test.js: the same calls on pi's SessionManager and on our
// Session, with observations canonicalized so that the two sides can be compared as text.
//
// Ids: each side makes its own random 8-hex entry ids (and uuid session ids), so every
// quoted id-shaped string is replaced by its rank of first appearance on that side; ids
// returned by append calls are registered in call order, so ranks line up across sides.
// Time: either the wall clock (then ISO timestamps, and the numeric timestamps that contexts
// derive from them, are masked) or a controlled clock shared by both sides (then nothing
// is masked: both sides must produce identical timestamps).
import {
  piBuildContextEntriesRaw,
  piBuildSessionContextRaw,
  piBuildSessionProjectionRaw,
  SessionManager,
} from "./reference.js";

// ---------------------------------------------------------------- clock

const RealDate = globalThis.Date;
let clockMs = null;

/** `Date` whose argument-less constructor and `now()` read the controlled clock. */
class ClockDate extends RealDate {
  constructor(...args) {
    if (args.length === 0 && clockMs !== null) super(clockMs);
    else super(...args);
  }
  static now() {
    return clockMs ?? RealDate.now();
  }
}

/** Run fn with the wall clock (ms === null) or with `new Date()` / `Date.now()` fixed at ms. */
export function withClock(ms, fn) {
  if (ms === null || ms === undefined) return fn();
  const saved = globalThis.Date;
  globalThis.Date = ClockDate;
  clockMs = ms;
  try {
    return fn();
  } finally {
    globalThis.Date = saved;
    clockMs = null;
  }
}

// ---------------------------------------------------------------- canonical text

const ID_RE = /"([0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?)"/g;
const ISO_RE = /"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"/g;
const DERIVED_TS_ROLES = new Set(["branchSummary", "compactionSummary", "custom"]);

export class Canon {
  /** mask: mask timestamps; ids: false to leave ids as they are (both sides hold the same ids). */
  constructor(mask, { ids = true } = {}) {
    this.mask = mask;
    this.ids = ids;
    this.map = new Map();
  }
  reg(id) {
    let r = this.map.get(id);
    if (r === undefined) {
      r = `#${this.map.size}`;
      this.map.set(id, r);
    }
    return r;
  }
  /** A copy: ids first seen in the copy do not enter this map. */
  fork() {
    const c = new Canon(this.mask, { ids: this.ids });
    c.map = new Map(this.map);
    return c;
  }
  text(s) {
    let out = this.ids ? s.replace(ID_RE, (_, id) => `"${this.reg(id)}"`) : s;
    if (this.mask) out = out.replace(ISO_RE, '"<ts>"');
    return out;
  }
  /** JSON.stringify (undefined shown as <undefined>), canonicalized. */
  json(v) {
    if (v === undefined) return "<undefined>";
    return this.text(JSON.stringify(v));
  }
  /** A context: with masking, the numeric timestamps derived from entry timestamps are masked too. */
  context(ctx) {
    if (!this.mask || !ctx || !Array.isArray(ctx.messages)) return this.json(ctx);
    const copy = JSON.parse(JSON.stringify(ctx));
    for (const m of copy.messages)
      if (m && DERIVED_TS_ROLES.has(m.role) && typeof m.timestamp === "number") m.timestamp = "<ts-number>";
    return this.json(copy);
  }
}

/** Masks the derived timestamps of a projection's messages (both lists), like context(). */
Canon.prototype.projection = function projection(p) {
  if (!this.mask || !p || !Array.isArray(p.messages)) return this.json(p);
  const copy = JSON.parse(JSON.stringify(p));
  const lists = [copy.messages, ...(Array.isArray(copy.entries) ? copy.entries.map((x) => x?.messages ?? []) : [])];
  for (const list of lists)
    for (const m of list)
      if (m && DERIVED_TS_ROLES.has(m.role) && typeof m.timestamp === "number") m.timestamp = "<ts-number>";
  return this.json(copy);
};

/** Outcome of a call as text: value (via `show`) or the error's class and message. */
export function outcome(fn, show) {
  let v;
  try {
    v = fn();
  } catch (e) {
    return { threw: true, text: `<throws ${e?.constructor?.name ?? typeof e}: ${e?.message ?? e}>` };
  }
  return { threw: false, value: v, text: show(v) };
}

// ---------------------------------------------------------------- sides

/** References to entries inside step arguments: the k-th id an append returned (per side). */
export class Ref {
  constructor(k) {
    this.k = k;
  }
}
export const ref = (k) => new Ref(k);

function resolve(arg, ids) {
  if (arg instanceof Ref) {
    if (arg.k >= ids.length) throw new Error(`harness: step refers to entry #${arg.k} but only ${ids.length} exist`);
    return ids[arg.k];
  }
  // each side gets its own deep copy: pi keeps references to the objects it is given
  return arg === undefined ? undefined : structuredClone(arg);
}

export function renderArg(a) {
  if (a instanceof Ref) return `$${a.k}`;
  if (a === undefined) return "undefined";
  const s = JSON.stringify(a);
  return s.length > 70 ? `${s.slice(0, 67)}...` : s;
}
export function renderStep(step) {
  return `${step.op}(${step.args.map(renderArg).join(", ")})`;
}

export function piSide(sm, mask) {
  return {
    name: "pi",
    sm,
    ids: [],
    canon: new Canon(mask),
    call: (op, args) => sm[op](...args),
    leaf: () => sm.getLeafId(),
    header: () => sm.getHeader(),
    contextAt: (leaf) => piBuildSessionContextRaw(sm.getEntries(), leaf, sm.byId),
    contextEntriesAt: (leaf) => piBuildContextEntriesRaw(sm.getEntries(), leaf, sm.byId),
    projectionAt: (leaf) => piBuildSessionProjectionRaw(sm.getEntries(), leaf, sm.byId),
    get: sm,
  };
}

export function oursSide(s, mask) {
  return {
    name: "ours",
    s,
    ids: [],
    canon: new Canon(mask),
    call: (op, args) => s[op](...args),
    leaf: () => s.leafId,
    header: () => s.header,
    contextAt: (leaf) => s.buildSessionContext(leaf),
    contextEntriesAt: (leaf) => s.buildContextEntries(leaf),
    projectionAt: (leaf) => s.buildSessionProjection(leaf),
    get: s,
  };
}

/** Calls one write step on a side, registering a returned id. */
export function applyStep(side, step) {
  const args = step.args.map((a) => resolve(a, side.ids));
  const o = outcome(
    () => side.call(step.op, args),
    (v) => (typeof v === "string" ? side.canon.text(JSON.stringify(v)) : side.canon.json(v)),
  );
  // error messages name entries by id, unquoted: canonicalize those too
  if (o.threw && side.canon.ids) return o.text.replace(/\b[0-9a-f]{8}\b/g, (id) => side.canon.reg(id));
  if (!o.threw && typeof o.value === "string" && o.value !== "") side.ids.push(o.value);
  // appendUsage returns the entry itself (every other append returns the id)
  else if (!o.threw && step.op === "appendUsage" && typeof o.value?.id === "string") side.ids.push(o.value.id);
  return o.text;
}

/**
 * Everything the brief asks to compare after a step. `targets` are Ref or plain strings
 * (unknown ids, null): each is used for getEntry/getChildren/getLabel/getBranch/context.
 */
export function observe(side, targets) {
  const c = side.canon;
  const o = side.get;
  const rec = [];
  const put = (key, fn, show = (v) => c.json(v)) => rec.push([key, outcome(fn, show).text]);
  const h = outcome(
    () => side.header(),
    (v) => v,
  );
  rec.push([
    "header.type/version/cwd",
    h.threw ? h.text : JSON.stringify(h.value && [h.value.type, h.value.version, h.value.cwd, h.value.parentSession]),
  ]);
  rec.push(["header", h.threw ? h.text : c.json(h.value)]);
  put("leafId", () => side.leaf());
  put("getEntries()", () => o.getEntries());
  put("getTree()", () => o.getTree());
  put("getBranch()", () => o.getBranch());
  put(
    "buildSessionContext()",
    () => o.buildSessionContext(),
    (v) => c.context(v),
  );
  put("getLeafEntry()", () => o.getLeafEntry());
  put("getEntryCount()", () => o.getEntryCount());
  put("buildContextEntries()", () => o.buildContextEntries());
  put(
    "buildSessionProjection()",
    () => o.buildSessionProjection(),
    (v) => c.projection(v),
  );
  put("getSessionName()", () => o.getSessionName());
  put(
    "context(null)",
    () => side.contextAt(null),
    (v) => c.context(v),
  );
  for (const t of targets) {
    const id = t instanceof Ref ? (t.k < side.ids.length ? side.ids[t.k] : `missing-ref-${t.k}`) : t;
    const name = t instanceof Ref ? `$${t.k}` : JSON.stringify(t);
    put(`getEntry(${name})`, () => o.getEntry(id));
    put(`getChildren(${name})`, () => o.getChildren(id));
    put(`getLabel(${name})`, () => o.getLabel(id));
    put(`getBranch(${name})`, () => o.getBranch(id));
    if (typeof id === "string") {
      put(
        `context(${name})`,
        () => side.contextAt(id),
        (v) => c.context(v),
      );
      put(`contextEntries(${name})`, () => side.contextEntriesAt(id));
      put(
        `projection(${name})`,
        () => side.projectionAt(id),
        (v) => c.projection(v),
      );
    }
  }
  return rec;
}

/** Every difference between two observation records ({ key, pi, ours }), in order. */
export function allDiffs(pi, ours) {
  const out = [];
  for (let i = 0; i < Math.max(pi.length, ours.length); i++) {
    if (!pi[i] || !ours[i] || ours[i][0] !== pi[i][0]) {
      out.push({ key: pi[i]?.[0], pi: pi[i]?.[1], ours: `<observation order mismatch: ${ours[i]?.[0]}>` });
      break;
    }
    if (pi[i][1] !== ours[i][1]) out.push({ key: pi[i][0], pi: pi[i][1], ours: ours[i][1] });
  }
  return out;
}

/** First difference between two observation records, or null. */
export function firstDiff(pi, ours) {
  for (let i = 0; i < pi.length; i++) {
    if (!ours[i] || ours[i][0] !== pi[i][0])
      return { key: pi[i][0], pi: pi[i][1], ours: `<observation order mismatch: ${ours[i]?.[0]}>` };
    if (pi[i][1] !== ours[i][1]) return { key: pi[i][0], pi: pi[i][1], ours: ours[i][1] };
  }
  return null;
}

// ---------------------------------------------------------------- pi helpers

/** An in-memory pi manager holding a copy of another manager's entries (index rebuilt as on load). */
export function piClone(sm) {
  const c = SessionManager.inMemory(sm.getCwd());
  c.fileEntries = structuredClone(sm.fileEntries);
  c._buildIndex();
  c.leafId = sm.getLeafId();
  return c;
}

// ---------------------------------------------------------------- messages

const USAGE = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 },
};
export const IMAGE = {
  type: "image",
  data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==",
  mimeType: "image/png",
};

export const user = (content, timestamp = 1000) => ({ role: "user", content, timestamp });
export const assistant = (
  text,
  { provider = "anthropic", model = "claude-sonnet", timestamp = 2000, extra = [] } = {},
) => ({
  role: "assistant",
  content: [{ type: "text", text }, ...extra],
  api: "anthropic-messages",
  provider,
  model,
  usage: USAGE,
  stopReason: "stop",
  timestamp,
});
export const toolResult = (text, timestamp = 3000) => ({
  role: "toolResult",
  toolCallId: "call_01",
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  timestamp,
});

// ---------------------------------------------------------------- random steps

export const UNKNOWN_IDS = ["nonexistent", "deadbeef", "", "root", "Entry"];
const TEXTS = [
  "hello",
  "Fix the failing test in src/session.rs",
  "multi\nline\ntext",
  "unicode: héllo wörld – 日本語 🙂",
  'quotes " and \\ backslash',
  "tab\tand\u2028separator",
  "",
  "  padded  ",
  "lone \ud83d surrogate",
];
const NAMES = ["My session", "  spaced name  ", "", "   ", "名前 🙂", "x".repeat(120), "\tname\n"];
// pi 1.6 folds each run of \r and \n into one space before trimming
const FOLDED_NAMES = ["  a\r\nb\n\nc\rd \n", "line one\nline two", "\n\n", "tab\tkept\u2028and\u0085too\r"];
const LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
const MODELS = [
  ["anthropic", "claude-sonnet-4-5"],
  ["openai", "gpt-5"],
  ["google", "gemini-2.5-pro"],
  ["", ""],
];
const DETAILS = [
  undefined,
  undefined,
  { readFiles: ["a.ts"], modifiedFiles: [] },
  { n: 1, nested: { list: [1, "two", null, true] } },
  null,
  "plain",
  0,
];

function pickText(rng) {
  return rng.pick(TEXTS);
}

function randomContent(rng) {
  if (rng.chance(0.5)) return pickText(rng);
  const blocks = [];
  const n = rng.range(1, 3);
  for (let i = 0; i < n; i++) blocks.push(rng.chance(0.7) ? { type: "text", text: pickText(rng) } : IMAGE);
  return blocks;
}

export function randomMessage(rng) {
  const ts = rng.range(1, 2_000_000_000_000);
  return rng.weighted([
    [35, () => user(randomContent(rng), ts)],
    [
      35,
      () => {
        const [provider, model] = rng.pick(MODELS);
        const extra = rng.chance(0.3)
          ? [{ type: "toolCall", id: "call_01", name: "read", arguments: { path: "/tmp/x" } }]
          : [];
        return assistant(pickText(rng), { provider, model, timestamp: ts, extra });
      },
    ],
    [10, () => toolResult(pickText(rng), ts)],
    [
      5,
      () => ({
        role: "custom",
        customType: "ext",
        content: randomContent(rng),
        display: rng.chance(0.5),
        timestamp: ts,
      }),
    ],
    [
      5,
      () => ({
        role: "bashExecution",
        command: "ls",
        output: pickText(rng),
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: ts,
      }),
    ],
    [3, () => ({ role: "user", content: pickText(rng), timestamp: ts, extra: undefined, n: Number.NaN })],
  ])();
}

const SECTION_NAMES = ["preamble", "cwd", "skills", "tools", "10", "2", "date"];
const TOOL_DEFS = ["read", "write", "bash", "edit"].map((name) => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: "object", properties: { path: { type: "string" } } },
}));

/** A system message as pi 1.6 stores it: content appended, sections patched, tools added/removed. */
export function systemMessage(rng, ts) {
  const msg = { role: "system" };
  msg.content = rng.weighted([
    [4, () => pickText(rng)],
    [2, () => ""],
    [2, () => [{ type: "text", text: pickText(rng) }, ...(rng.chance(0.3) ? [{ type: "text", text: "more" }] : [])]],
    [1, () => [IMAGE, { type: "text" }]],
  ])();
  if (rng.chance(0.7)) {
    msg.sections = {};
    for (let k = rng.range(1, 4); k > 0; k--)
      msg.sections[rng.pick(SECTION_NAMES)] = rng.chance(0.3) ? null : pickText(rng);
  }
  if (rng.chance(0.3)) msg.toolsRemoved = [{ name: rng.pick(TOOL_DEFS).name }];
  if (rng.chance(0.6)) msg.toolsAdded = TOOL_DEFS.filter(() => rng.chance(0.4));
  const t = rng.weighted([
    [8, () => ts],
    [1, () => null],
    [1, () => undefined],
  ])();
  if (t !== undefined) msg.timestamp = t;
  return msg;
}

/** A message whose content is null or missing (1.6 normalizes it per role when building context). */
export function nullContentMessage(rng, ts, { system = true } = {}) {
  const role = rng.pick(
    system ? ["user", "assistant", "toolResult", "system", "custom"] : ["user", "assistant", "toolResult", "custom"],
  );
  const msg = { role };
  if (rng.chance(0.5)) msg.content = null;
  if (role === "assistant") Object.assign(msg, { provider: "anthropic", model: "claude-sonnet", stopReason: "stop" });
  if (role === "toolResult") Object.assign(msg, { toolCallId: "call_01", toolName: "read", isError: false });
  if (role === "custom") Object.assign(msg, { customType: "ext", display: true });
  msg.timestamp = ts;
  return msg;
}

const REPLACEMENTS = [
  () => null,
  () => ({ content: "replaced" }),
  () => ({ content: [{ type: "text", text: "replaced block" }] }),
  () => ({ content: [] }),
  () => ({ content: "with extra", extra: 1 }),
  // refused by appendContextEdit
  () => ({}),
  () => ({ content: 5 }),
  () => ({ content: null }),
  () => "just a string",
  () => undefined,
];

/** An entry reference: usually an existing entry, sometimes an unknown id (pUnknown). */
function target(rng, count, pUnknown) {
  if (count === 0 || rng.chance(pUnknown)) return rng.pick(UNKNOWN_IDS);
  // bias towards recent entries, but reach back to the root too
  return ref(rng.chance(0.5) ? count - 1 - rng.int(0, Math.min(count, 4)) : rng.int(0, count));
}

/**
 * One random step given how many entries exist. `checks` adds createBranchedSession checks
 * ({ check: "branched", target }) between the write steps.
 */
export function randomStep(rng, count, { checks = true } = {}) {
  const w = [
    [30, "message"],
    [4, "thinking"],
    [4, "model"],
    [5, "compaction"],
    [4, "custom"],
    [3, "info"],
    [5, "customMessage"],
    [8, "label"],
    [8, "branch"],
    [2, "reset"],
    [5, "branchSummary"],
    [checks ? 3 : 0, "branched"],
    [5, "system"],
    [2, "nullContent"],
    [3, "usage"],
    [7, "contextEdit"],
  ];
  const kind = rng.weighted(w.map(([n, k]) => [n, k]));
  switch (kind) {
    case "message":
      return { op: "appendMessage", args: [randomMessage(rng)] };
    case "thinking":
      return { op: "appendThinkingLevelChange", args: [rng.pick(LEVELS)] };
    case "model": {
      const [p, m] = rng.pick(MODELS);
      return { op: "appendModelChange", args: [p, m] };
    }
    case "compaction": {
      const args = [
        rng.pick(["Summary of earlier work", "", "résumé ✓"]),
        rng.chance(0.2) ? rng.pick([null, undefined]) : target(rng, count, 0.1),
        rng.range(0, 200000),
      ];
      if (rng.chance(0.5)) args.push(rng.pick(DETAILS));
      if (args.length === 4 && rng.chance(0.5)) args.push(rng.pick([true, false, undefined]));
      if (args.length === 5 && rng.chance(0.5)) args.push(USAGE);
      return { op: "appendCompaction", args };
    }
    case "system":
      return { op: "appendMessage", args: [systemMessage(rng, rng.range(1, 2_000_000_000_000))] };
    case "nullContent":
      return {
        op: "appendMessage",
        // a system message is checkpointed by the next compaction
        args: [nullContentMessage(rng, rng.range(1, 2_000_000_000_000))],
      };
    case "usage": {
      const args = [rng.pick(["cache_warm", "custom-kind", ""]), rng.pick(["anthropic", "openai"]), "m-usage", USAGE];
      if (rng.chance(0.5)) args.push(rng.pick(["extension override", "", undefined]));
      return { op: "appendUsage", args };
    }
    case "contextEdit":
      return { op: "appendContextEdit", args: [target(rng, count, 0.1), rng.pick(REPLACEMENTS)()] };
    case "custom": {
      const args = [rng.pick(["my_data", "ext:state", ""])];
      if (rng.chance(0.7)) args.push(rng.pick(DETAILS));
      return { op: "appendCustomEntry", args };
    }
    case "info":
      return {
        op: "appendSessionInfo",
        args: [rng.chance(0.4) ? rng.pick(FOLDED_NAMES) : rng.pick(NAMES)],
      };
    case "customMessage": {
      const content = rng.chance(0.4) ? pickText(rng) : [{ type: "text", text: pickText(rng) }, IMAGE];
      const args = [rng.pick(["note", "ext:reminder"]), content, rng.chance(0.5)];
      if (rng.chance(0.5)) args.push(rng.pick(DETAILS));
      return { op: "appendCustomMessageEntry", args };
    }
    case "label": {
      const args = [target(rng, count, 0.1)];
      const r = rng.int(0, 4);
      if (r === 0) args.push(undefined);
      else if (r === 1) args.push("");
      else if (r === 2) args.push(rng.pick(["checkpoint", "important", "🙂 label"]));
      // r === 3: label argument omitted (clears)
      return { op: "appendLabelChange", args };
    }
    case "branch":
      return { op: "branch", args: [target(rng, count, 0.1)] };
    case "reset":
      return { op: "resetLeaf", args: [] };
    case "branchSummary": {
      const from = count === 0 || rng.chance(0.2) ? null : target(rng, count, 0.1);
      const args = [from, rng.pick(["Abandoned approach: tried X", "", "多言語 summary"])];
      if (rng.chance(0.5)) args.push(rng.pick(DETAILS));
      if (args.length === 3 && rng.chance(0.5)) args.push(rng.pick([true, false]));
      if (args.length === 4 && rng.chance(0.5)) args.push(USAGE);
      return { op: "branchWithSummary", args };
    }
    case "branched":
      return { check: "branched", target: target(rng, count, 0.1) };
  }
  throw new Error(`harness: unknown step kind ${kind}`);
}

/** Next controlled-clock time: mostly forward, sometimes equal, sometimes backwards. */
export function advanceClock(rng, t) {
  return rng.weighted([
    [70, () => t + rng.range(1, 120_000)],
    [15, () => t],
    [15, () => t - rng.range(1, 60_000)],
  ])();
}
