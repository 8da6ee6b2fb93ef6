// The Session class against pi 1.6.0's SessionManager, call for call.
//
//   1. scenarios (pi's tree-traversal, labels and save-entry tests, re-expressed as step
//      lists, plus our own) and seeded random call sequences, replayed on
//      SessionManager.inMemory(cwd) and Session.create({ cwd }), compared after every step;
//   2. createBranchedSession and fork against pi's in-memory createBranchedSession and forkFrom;
//   3. persistence: what takePendingLines() hands out vs what pi writes to its file, for new
//      sessions and for opened ones;
//   4. appendJsonl: a file fed in arbitrary byte chunks vs the whole file;
//   5. sessionInfo vs SessionManager.list on files in a temp folder.
//
// Environment: CONFORMANCE_SESSION_COUNT (random sequences, default 200),
// CONFORMANCE_SESSION_SEED (master seed, default random, always printed),
// CONFORMANCE_SESSION_CASE=0x… (run only that random sequence).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { caseSeed, envCount, envSeed, Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";
import { excerpt } from "./lib/compare.js";
import { implName, ours } from "./lib/ours.js";
import { PI16_BEHAVIOURS } from "./lib/pi16-behaviours.js";
import { SessionManager } from "./lib/reference.js";
import {
  advanceClock,
  allDiffs,
  applyStep,
  assistant,
  Canon,
  firstDiff,
  IMAGE,
  observe,
  oursSide,
  outcome,
  piClone,
  piSide,
  Ref,
  randomMessage,
  randomStep,
  ref,
  renderStep,
  toolResult,
  UNKNOWN_IDS,
  user,
  withClock,
} from "./lib/session-harness.js";

const { Session, sessionInfo } = ours;
// what this file compares is the package's: an implementation without them fails here, by name
for (const [name, v] of Object.entries({ Session, sessionInfo }))
  if (typeof v !== "function") throw new Error(`${implName} does not export ${name}`);

const COUNT = envCount("CONFORMANCE_SESSION_COUNT", 200);
const MASTER = envSeed("CONFORMANCE_SESSION_SEED");
const ONLY =
  process.env.CONFORMANCE_SESSION_CASE !== undefined ? Number(process.env.CONFORMANCE_SESSION_CASE) >>> 0 : null;
const hex = (n) => `0x${(n >>> 0).toString(16).padStart(8, "0")}`;
const CWD = "/home/dev/project";
const BASE_MS = Date.UTC(2025, 5, 1, 12, 0, 0);

let TMP;
before(() => {
  TMP = mkdtempSync(join(tmpdir(), "session-tree-session-"));
});
after(() => {
  if (TMP) rmSync(TMP, { recursive: true, force: true });
});
let dirCounter = 0;
const freshDir = (tag) => {
  const d = join(TMP, `${tag}-${dirCounter++}`);
  mkdirSync(d, { recursive: true });
  return d;
};

const lines = (arr) => arr.map((l) => `${l}\n`).join("");
const jsonl = (entries) => lines(entries.map((e) => JSON.stringify(e)));

// ---------------------------------------------------------------- the replay driver

/**
 * Replays steps on pi (in memory) and ours. `steps` is an array, or a function
 * (rng, count) => step for random runs. clock: "wall" (timestamps masked) or "fixed"
 * (a clock shared by both sides; nothing masked). Returns null or a failure description.
 * `documented(d)` says whether a difference d ({ key, pi, ours }) is one the README lists;
 * those are collected in `accepted` instead of failing, and every other observation must
 * still agree.
 */
function replay({ steps, rng = new Rng(1), clock = "wall", count, observeAll = false, label, documented, accepted }) {
  const mask = clock === "wall";
  let t = clock === "wall" ? null : BASE_MS;
  let pi, me;
  withClock(t, () => {
    pi = piSide(SessionManager.inMemory(CWD), mask);
    me = oursSide(Session.create({ cwd: CWD }), mask);
  });
  const done = [];
  const fail = (where, d) => {
    const list = done.map(
      (s, i) =>
        `    ${String(i + 1).padStart(2)}. ${s.check ? `[check ${s.check}${s.target !== undefined ? ` ${s.target instanceof Ref ? `$${s.target.k}` : JSON.stringify(s.target)}` : ""}]` : renderStep(s)}`,
    );
    return `${label} (clock: ${clock})\n  after step ${done.length}${where ? `, ${where}` : ""}: ${d.key}\n    ${excerpt(d.pi, d.ours, 220).replace(/\n/g, "\n    ")}\n  steps:\n${list.join("\n")}`;
  };
  const targetsFor = () => {
    const n = pi.ids.length;
    if (observeAll) return [...Array.from({ length: n }, (_, k) => ref(k)), "nonexistent", ""];
    const ts = [];
    if (n) ts.push(ref(rng.int(0, n)), ref(n - 1));
    ts.push(rng.pick(UNKNOWN_IDS));
    return ts;
  };
  const known = (d) => {
    if (!documented?.(d)) return false;
    accepted.push(`after step ${done.length}: ${d.key}: pi ${d.pi}, ours ${d.ours}`);
    return true;
  };
  const compareNow = (where) => {
    const targets = targetsFor();
    const d = allDiffs(observe(pi, targets), observe(me, targets)).find((x) => !known(x));
    return d ? fail(where, d) : null;
  };
  let f = compareNow("initial state");
  if (f) return f;
  const total = typeof steps === "function" ? count : steps.length;
  for (let i = 0; i < total; i++) {
    const step = typeof steps === "function" ? steps(rng, pi.ids.length) : steps[i];
    if (clock === "fixed") t = advanceClock(rng, t);
    done.push(step);
    if (step.check === "branched") f = checkBranched(pi, me, step.target, t, fail);
    else if (step.check === "fork") f = checkFork(pi, me, t, fail);
    else {
      const p = withClock(t, () => applyStep(pi, step));
      const o = withClock(t, () => applyStep(me, step));
      if (p !== o && !known({ key: renderStep(step), pi: p, ours: o }))
        f = fail("return value / error", { key: renderStep(step), pi: p, ours: o });
      else if (pi.ids.length !== me.ids.length)
        f = fail("", { key: "number of entries", pi: String(pi.ids.length), ours: String(me.ids.length) });
    }
    if (f) return f;
    f = compareNow();
    if (f) return f;
  }
  return null;
}

/** Resolve a Ref or plain id for a side. */
const idOf = (side, t) => (t instanceof Ref ? side.ids[t.k] : t);

/**
 * createBranchedSession(target): pi's in-memory createBranchedSession on a copy of pi's state
 * (pi replaces its entries with the path + carried labels) vs our returned JSONL; then the
 * branched session is opened on our side and compared with pi's replaced state in full.
 */
function checkBranched(pi, me, target, t, fail) {
  const copy = piClone(pi.sm);
  const pc = pi.canon.fork();
  const oc = me.canon.fork();
  const p = outcome(
    () => withClock(t, () => copy.createBranchedSession(idOf(pi, target))),
    () => "ok",
  );
  const o = outcome(
    () => withClock(t, () => me.s.createBranchedSession(idOf(me, target), {})),
    () => "ok",
  );
  const name = `createBranchedSession(${target instanceof Ref ? `$${target.k}` : JSON.stringify(target)})`;
  if (p.threw || o.threw) {
    if (p.text !== o.text) return fail("", { key: name, pi: p.text, ours: o.text });
    return null;
  }
  const text = o.value;
  const [headLine, ...rest] = text.split("\n");
  const piBody = jsonl(copy.fileEntries.slice(1));
  const oursBody = rest.join("\n");
  if (pc.text(piBody) !== oc.text(oursBody))
    return fail("", { key: `${name}: entries after the header`, pi: pc.text(piBody), ours: oc.text(oursBody) });
  // header: pi's in-memory header has no parentSession and keeps the cwd
  const ph = pc.json(copy.getHeader());
  const oh = oc.text(headLine);
  if (ph !== oh) return fail("", { key: `${name}: header`, pi: ph, ours: oh });
  // the branched session as a session: everything pi answers after its replacement
  const bp = { ...piSide(copy, pi.canon.mask), ids: pi.ids, canon: pc };
  const bo = { ...oursSide(Session.open(text), me.canon.mask), ids: me.ids, canon: oc };
  const targets = [...pi.ids.map((_, k) => ref(k)), "nonexistent"];
  const d = firstDiff(observe(bp, targets), observe(bo, targets));
  if (d) return fail(`${name}, then Session.open(result) vs pi's replaced session`, d);
  // options: id, parentSession and cwd go into the header
  const withOpts = outcome(
    () =>
      me.s.createBranchedSession(idOf(me, target), {
        id: "branch-id",
        parentSession: "/sessions/parent.jsonl",
        cwd: "/elsewhere",
      }),
    (v) => v,
  );
  if (withOpts.threw)
    return fail("", {
      key: `${name} with options`,
      pi: "(header with the given id, parentSession, cwd)",
      ours: withOpts.text,
    });
  const h = JSON.parse(withOpts.value.split("\n")[0]);
  const want = ["session", 3, "branch-id", "/elsewhere", "/sessions/parent.jsonl"];
  const got = [h.type, h.version, h.id, h.cwd, h.parentSession];
  if (
    JSON.stringify(want) !== JSON.stringify(got) ||
    Object.keys(h).join() !== "type,version,id,timestamp,cwd,parentSession"
  )
    return fail("", {
      key: `${name} with options: header`,
      pi: JSON.stringify(want),
      ours: withOpts.value.split("\n")[0],
    });
  if (withOpts.value.slice(withOpts.value.indexOf("\n")) !== text.slice(text.indexOf("\n"))) {
    // label ids are fresh each call: compare canonically
    const c1 = me.canon.fork();
    const c2 = me.canon.fork();
    if (c1.text(withOpts.value.slice(withOpts.value.indexOf("\n"))) !== c2.text(text.slice(text.indexOf("\n"))))
      return fail("", {
        key: `${name} with options: body differs from the call without options`,
        pi: text,
        ours: withOpts.value,
      });
  }
  return null;
}

/** fork: pi's SessionManager.forkFrom on pi's state written to a file vs our fork({ cwd, parentSession }). */
function checkFork(pi, me, t, fail) {
  const dir = freshDir("fork");
  const source = join(dir, "source.jsonl");
  writeFileSync(source, jsonl(pi.sm.fileEntries));
  const target = join(dir, "target");
  const p = outcome(
    () => withClock(t, () => SessionManager.forkFrom(source, "/target/cwd", target)),
    (sm) => readFileSync(sm.getSessionFile(), "utf8"),
  );
  const o = outcome(
    () => withClock(t, () => me.s.fork({ cwd: "/target/cwd", parentSession: source })),
    (v) => v,
  );
  return compareForked(p, o, pi.canon.fork(), me.canon.fork(), fail, "fork");
}

function compareForked(p, o, pc, oc, fail, name) {
  if (p.threw || o.threw) return p.text === o.text ? null : fail("", { key: name, pi: p.text, ours: o.text });
  const pt = pc.text(p.text);
  const ot = oc.text(o.text);
  return pt === ot ? null : fail("", { key: `${name}: whole file (header ids canonicalized)`, pi: pt, ours: ot });
}

// ---------------------------------------------------------------- scenarios

// pi 1.6 system messages (PI-CURRENT.md §1.5) and a usage record for the 1.6 scenarios
const SYS_BASE = {
  role: "system",
  content: "base",
  sections: { preamble: "You are…", cwd: "/p" },
  toolsAdded: [{ name: "read", description: "read a file", parameters: {} }],
  timestamp: 100,
};
const SYS_MORE = {
  role: "system",
  content: "",
  sections: { cwd: null, skills: "<skills/>" },
  toolsRemoved: [{ name: "read" }],
  toolsAdded: [{ name: "write", description: "write a file", parameters: {} }],
  timestamp: 400,
};
const USAGE16 = {
  input: 1,
  output: 2,
  cacheRead: 50000,
  cacheWrite: 0,
  totalTokens: 50003,
  cost: { input: 0, output: 0, cacheRead: 0.015, cacheWrite: 0, total: 0.015 },
};

// Steps: { op, args } with ref(k) for the k-th id an append returned; checks as { check }.
const S = (op, ...args) => ({ op, args });
const msgU = (text) => S("appendMessage", user(text));
const msgA = (text) => S("appendMessage", assistant(text));
const BRANCHED = (target) => ({ check: "branched", target });
const FORK = { check: "fork" };

const SCENARIOS = {
  // pi's tree-traversal tests
  "append: parentId chain": [msgU("first"), msgA("second"), msgU("third")],
  "append: thinking level change in the tree": [
    msgU("hello"),
    S("appendThinkingLevelChange", "high"),
    msgA("response"),
  ],
  "append: model change in the tree": [msgU("hello"), S("appendModelChange", "openai", "gpt-4"), msgA("response")],
  "append: compaction in the tree": [msgU("1"), msgA("2"), S("appendCompaction", "summary", ref(0), 1000), msgU("3")],
  "append: custom entry in the tree": [
    msgU("hello"),
    S("appendCustomEntry", "my_data", { key: "value" }),
    msgA("response"),
  ],
  "leaf advances after each append": [msgU("1"), msgA("2"), S("appendThinkingLevelChange", "high")],
  "empty session": [],
  "single entry path": [msgU("hello")],
  "full path root to leaf": [msgU("1"), msgA("2"), S("appendThinkingLevelChange", "high"), msgU("3")],
  "path from a given entry": [msgU("1"), msgA("2"), msgU("3"), msgA("4")],
  "tree: linear": [msgU("1"), msgA("2"), msgU("3")],
  "tree: branch after branch()": [msgU("1"), msgA("2"), msgU("3"), S("branch", ref(1)), msgU("4-branch")],
  "tree: several branches at one point": [
    msgU("root"),
    msgA("response"),
    S("branch", ref(1)),
    msgU("branch-A"),
    S("branch", ref(1)),
    msgU("branch-B"),
    S("branch", ref(1)),
    msgU("branch-C"),
  ],
  "tree: deep branching": [
    msgU("1"),
    msgA("2"),
    msgU("3"),
    msgA("4"),
    S("branch", ref(1)),
    msgU("5"),
    msgA("6"),
    S("branch", ref(4)),
    msgU("7"),
  ],
  "branch moves the leaf": [msgU("1"), msgA("2"), msgU("3"), S("branch", ref(0))],
  "branch to a missing entry throws": [msgU("hello"), S("branch", "nonexistent")],
  "appends after branch() are children of the branch point": [
    msgU("1"),
    msgA("2"),
    S("branch", ref(0)),
    msgU("branched"),
  ],
  "branchWithSummary inserts a summary and moves the leaf": [
    msgU("1"),
    msgA("2"),
    msgU("3"),
    S("branchWithSummary", ref(0), "Summary of abandoned work"),
  ],
  "branchWithSummary to a missing entry throws": [msgU("hello"), S("branchWithSummary", "nonexistent", "summary")],
  getLeafEntry: [msgU("1"), msgA("2")],
  "getEntry by id": [msgU("first"), msgA("second")],
  "context follows the current branch only": [
    msgU("msg1"),
    msgA("msg2"),
    msgU("msg3"),
    S("branch", ref(1)),
    msgA("msg4-branch"),
  ],
  "createBranchedSession: missing entry throws": [msgU("hello"), BRANCHED("nonexistent")],
  "createBranchedSession: path to a leaf": [
    msgU("1"),
    msgA("2"),
    msgU("3"),
    msgA("4"),
    S("branch", ref(2)),
    msgU("5"),
    BRANCHED(ref(1)),
  ],
  "createBranchedSession: path from a branched tree": [
    msgU("1"),
    msgA("2"),
    msgU("3"),
    S("branch", ref(1)),
    msgU("4"),
    msgA("5"),
    BRANCHED(ref(4)),
  ],
  // pi's label tests
  "labels: set and get": [S("appendMessage", user("hello", 1)), S("appendLabelChange", ref(0), "checkpoint")],
  "labels: clear with undefined": [
    S("appendMessage", user("hello", 1)),
    S("appendLabelChange", ref(0), "checkpoint"),
    S("appendLabelChange", ref(0), undefined),
  ],
  "labels: last label wins": [
    S("appendMessage", user("hello", 1)),
    S("appendLabelChange", ref(0), "first"),
    S("appendLabelChange", ref(0), "second"),
    S("appendLabelChange", ref(0), "third"),
  ],
  "labels: in tree nodes": [
    S("appendMessage", user("hello", 1)),
    S("appendMessage", assistant("hi")),
    S("appendLabelChange", ref(0), "start"),
    S("appendLabelChange", ref(1), "response"),
  ],
  "labels: kept by createBranchedSession": [
    S("appendMessage", user("hello", 1)),
    S("appendMessage", assistant("hi")),
    S("appendLabelChange", ref(0), "important"),
    S("appendLabelChange", ref(1), "also-important"),
    BRANCHED(ref(1)),
  ],
  "labels: off-path labels dropped by createBranchedSession": [
    S("appendMessage", user("hello", 1)),
    S("appendMessage", assistant("hi")),
    S("appendMessage", user("followup", 3)),
    S("appendLabelChange", ref(0), "first"),
    S("appendLabelChange", ref(1), "second"),
    S("appendLabelChange", ref(2), "third"),
    BRANCHED(ref(1)),
  ],
  "labels: not in the context": [S("appendMessage", user("hello", 1)), S("appendLabelChange", ref(0), "checkpoint")],
  "labels: missing target throws": [S("appendLabelChange", "non-existent", "label")],
  // pi's save-entry test
  "custom entry saved and traversed": [
    S("appendMessage", user("hello", 1)),
    S("appendCustomEntry", "my_data", { foo: "bar" }),
    S("appendMessage", assistant("hi", { model: "test" })),
  ],
  // ours: the remaining calls and their edges
  "branch summaries from the root (null), twice": [
    msgU("1"),
    msgA("2"),
    S("branchWithSummary", null, "from root"),
    msgU("3"),
    S("branchWithSummary", null, "", { d: 1 }, true),
    msgA("4"),
  ],
  "branch summary with details and fromHook": [
    msgU("1"),
    msgA("2"),
    S("branchWithSummary", ref(0), "s", { readFiles: ["a"], modifiedFiles: [] }, false),
    S("branchWithSummary", ref(2), "s2", undefined, true),
  ],
  "resetLeaf, then a second root": [
    msgU("1"),
    msgA("2"),
    S("resetLeaf"),
    msgU("new root"),
    msgA("r"),
    S("branch", ref(1)),
    msgU("back"),
  ],
  "resetLeaf on an empty session, label before any entry": [
    S("resetLeaf"),
    S("appendLabelChange", "x", "l"),
    S("branch", ""),
    msgU("first"),
  ],
  "compactions: kept id, unknown kept id, details, fromHook, nested": [
    msgU("1"),
    msgA("2"),
    msgU("3"),
    msgA("4"),
    S("appendCompaction", "first", ref(2), 5000, { readFiles: [] }, true),
    msgU("5"),
    S("appendCompaction", "second", ref(5), 7000),
    msgA("6"),
    S("appendCompaction", "ghost", "nonexistent", 1),
    msgU("7"),
    S("branch", ref(3)),
    msgU("8"),
  ],
  "compaction keeping nothing but itself": [
    msgU("1"),
    msgA("2"),
    S("appendCompaction", "all gone", ref(1), 10),
    S("appendCompaction", "again", ref(2), 11),
  ],
  "custom messages with text and image content": [
    msgU("look"),
    S("appendCustomMessageEntry", "ext:img", [{ type: "text", text: "see" }, IMAGE], true, { source: "clip" }),
    S("appendCustomMessageEntry", "ext:note", "plain", false),
    msgA("ok"),
    S("appendMessage", user([{ type: "text", text: "a" }, IMAGE, { type: "text", text: "b" }])),
  ],
  "session info: set, trimmed, cleared, re-set": [
    S("appendSessionInfo", "  First name "),
    msgU("x"),
    S("appendSessionInfo", ""),
    S("appendSessionInfo", "Second"),
    S("branch", ref(0)),
    S("appendSessionInfo", "   "),
  ],
  "labels: clear with empty string and omitted label; re-set after clear": [
    msgU("1"),
    msgA("2"),
    S("appendLabelChange", ref(0), "a"),
    S("appendLabelChange", ref(1), "b"),
    S("appendLabelChange", ref(0), ""),
    S("appendLabelChange", ref(0)),
    S("appendLabelChange", ref(0), "a2"),
    BRANCHED(ref(1)),
    BRANCHED(ref(6)),
  ],
  "labels on labels, summaries and compactions; branched from a label entry": [
    msgU("1"),
    S("appendLabelChange", ref(0), "m"),
    S("appendLabelChange", ref(1), "on a label"),
    S("branchWithSummary", ref(0), "sum"),
    S("appendLabelChange", ref(3), "on summary"),
    S("appendCompaction", "c", ref(0), 3),
    S("appendLabelChange", ref(5), "on compaction"),
    BRANCHED(ref(2)),
    BRANCHED(ref(6)),
    BRANCHED(ref(5)),
  ],
  "thinking and model: defaults, changes, assistant overrides model": [
    S("appendThinkingLevelChange", "high"),
    S("appendModelChange", "openai", "gpt-5"),
    msgU("q"),
    S("appendMessage", assistant("a", { provider: "google", model: "gemini" })),
    S("appendThinkingLevelChange", "off"),
    S("appendModelChange", "x", "y"),
  ],
  "other message roles": [
    msgU("run it"),
    S(
      "appendMessage",
      assistant("calling", { extra: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } }] }),
    ),
    S("appendMessage", toolResult("file.txt")),
    S("appendMessage", {
      role: "bashExecution",
      command: "ls",
      output: "x",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 5,
    }),
    S("appendMessage", { role: "custom", customType: "m", content: "c", display: true, timestamp: 6 }),
  ],
  "odd values: undefined fields, NaN, -0, nested arrays with undefined": [
    S("appendMessage", {
      role: "user",
      content: "x",
      timestamp: -0,
      a: undefined,
      b: Number.NaN,
      c: [undefined, 1, Number.POSITIVE_INFINITY],
    }),
    S("appendCustomEntry", "t", { u: undefined, list: [undefined] }),
    S("appendCustomEntry", "t2"),
    S("appendCompaction", "s", ref(0), Number.NaN),
  ],
  "unicode and escapes in every string field": [
    msgU("héllo 日本語 🙂 \u2028 \u0000 \ud800"),
    S("appendSessionInfo", "naïve 🙂"),
    S("appendCustomMessageEntry", "ü", "\u2029", true),
    S("appendLabelChange", ref(0), "ラベル"),
    S("branchWithSummary", ref(0), "résumé \n line"),
  ],
  "unknown ids in every call that takes one": [
    msgU("1"),
    S("branch", "deadbeef"),
    S("branch", ""),
    S("appendLabelChange", "", "x"),
    S("appendLabelChange", "deadbeef"),
    S("branchWithSummary", "", "s"),
    S("branchWithSummary", "root", "s"),
    BRANCHED(""),
    BRANCHED("deadbeef"),
    msgA("2"),
  ],
  "fork after branches and labels": [
    msgU("1"),
    msgA("2"),
    S("appendLabelChange", ref(0), "l"),
    S("branch", ref(0)),
    msgU("3"),
    S("branchWithSummary", null, "s"),
    FORK,
  ],
  "fork of an empty session": [FORK],

  // ---- pi 1.6: system messages, checkpoints, context edits, usage (PI-CURRENT.md §2-§4)
  "1.6: the worked example, built through the API": [
    S("appendMessage", SYS_BASE), // 0 s1
    msgU("hi"), // 1 u1
    msgA("yo"), // 2 a1
    S("appendMessage", SYS_MORE), // 3 s2
    msgU("again"), // 4 u2
    S("appendCompaction", "sum1", ref(1), 50), // 5 c1, checkpoint of s1+s2
    msgU("after"), // 6
    S("appendContextEdit", ref(1), { content: "EDITED" }), // 7
    S("appendContextEdit", ref(2), { content: "a-edit" }), // 8: a string on an assistant is wrapped
    S("appendContextEdit", ref(4), null), // 9: summarized, accepted, no effect
    S("appendUsage", "cache_warm", "p", "m2", USAGE16, "note"), // 10
    msgA("last"),
  ],
  "1.6: retain-none compactions (firstKeptEntryId null or undefined)": [
    msgU("1"),
    msgA("2"),
    S("appendCompaction", "nothing kept", null, 10),
    msgU("3"),
    S("appendCompaction", "again", undefined, 20, { d: 1 }, true, USAGE16),
    msgA("4"),
  ],
  "1.6: chained checkpoints: content accumulates, sections and tools replace": [
    S("appendMessage", SYS_BASE),
    msgU("1"),
    S("appendCompaction", "first", null, 10),
    S("appendMessage", SYS_MORE),
    msgU("2"),
    S("appendCompaction", "second", ref(4), 20),
    S("appendMessage", {
      role: "system",
      content: [{ type: "text", text: "third" }],
      sections: { 10: "x", 2: "y" },
      timestamp: 7,
    }),
    msgA("3"),
    S("appendCompaction", "third", null, 30),
    msgU("4"),
  ],
  "1.6: system messages without a timestamp are never checkpointed": [
    S("appendMessage", { role: "system", content: "no time" }),
    msgU("1"),
    S("appendCompaction", "c", ref(1), 10),
    S("appendMessage", { role: "system", content: "null time", timestamp: null }),
    S("appendCompaction", "c2", null, 10),
  ],
  "1.6: appendContextEdit refusals, in pi's order": [
    msgU("1"), // 0
    msgA("2"), // 1
    S("appendMessage", SYS_BASE), // 2
    S("appendMessage", {
      role: "bashExecution",
      command: "ls",
      output: "x",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 5,
    }), // 3
    S("appendMessage", { role: "custom", customType: "ext", content: "c", display: true, timestamp: 6 }), // 4
    S("appendCustomMessageEntry", "note", "cm", true), // 5
    S("appendCompaction", "c", ref(0), 10), // 6
    S("appendContextEdit", "deadbeef", {}),
    S("appendContextEdit", "deadbeef", { content: 5 }),
    S("appendContextEdit", "deadbeef", { content: null }),
    S("appendContextEdit", "deadbeef", "str"),
    S("appendContextEdit", "deadbeef", []),
    S("appendContextEdit", "deadbeef", undefined),
    S("appendContextEdit", "deadbeef", null),
    S("appendContextEdit", ref(2), null),
    S("appendContextEdit", ref(3), null),
    S("appendContextEdit", ref(4), { content: "x" }),
    S("appendContextEdit", ref(6), null),
    S("appendContextEdit", ref(5), { content: "x", extra: 1 }), // 7: extra keys kept
    S("branch", ref(0)),
    S("appendContextEdit", ref(1), null), // off the branch now
    S("resetLeaf"),
    S("appendContextEdit", ref(0), null), // nothing is on an empty branch
  ],
  "1.6: edits: last wins, edits of edits, edits on another branch": [
    msgU("1"), // 0
    msgA("2"), // 1
    S("appendMessage", toolResult("out")), // 2
    S("appendContextEdit", ref(0), { content: [{ type: "text", text: "first edit" }] }), // 3
    S("appendContextEdit", ref(0), { content: "second edit" }), // 4
    S("appendContextEdit", ref(2), { content: "tool text" }), // 5: wrapped for toolResult
    S("appendContextEdit", ref(1), { content: [] }), // 6
    S("branch", ref(2)),
    msgU("other branch"), // 7: edits 3-6 are not on this path
    S("appendContextEdit", ref(0), null), // 8
    S("branch", ref(6)),
    msgA("back"),
  ],
  "1.6: branchWithSummary fromId is the leaf before the call; usage kept": [
    msgU("u0"), // 0
    msgA("a0"), // 1
    S("branchWithSummary", ref(0), "from a0", { x: 1 }, false, USAGE16), // 2: fromId a0
    S("branchWithSummary", null, "to the root"), // 3: fromId = previous summary
    S("resetLeaf"),
    S("branchWithSummary", null, "from nothing"), // 4: fromId root
    S("branch", ref(0)),
    S("branchWithSummary", ref(0), "same entry"), // 5: fromId u0
  ],
  "1.6: session names fold line breaks": [
    S("appendSessionInfo", "  a\r\nb\n\nc\rd \n"),
    S("appendSessionInfo", "tab\tkept\u2028and\u0085too"),
    S("appendSessionInfo", "\n\r\n"),
  ],
  "1.6: null and missing content, per role": [
    S("appendMessage", { role: "user", timestamp: 1 }),
    S("appendMessage", { role: "assistant", content: null, provider: "p", model: "m", timestamp: 2 }),
    S("appendMessage", { role: "toolResult", toolCallId: "c", toolName: "read", content: null, timestamp: 3 }),
    S("appendMessage", { role: "system", content: null, timestamp: 4 }),
    S("appendMessage", { role: "system", timestamp: 5, sections: { a: "A" } }),
    S("appendMessage", { role: "custom", customType: "x", display: true, timestamp: 6 }),
    S("appendCustomMessageEntry", "note", null, true),
    S("appendCompaction", "c", ref(0), 10),
    msgU("after"),
  ],
  "1.6: usage entries are tree nodes that change nothing in the context": [
    msgU("1"),
    S("appendUsage", "cache_warm", "anthropic", "claude", USAGE16),
    S("appendUsage", "", "openai", "gpt", USAGE16, ""),
    msgA("2"),
    S("branch", ref(1)),
    S("appendUsage", "other", "p", "m", USAGE16, "on a branch"),
  ],
};

// Arguments outside the declared types (pi's TypeScript signatures): pi does whatever its
// JavaScript does with them. Where that is to throw from inside or to store a value that makes
// every later context throw, ours differs on purpose (the README's "arguments of the wrong
// type" row): the difference is named here, must show up, and nothing else may differ.
/** Ours: a TypeError naming the call and the argument; pi: any error. */
const NAMED_TYPE_ERROR = (d) =>
  /^<throws \w*Error: /.test(d.pi) && /^<throws TypeError: \w+: \w+ must be a string, got \w+>$/.test(d.ours);
/** A `null` message: pi's context reading it throws; ours holds `null` where the message is. */
const NULL_MESSAGE_IN_CONTEXT = (d) =>
  /^<throws TypeError: Cannot read properties of (null|undefined) \(reading 'role'\)>$/.test(d.pi) &&
  !d.ours.startsWith("<throws") &&
  /(^\[|[[,])null[,\]]/.test(d.ours);
const ODD_ARGUMENTS = {
  "appendMessage(null), then the context": [[msgU("1"), S("appendMessage", null)], NULL_MESSAGE_IN_CONTEXT],
  "appendMessage(string)": [[msgU("1"), S("appendMessage", "just text"), msgA("2")]],
  "appendMessage(undefined)": [[msgU("1"), S("appendMessage", undefined)], NULL_MESSAGE_IN_CONTEXT],
  "appendThinkingLevelChange(undefined)": [[msgU("1"), S("appendThinkingLevelChange", undefined), msgA("2")]],
  "appendModelChange without arguments": [[msgU("1"), S("appendModelChange")]],
  "appendCompaction without arguments": [[msgU("1"), S("appendCompaction")]],
  "appendCustomEntry without arguments": [[S("appendCustomEntry")]],
  "appendCustomMessageEntry without content": [[S("appendCustomMessageEntry", "t")]],
  "appendSessionInfo(undefined)": [[msgU("1"), S("appendSessionInfo", undefined)], NAMED_TYPE_ERROR],
  "appendSessionInfo(42)": [[msgU("1"), S("appendSessionInfo", 42)], NAMED_TYPE_ERROR],
  "appendLabelChange with a number target": [[msgU("1"), S("appendLabelChange", 123, "x")], NAMED_TYPE_ERROR],
  "appendLabelChange with a non-string label": [
    [
      msgU("1"),
      S("appendLabelChange", ref(0), 42),
      S("appendLabelChange", ref(0), { a: 1 }),
      S("appendLabelChange", ref(0), null),
    ],
  ],
  "branch(undefined)": [[msgU("1"), S("branch", undefined)], NAMED_TYPE_ERROR],
  "branch(null)": [[msgU("1"), S("branch", null)], NAMED_TYPE_ERROR],
  "branchWithSummary(undefined, ...)": [[msgU("1"), S("branchWithSummary", undefined, "s")], NAMED_TYPE_ERROR],
  "branchWithSummary without a summary": [[msgU("1"), S("branchWithSummary", ref(0))]],
  "createBranchedSession(undefined)": [[msgU("1"), msgA("2"), BRANCHED(undefined)]],
};

describe("Session vs SessionManager: arguments outside the declared types", () => {
  for (const [name, [steps, documented]] of Object.entries(ODD_ARGUMENTS)) {
    it(documented ? `${name} (a documented difference)` : name, () => {
      const accepted = [];
      const label = `odd arguments "${name}"`;
      const f = replay({ steps, clock: "fixed", rng: new Rng(12), observeAll: true, label, documented, accepted });
      assert.ok(f === null, f ?? "");
      if (documented)
        assert.ok(accepted.length > 0, `${label}: the documented difference did not show: ours and pi now agree`);
    });
  }
});

/** A scenario with system messages and a compaction stores a checkpoint timed by the clock: fixed clock only. */
const clocksFor = (steps) =>
  steps.some((st) => st.args?.[0]?.role === "system") && steps.some((st) => st.op === "appendCompaction")
    ? ["fixed"]
    : ["wall", "fixed"];

describe("pi 1.6 behaviours, each by name (lib/pi16-behaviours.js)", () => {
  for (const [name, check] of Object.entries(PI16_BEHAVIOURS))
    it(name, () => assert.equal(check(), true, `${implName} lacks the pi 1.6 behaviour "${name}"`));
});

describe("Session vs SessionManager: scenarios", () => {
  for (const [name, steps] of Object.entries(SCENARIOS)) {
    for (const clock of clocksFor(steps)) {
      it(`${name} (${clock} clock)`, () => {
        const f = replay({ steps, clock, rng: new Rng(11), observeAll: true, label: `scenario "${name}"` });
        assert.ok(f === null, f ?? "");
      });
    }
  }
});

// ---------------------------------------------------------------- random sequences

describe("Session vs SessionManager: random call sequences", () => {
  it(`${ONLY !== null ? `case ${hex(ONLY)}` : `${COUNT} sequences of 20-80 steps`} (master seed ${hex(MASTER)})`, () => {
    const seeds = ONLY !== null ? [ONLY] : Array.from({ length: COUNT }, (_, i) => caseSeed(MASTER, i));
    const failures = [];
    for (const seed of seeds) {
      const rng = new Rng(seed);
      // checkpoints take the compaction's time, and system messages can come at any step: the
      // clock is fixed (the scenarios run both clocks)
      const clock = "fixed";
      const count = rng.range(20, 80);
      const stepsWithFork = (r, n) => (n > 0 && r.chance(0.02) ? { check: "fork" } : randomStep(r, n));
      const f = replay({
        steps: stepsWithFork,
        rng,
        clock,
        count,
        label: `random sequence, seed ${hex(seed)} (replay: CONFORMANCE_SESSION_CASE=${hex(seed)} node --test session.test.js)`,
      });
      if (f) failures.push(f);
    }
    if (failures.length)
      console.log(`${failures.length} of ${seeds.length} sequences differ (master seed ${hex(MASTER)})`);
    assert.ok(
      failures.length === 0,
      `${failures.length} of ${seeds.length} sequences differ; first ones:\n\n${failures.slice(0, 3).join("\n\n")}`,
    );
  });
});

// ---------------------------------------------------------------- fork of files

describe("fork vs SessionManager.forkFrom on session files", () => {
  it("generated v3 files (and pi's own newly written files)", () => {
    const failures = [];
    for (let i = 0; i < 80; i++) {
      const seed = caseSeed(0xf0f0_0001, i);
      const g = generateSession(seed);
      if (g.version !== 3 || !g.text.trim()) continue;
      const dir = freshDir("forkfile");
      const source = join(dir, "source.jsonl");
      writeFileSync(source, g.text);
      const t = BASE_MS + i;
      const p = outcome(
        () => withClock(t, () => SessionManager.forkFrom(source, "/t", join(dir, "out"))),
        (sm) => readFileSync(sm.getSessionFile(), "utf8"),
      );
      const o = outcome(
        () => withClock(t, () => Session.open(g.text).fork({ cwd: "/t", parentSession: source })),
        (v) => v,
      );
      const f = compareForked(
        p,
        o,
        new Canon(false),
        new Canon(false),
        (_w, d) =>
          `generated file seed ${hex(seed)} [${g.features.join(",")}]: ${d.key}\n    ${excerpt(d.pi, d.ours, 220)}`,
        "fork",
      );
      if (f) failures.push(f);
    }
    assert.ok(failures.length === 0, `${failures.length} files differ:\n${failures.slice(0, 4).join("\n")}`);
  });

  it("v1 and v2 files: pi copies the entries unmigrated under a v3 header; ours forks the migrated session", () => {
    // Reported, not asserted as conformance: see the report for the difference.
    let differ = 0;
    let total = 0;
    for (let i = 0; i < 40; i++) {
      const seed = caseSeed(0xf0f0_0002, i);
      const g = generateSession(seed);
      if (g.version === 3 || !g.text.trim() || g.features.includes("malformed-lines")) continue;
      const dir = freshDir("forkold");
      const source = join(dir, "source.jsonl");
      writeFileSync(source, g.text);
      const sm = SessionManager.forkFrom(source, "/t", join(dir, "out"));
      const piText = readFileSync(sm.getSessionFile(), "utf8");
      const o = Session.open(g.text).fork({ cwd: "/t", parentSession: source });
      total++;
      if (new Canon(true).text(piText.slice(piText.indexOf("\n"))) !== new Canon(true).text(o.slice(o.indexOf("\n"))))
        differ++;
    }
    console.log(
      `fork of v1/v2 files: ${differ} of ${total} differ from pi's forkFrom (pi does not migrate the copied entries)`,
    );
  });
});

// ---------------------------------------------------------------- persistence

/** Random steps on pi persisting to a real file and on ours; pending lines vs the file. */
function persistCase(seed) {
  const rng = new Rng(seed);
  // checkpoints take the compaction's time: with system messages about, the clock is fixed
  const clock = "fixed";
  const mask = clock === "wall";
  let t = clock === "fixed" ? BASE_MS : null;
  const dir = freshDir("persist");
  let pi, me;
  withClock(t, () => {
    pi = piSide(SessionManager.create(CWD, dir), mask);
    me = oursSide(Session.create({ cwd: CWD }), mask);
  });
  const file = pi.sm.getSessionFile();
  const done = [];
  let taken = "";
  const fail = (what, p, o) =>
    `persistence, seed ${hex(seed)} (clock: ${clock}), after step ${done.length}: ${what}\n    ${excerpt(p, o, 220).replace(/\n/g, "\n    ")}\n  steps:\n${done.map((s, i) => `    ${i + 1}. ${renderStep(s)}`).join("\n")}`;
  const compareFile = () => {
    taken += lines(me.s.takePendingLines());
    const content = existsSync(file) ? readFileSync(file, "utf8") : "";
    const p = pi.canon.text(content);
    const o = me.canon.text(taken);
    return p === o ? null : fail("pi's file vs everything takePendingLines() returned", p, o);
  };
  const steps = rng.range(5, 40);
  let f = compareFile();
  if (f) return f;
  for (let i = 0; i < steps; i++) {
    const step = randomStep(rng, pi.ids.length, { checks: false });
    if (clock === "fixed") t = advanceClock(rng, t);
    done.push(step);
    const p = withClock(t, () => applyStep(pi, step));
    const o = withClock(t, () => applyStep(me, step));
    if (p !== o) return fail(renderStep(step), p, o);
    f = compareFile();
    if (f) return f;
  }
  // open-then-append: pi reopens its file (or a copy of its state, if it wrote none), ours opens the same text
  let text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const reopened = join(dir, "reopened.jsonl");
  if (!text) text = jsonl(pi.sm.fileEntries);
  writeFileSync(reopened, text);
  let pi2, me2;
  withClock(t, () => {
    pi2 = piSide(SessionManager.open(reopened, dir), mask);
    me2 = oursSide(Session.open(text), mask);
  });
  pi2.ids = [...pi.ids];
  me2.ids = [...pi.ids];
  pi2.canon = pi.canon.fork();
  me2.canon = pi.canon.fork(); // same ids on both sides now: both read pi's text
  let taken2 = "";
  const more = rng.range(1, 15);
  for (let i = 0; i < more; i++) {
    const step = randomStep(rng, pi2.ids.length, { checks: false });
    if (clock === "fixed") t = advanceClock(rng, t);
    done.push(step);
    const p = withClock(t, () => applyStep(pi2, step));
    const o = withClock(t, () => applyStep(me2, step));
    if (p !== o) return fail(`after reopening: ${renderStep(step)}`, p, o);
    taken2 += lines(me2.s.takePendingLines());
    // pi 1.6 treats an opened file as written: each append adds just its own line
    const appended = readFileSync(reopened, "utf8").slice(text.length);
    const pc = pi2.canon.text(appended);
    const oc = me2.canon.text(taken2);
    if (pc !== oc) return fail("after reopening: lines pi appended vs takePendingLines()", pc, oc);
  }
  return { ok: true };
}

describe("persistence: takePendingLines vs the file pi writes", () => {
  it("pending lines: nothing before the first user or assistant message, then the header and everything", () => {
    const s = Session.create({ cwd: CWD });
    assert.deepEqual(s.takePendingLines(), []);
    s.appendThinkingLevelChange("high");
    s.appendModelChange("openai", "gpt-5");
    assert.deepEqual(s.takePendingLines(), []);
    s.appendMessage(user("hi"));
    const got = s.takePendingLines();
    assert.equal(got.length, 4);
    assert.equal(JSON.parse(got[0]).type, "session");
    assert.deepEqual(s.takePendingLines(), []);
    s.appendMessage(assistant("more"));
    assert.equal(s.takePendingLines().length, 1);
    // an opened session has no pending history: only what is appended after opening
    const o = Session.open(`${JSON.stringify(JSON.parse(got[0]))}\n`);
    assert.deepEqual(o.takePendingLines(), []);
    o.appendThinkingLevelChange("low");
    assert.equal(o.takePendingLines().length, 1);
  });

  it("120 random sessions: new (SessionManager.create) and reopened (SessionManager.open)", () => {
    const failures = [];
    for (let i = 0; i < 120; i++) {
      const seed = caseSeed(MASTER ^ 0x5e55_1011, i);
      const r = persistCase(seed);
      if (typeof r === "string") failures.push(r);
    }
    assert.ok(
      failures.length === 0,
      `${failures.length} of 120 differ (master seed ${hex(MASTER)}):\n\n${failures.slice(0, 3).join("\n\n")}`,
    );
  });
});

// ---------------------------------------------------------------- appendJsonl

/** Observations of one of our sessions (ids left as they are: both sessions read the same text). */
function observeOurs(s, targets) {
  const side = { ...oursSide(s, false), canon: new Canon(false, { ids: false }), ids: [] };
  const rec = observe(side, targets);
  rec.push(["toJsonl()", s.toJsonl()]);
  rec.push(["migrated", String(s.migrated)]);
  rec.push(["diagnostics()", JSON.stringify(s.diagnostics())]);
  return rec;
}

/** Some ids to look up: a few of the file's entries (first, last, random) and an unknown one. */
function lookupTargets(rng, ids) {
  const ts = ["nonexistent"];
  if (ids.length) ts.push(ids[0], ids[ids.length - 1], rng.pick(ids), rng.pick(ids));
  return ts;
}

/** UTF-8 byte positions where a line ends (just after the "\n"). */
function lineEnds(bytes, from = 0) {
  const ends = [];
  for (let k = from; k < bytes.length; k++) if (bytes[k] === 0x0a) ends.push(k + 1);
  return ends;
}

/** Open bytes[0..cuts[0]], then appendJsonl each following slice (as Uint8Array copies). */
function openInChunks(bytes, cuts) {
  const positions = [...new Set(cuts)].sort((a, b) => a - b);
  if (positions[positions.length - 1] !== bytes.length) positions.push(bytes.length);
  const s = Session.open(new Uint8Array(bytes.subarray(0, positions[0])));
  for (let k = 1; k < positions.length; k++)
    s.appendJsonl(new Uint8Array(bytes.subarray(positions[k - 1], positions[k])));
  return {
    s,
    plan: `open(0..${positions[0]}) + ${positions
      .slice(1)
      .map((p, k) => `${positions[k]}..${p}`)
      .join(" ")}`,
  };
}

describe("appendJsonl: a file in arbitrary chunks equals the whole file", () => {
  // generated v3 files whose last line is complete (ends with a newline)
  const cases = [];
  const unterminated = [];
  for (let i = 0; cases.length < 150 && i < 3000; i++) {
    const g = generateSession(caseSeed(0xa99e_0001, i));
    if (g.version !== 3 || !g.text.trim() || !g.text.includes("\n")) continue;
    if (g.text.endsWith("\n")) cases.push(g);
    else if (unterminated.length < 30) unterminated.push(g);
  }
  const describeCase = (g) => `seed ${hex(g.seed)} [${g.features.join(",")}]`;

  it(`${cases.length} generated v3 files: open up to a line end, then Uint8Array chunks cut anywhere (mid-line, mid-character)`, () => {
    const failures = [];
    for (const g of cases) {
      const rng = new Rng(g.seed ^ 0x1234);
      const bytes = Buffer.from(g.text, "utf8");
      const c0 = rng.pick(lineEnds(bytes));
      const cuts = [c0];
      for (let k = rng.range(0, 8); k > 0; k--) cuts.push(rng.range(c0, bytes.length));
      const inChar = [];
      for (let k = c0 + 1; k < bytes.length; k++) if ((bytes[k] & 0xc0) === 0x80) inChar.push(k);
      if (inChar.length) cuts.push(rng.pick(inChar), rng.pick(inChar));
      const { s, plan } = openInChunks(bytes, cuts);
      const targets = lookupTargets(rng, g.ids);
      const d = firstDiff(observeOurs(Session.open(g.text), targets), observeOurs(s, targets));
      if (d)
        failures.push(
          `${describeCase(g)}, ${bytes.length} bytes, ${plan}: ${d.key}\n    ${excerpt(d.pi, d.ours, 200).replace(/\n/g, "\n    ")}`,
        );
    }
    assert.ok(
      failures.length === 0,
      `${failures.length} of ${cases.length} differ ("pi" = Session.open(whole), "ours" = open + appendJsonl):\n${failures.slice(0, 4).join("\n")}`,
    );
  });

  it("one byte at a time, and the whole rest as one chunk", () => {
    const failures = [];
    for (const g of cases.slice(0, 12)) {
      const bytes = Buffer.from(g.text, "utf8");
      const headerEnd = lineEnds(bytes)[0];
      const small = bytes.length <= 6000;
      const plans = [[headerEnd]];
      if (small) plans.push(Array.from({ length: bytes.length - headerEnd + 1 }, (_, k) => headerEnd + k));
      for (const cuts of plans) {
        const { s } = openInChunks(bytes, cuts);
        const targets = lookupTargets(new Rng(g.seed), g.ids);
        const d = firstDiff(observeOurs(Session.open(g.text), targets), observeOurs(s, targets));
        if (d)
          failures.push(
            `${describeCase(g)} ${cuts.length > 1 ? "byte by byte" : "rest in one chunk"}: ${d.key}\n    ${excerpt(d.pi, d.ours, 200)}`,
          );
      }
    }
    assert.ok(failures.length === 0, failures.slice(0, 4).join("\n"));
  });

  it("string chunks (cut between characters, never inside a surrogate pair)", () => {
    const failures = [];
    for (const g of cases.slice(0, 60)) {
      const rng = new Rng(g.seed ^ 0x777);
      const headerEnd = g.text.indexOf("\n") + 1;
      const s = Session.open(g.text.slice(0, headerEnd));
      let pos = headerEnd;
      while (pos < g.text.length) {
        let next = Math.min(g.text.length, pos + rng.range(1, 400));
        const c = g.text.charCodeAt(next - 1);
        if (next < g.text.length && c >= 0xd800 && c <= 0xdbff) next++;
        s.appendJsonl(g.text.slice(pos, next));
        pos = next;
      }
      const targets = lookupTargets(rng, g.ids);
      const d = firstDiff(observeOurs(Session.open(g.text), targets), observeOurs(s, targets));
      if (d) failures.push(`${describeCase(g)}: ${d.key}\n    ${excerpt(d.pi, d.ours, 200)}`);
    }
    assert.ok(failures.length === 0, failures.slice(0, 4).join("\n"));
  });

  it("string chunks cut inside a surrogate pair: same entries (toJsonl may spell the character as \\u escapes)", () => {
    const failures = [];
    let spelled = 0;
    let tried = 0;
    for (const g of cases) {
      if (tried >= 40) break;
      const pairs = [];
      for (let k = g.text.indexOf("\n") + 1; k < g.text.length - 1; k++) {
        const c = g.text.charCodeAt(k);
        if (c >= 0xd800 && c <= 0xdbff) pairs.push(k + 1);
      }
      if (!pairs.length) continue;
      tried++;
      const rng = new Rng(g.seed ^ 0x5a5a);
      const cuts = [...new Set([rng.pick(pairs), rng.pick(pairs)])].sort((a, b) => a - b);
      const s = Session.open(g.text.slice(0, g.text.indexOf("\n") + 1));
      let pos = g.text.indexOf("\n") + 1;
      for (const c of [...cuts, g.text.length]) {
        s.appendJsonl(g.text.slice(pos, c));
        pos = c;
      }
      const targets = lookupTargets(rng, g.ids);
      const whole = observeOurs(Session.open(g.text), targets).filter(([k]) => k !== "toJsonl()");
      const mine = observeOurs(s, targets).filter(([k]) => k !== "toJsonl()");
      const d = firstDiff(whole, mine);
      if (d)
        failures.push(
          `${describeCase(g)}, cuts at UTF-16 ${cuts.join(",")}: ${d.key}\n    ${excerpt(d.pi, d.ours, 200)}`,
        );
      else if (s.toJsonl() !== g.text) {
        spelled++;
        if (spelled === 1)
          console.log(
            `note: appendJsonl with a string chunk ending inside a surrogate pair keeps the entries but toJsonl() differs from the file, e.g. ${describeCase(g)}:\n  ${excerpt(g.text, s.toJsonl(), 120)}`,
          );
      }
    }
    if (spelled)
      console.log(
        `note: ${spelled} of ${tried} files: toJsonl() after surrogate-split string chunks is not the file's text (same JSON values)`,
      );
    assert.ok(failures.length === 0, failures.slice(0, 4).join("\n"));
  });

  it(`files without a final newline (${unterminated.length}): the unterminated last line waits for its newline`, () => {
    const failures = [];
    for (const g of unterminated) {
      const bytes = Buffer.from(g.text, "utf8");
      const ends = lineEnds(bytes);
      const lastStart = ends[ends.length - 1];
      const { s } = openInChunks(bytes, [ends[0], lastStart, lastStart + Math.floor((bytes.length - lastStart) / 2)]);
      const targets = lookupTargets(new Rng(g.seed), g.ids);
      // before the newline: the entries of the file without its last line;
      // toJsonl() still holds every byte received, the unfinished line last,
      // and diagnostics() reports that line
      const withoutJsonl = (obs) => obs.filter(([k]) => k !== "toJsonl()" && k !== "diagnostics()");
      const d1 = firstDiff(
        withoutJsonl(observeOurs(Session.open(new Uint8Array(bytes.subarray(0, lastStart))), targets)),
        withoutJsonl(observeOurs(s, targets)),
      );
      if (d1) failures.push(`${describeCase(g)} before the newline: ${d1.key}\n    ${excerpt(d1.pi, d1.ours, 200)}`);
      if (s.toJsonl() !== g.text)
        failures.push(`${describeCase(g)} before the newline: toJsonl() is not every byte received`);
      // with the newline: the same as the whole file (plus its newline)
      s.appendJsonl(new Uint8Array([0x0a]));
      const d2 = firstDiff(observeOurs(Session.open(`${g.text}\n`), targets), observeOurs(s, targets));
      if (d2) failures.push(`${describeCase(g)} after the newline: ${d2.key}\n    ${excerpt(d2.pi, d2.ours, 200)}`);
    }
    assert.ok(failures.length === 0, failures.slice(0, 4).join("\n"));
  });

  it("Session.open of text cut mid-line, then the rest: the cut line is continued, not ended", () => {
    // A file read while a writer is mid-line: the bytes appended later continue that line.
    const failures = [];
    for (const g of cases.slice(0, 40)) {
      const rng = new Rng(g.seed ^ 0x4321);
      const bytes = Buffer.from(g.text, "utf8");
      const ends = new Set(lineEnds(bytes));
      const headerEnd = lineEnds(bytes)[0];
      let c0 = rng.range(headerEnd + 1, bytes.length - 1);
      while (ends.has(c0) && c0 < bytes.length - 1) c0++;
      const { s, plan } = openInChunks(bytes, [c0]);
      const targets = lookupTargets(rng, g.ids);
      const d = firstDiff(observeOurs(Session.open(g.text), targets), observeOurs(s, targets));
      if (d)
        failures.push(
          `${describeCase(g)}, ${plan}: ${d.key}\n    ${excerpt(d.pi, d.ours, 200).replace(/\n/g, "\n    ")}`,
        );
    }
    assert.ok(
      failures.length === 0,
      `${failures.length} of 40 differ ("pi" = Session.open(whole), "ours" = open(prefix ending mid-line) + appendJsonl(rest)):\n${failures.slice(0, 3).join("\n")}`,
    );
  });

  it("lines another writer appends to a session we hold (pi appending to the same file)", () => {
    // pi appends through SessionManager.open; we ingest the new bytes in two pieces each time
    const failures = [];
    for (let i = 0; i < 30; i++) {
      const seed = caseSeed(0xa99e_0002, i);
      const rng = new Rng(seed);
      const dir = freshDir("share");
      const file = join(dir, "s.jsonl");
      const sm0 = SessionManager.inMemory(CWD);
      sm0.appendMessage(user("start"));
      sm0.appendMessage(assistant("ok"));
      writeFileSync(file, jsonl(sm0.fileEntries));
      const mine = Session.open(readFileSync(file));
      const sm = SessionManager.open(file, dir);
      let size = statSync(file).size;
      const ids = sm0.fileEntries.slice(1).map((e) => e.id);
      for (let k = rng.range(3, 20); k > 0; k--) {
        const step = randomStep(rng, ids.length, { checks: false });
        try {
          const id = sm[step.op](...step.args.map((a) => (a instanceof Ref ? ids[a.k] : structuredClone(a))));
          if (typeof id === "string") ids.push(id);
        } catch {}
        const buf = readFileSync(file);
        const add = buf.subarray(size);
        const cut = rng.range(0, add.length);
        mine.appendJsonl(new Uint8Array(add.subarray(0, cut)));
        mine.appendJsonl(new Uint8Array(add.subarray(cut)));
        size = buf.length;
      }
      const targets = lookupTargets(rng, ids);
      const d = firstDiff(observeOurs(Session.open(readFileSync(file, "utf8")), targets), observeOurs(mine, targets));
      if (d) failures.push(`seed ${hex(seed)}: ${d.key}\n    ${excerpt(d.pi, d.ours, 200)}`);
      // and against pi's manager reopening the file (its leaf is then the last entry, as ours)
      const pside = { ...piSide(SessionManager.open(file, dir), false), canon: new Canon(false, { ids: false }) };
      const oside = { ...oursSide(mine, false), canon: new Canon(false, { ids: false }) };
      const d2 = firstDiff(observe(pside, targets), observe(oside, targets));
      if (d2)
        failures.push(`seed ${hex(seed)} vs pi reopening the file: ${d2.key}\n    ${excerpt(d2.pi, d2.ours, 200)}`);
    }
    assert.ok(failures.length === 0, failures.slice(0, 4).join("\n"));
  });
});

// ---------------------------------------------------------------- sessionInfo

const H = (extra = {}) => ({
  type: "session",
  version: 3,
  id: "11111111-2222-7333-8444-555555555555",
  timestamp: "2025-03-01T10:00:00.000Z",
  cwd: "/w",
  ...extra,
});
const E = (type, id, parentId, extra) => ({ type, id, parentId, timestamp: "2025-03-01T10:05:00.000Z", ...extra });
const M = (id, parentId, message, timestamp) => ({
  type: "message",
  id,
  parentId,
  timestamp: timestamp ?? "2025-03-01T10:05:00.000Z",
  message,
});

const INFO_FILES = {
  "header only": jsonl([H()]),
  "no timestamp on the header": jsonl([H({ timestamp: undefined })]),
  "invalid header timestamp, no messages (modified = mtime)": jsonl([H({ timestamp: "not a date" })]),
  "invalid header timestamp, a message": jsonl([
    H({ timestamp: "yesterday" }),
    M("a1", null, user("q", 1700000000000)),
  ]),
  "numeric message timestamps: newest wins": jsonl([
    H(),
    M("a1", null, user("q", 1700000000000)),
    M("a2", "a1", assistant("a", { timestamp: 1800000000000 })),
    M("a3", "a2", user("r", 1750000000000)),
  ]),
  "message timestamp 0 (falls back to the header)": jsonl([H(), M("a1", null, user("q", 0))]),
  "messages without numeric timestamps use the entry's": jsonl([
    H(),
    M("a1", null, { role: "user", content: "q" }, "2025-04-01T00:00:00.000Z"),
    M("a2", "a1", { role: "assistant", content: [{ type: "text", text: "a" }] }, "2025-05-01T00:00:00.000Z"),
  ]),
  "entry timestamp invalid and no message timestamp": jsonl([
    H(),
    M("a1", null, { role: "user", content: "q" }, "garbage"),
  ]),
  "toolResult / custom roles count but give no activity or text": jsonl([
    H(),
    M("a1", null, toolResult("t", 1900000000000)),
    M("a2", "a1", { role: "custom", customType: "x", content: "c", display: true, timestamp: 1950000000000 }),
  ]),
  "first message from array content, images skipped": jsonl([
    H(),
    M(
      "a1",
      null,
      user(
        [
          { type: "image", data: "x", mimeType: "image/png" },
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
        5,
      ),
    ),
  ]),
  "assistant first, then user": jsonl([
    H(),
    M("a1", null, assistant("hello from assistant")),
    M("a2", "a1", user("the user", 3)),
  ]),
  "empty user text is skipped for firstMessage": jsonl([
    H(),
    M("a1", null, user("", 3)),
    M("a2", "a1", user([{ type: "image", data: "x", mimeType: "image/png" }], 4)),
    M("a3", "a2", user("  ", 5)),
  ]),
  "text block without text": jsonl([H(), M("a1", null, user([{ type: "text" }], 3)), M("a2", "a1", user("real", 4))]),
  "session names: trimmed, cleared, null, non-string": jsonl([
    H(),
    E("session_info", "i1", null, { name: "  Name one " }),
    E("session_info", "i2", "i1", { name: "" }),
    E("session_info", "i3", "i2", { name: "Two" }),
    E("session_info", "i4", "i3", { name: null }),
  ]),
  "session name last one set": jsonl([
    H(),
    E("session_info", "i1", null, { name: "  A  " }),
    E("session_info", "i2", "i1", { name: "B\t" }),
  ]),
  "session name on an abandoned branch still counts": jsonl([
    H(),
    M("a1", null, user("q", 1)),
    E("session_info", "i1", "a1", { name: "side" }),
    M("a2", "a1", user("main", 2)),
  ]),
  "parentSession and odd cwd": jsonl([H({ parentSession: "/sessions/p.jsonl", cwd: 42 })]),
  "numeric header id": jsonl([H({ id: 42 })]),
  "v1 file": jsonl([
    { type: "session", id: "v1-session", timestamp: "2024-01-01T00:00:00.000Z", cwd: "/old" },
    { type: "message", timestamp: "2024-01-01T00:01:00.000Z", message: user("old style", 1704067260000) },
  ]),
  "garbage first line, header second": `not json\n${jsonl([H(), M("a1", null, user("q", 7))])}`,
  "blank lines and CRLF": `\r\n${[H(), M("a1", null, user("crlf", 7))].map((e) => JSON.stringify(e)).join("\r\n")}\r\n\r\n`,
  "empty file": "",
  "blank lines only": "\n  \n\t\n",
  "first line null": `null\n${jsonl([H()])}`,
  "falsy lines between entries": `${jsonl([H()])}false\n0\n""\n${jsonl([M("a1", null, user("q", 7))])}`,
  "numeric entry timestamp counts for modified": jsonl([
    H(),
    {
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: 1_800_000_000_000,
      message: { role: "user", content: "q" },
    },
  ]),
  "lines split by a lone CR": `${JSON.stringify(H())}\r${JSON.stringify(M("a1", null, user("q", 9)))}\r`,
  "message role not a string": jsonl([H(), M("a1", null, { role: 5, content: "x", timestamp: 3 })]),
  "message without content": jsonl([H(), M("a1", null, { role: "user", timestamp: 3 })]),
  "a line that is a JSON string": `${JSON.stringify(H())}\n"just a string"\n${JSON.stringify(M("a1", null, user("after", 3)))}\n`,
  "huge timestamp values": jsonl([H({ timestamp: "+275760-09-13T00:00:00.000Z" }), M("a1", null, user("q", 8.64e15))]),
  "negative message timestamp": jsonl([H(), M("a1", null, user("q", -5))]),
  "message timestamp as a string": jsonl([
    H(),
    M("a1", null, { role: "user", content: "q", timestamp: "2030-01-01T00:00:00.000Z" }),
  ]),
  "header timestamp as a number": jsonl([H({ timestamp: 1700000000000 })]),
};

// Files on which pi's buildSessionInfo throws a TypeError (message null or missing, content
// neither a string nor an array, a name that is not a string): pi's list then leaves the
// session out. Ours lists it (the README's row on `sessionInfo`): such a message counts but
// gives no text, such a name no name. [text, messageCount, modified] (modified: the newest
// numeric message timestamp, else the header's time).
const HEADER_MS = Date.parse("2025-03-01T10:00:00.000Z");
const INFO_FILES_PI_THROWS = {
  "message entry without a message": [
    jsonl([H(), { type: "message", id: "a1", parentId: null, timestamp: "2025-03-01T10:05:00.000Z" }]),
    1,
    HEADER_MS,
  ],
  "message null": [jsonl([H(), M("a1", null, null)]), 1, HEADER_MS],
  "user content neither string nor array": [
    jsonl([H(), M("a1", null, { role: "user", content: 42, timestamp: 3 })]),
    1,
    3,
  ],
  "user content null": [jsonl([H(), M("a1", null, { role: "user", content: null, timestamp: 3 })]), 1, 3],
  "a name that is a number": [jsonl([H(), E("session_info", "i1", null, { name: 5 })]), 0, HEADER_MS],
};

// Files with lines before the header: oh-my-pi's title line, an entry, an array. pi 1.6's list
// leaves them out; pi's repository now skips such lines until the header (buildSessionInfo), and
// so does ours (the README's row on lines before the header). [text, messageCount, firstMessage]
const OMP_TITLE = {
  type: "title",
  v: 1,
  title: "Fix the build",
  source: "auto",
  updatedAt: "2025-03-01T10:00:00Z",
  pad: "    ",
};
const INFO_FILES_BEFORE_HEADER = {
  "oh-my-pi title line": [jsonl([OMP_TITLE, H(), M("a1", null, user("q", 7))]), 1, "q"],
  "first entry is not a header": [jsonl([M("a1", null, user("q", 7)), H()]), 0, "(no messages)"],
  "first line an array": [`[]\n${jsonl([H()])}`, 0, "(no messages)"],
};

describe("sessionInfo vs SessionManager.list", () => {
  it("handcrafted edge cases, generated files of every version, and random sessions", async () => {
    const files = Object.entries(INFO_FILES);
    for (let i = 0; i < 150; i++) {
      const g = generateSession(caseSeed(0x1f0_0001, i));
      files.push([`generated seed ${hex(g.seed)} [${g.features.join(",")}]`, g.text]);
    }
    for (let i = 0; i < 30; i++) {
      const rng = new Rng(caseSeed(0x1f0_0002, i));
      const s = Session.create({ cwd: CWD, parentSession: rng.chance(0.3) ? "/p.jsonl" : undefined });
      const ids = [];
      for (let k = rng.range(0, 30); k > 0; k--) {
        const step = rng.chance(0.7)
          ? { op: "appendMessage", args: [randomMessage(rng)] }
          : randomStep(rng, ids.length, { checks: false });
        try {
          const id = s[step.op](...step.args.map((a) => (a instanceof Ref ? ids[a.k] : a)));
          if (typeof id === "string") ids.push(id);
        } catch {}
      }
      files.push([`random session ${i}`, s.toJsonl()]);
    }
    const failures = await compareInfos(files);
    const surrogate = failures.filter((f) => f.includes("lone surrogate")).length;
    assert.ok(
      failures.length === 0,
      `${failures.length} differences (${surrogate} where pi's first message contains a lone surrogate):\n${failures.slice(0, 30).join("\n")}`,
    );
  });

  it("documented difference: a BOM before the header (pi 1.6 leaves the file out; ours lists it)", async () => {
    const text = `\ufeff${jsonl([H(), M("a1", null, user("q", 9))])}`;
    const dir = freshDir("bom");
    writeFileSync(join(dir, "bom.jsonl"), text);
    assert.deepEqual(await SessionManager.listAll(dir), []);
    for (const input of [text, new Uint8Array(Buffer.from(text, "utf8"))]) {
      const info = sessionInfo(input);
      assert.equal(info?.messageCount, 1);
      assert.equal(info.firstMessage, "q");
    }
  });

  it("documented difference: files on which pi's buildSessionInfo throws are listed, not left out", async () => {
    const dir = freshDir("pi-throws");
    for (const [name, [text]] of Object.entries(INFO_FILES_PI_THROWS))
      writeFileSync(join(dir, `${name.replace(/\W+/g, "-")}.jsonl`), text);
    assert.deepEqual(
      (await SessionManager.listAll(dir)).map((i) => i.path),
      [],
      "pi 1.6.0 now lists some of these files: the README's difference is stale",
    );
    for (const [name, [text, messageCount, modified]] of Object.entries(INFO_FILES_PI_THROWS)) {
      for (const input of [text, new Uint8Array(Buffer.from(text, "utf8"))]) {
        const info = sessionInfo(input);
        assert.deepEqual(
          { ...info, created: info?.created.getTime(), modified: info?.modified.getTime() },
          {
            id: "11111111-2222-7333-8444-555555555555",
            cwd: "/w",
            name: undefined,
            parentSession: undefined,
            created: HEADER_MS,
            modified,
            messageCount,
            firstMessage: "(no messages)",
          },
          name,
        );
      }
    }
  });
});

describe("lines before the header", () => {
  it("documented difference: sessionInfo finds the header (pi 1.6 leaves the file out)", async () => {
    const dir = freshDir("before-header");
    for (const [name, [text]] of Object.entries(INFO_FILES_BEFORE_HEADER))
      writeFileSync(join(dir, `${name.replace(/\W+/g, "-")}.jsonl`), text);
    assert.deepEqual(
      (await SessionManager.listAll(dir)).map((i) => i.path),
      [],
      "pi 1.6.0 now lists files with lines before the header: the README's difference is stale",
    );
    for (const [name, [text, messageCount, firstMessage]] of Object.entries(INFO_FILES_BEFORE_HEADER)) {
      for (const input of [text, new Uint8Array(Buffer.from(text, "utf8"))]) {
        const info = sessionInfo(input);
        assert.deepEqual(
          { id: info?.id, cwd: info?.cwd, created: info?.created.getTime(), messageCount: info?.messageCount },
          { id: "11111111-2222-7333-8444-555555555555", cwd: "/w", created: HEADER_MS, messageCount },
          name,
        );
        assert.equal(info.firstMessage, firstMessage, name);
      }
    }
  });
});

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Writes [name, text] files to a folder, lists it with pi and compares with sessionInfo per file. */
async function compareInfos(files) {
  const dir = freshDir("list");
  const byName = new Map();
  files.forEach(([name, text], n) => {
    const path = join(dir, `${String(n).padStart(4, "0")}.jsonl`);
    writeFileSync(path, text);
    byName.set(path, { name, text });
  });
  // listAll: list(cwd, dir) in 1.6 keeps only the sessions whose header cwd is `cwd`
  const listed = await SessionManager.listAll(dir);
  const byPath = new Map(listed.map((info) => [info.path, info]));
  const failures = [];
  const t = (d) => (d instanceof Date ? d.getTime() : `not a Date: ${String(d)}`);
  const show = (v) => `${JSON.stringify(v) ?? "undefined"}${Number.isNaN(v) ? " (NaN)" : ""}`;
  for (const [path, { name, text }] of byName) {
    const p = byPath.get(path);
    const mtime = statSync(path).mtime;
    for (const [form, input] of [
      ["string", text],
      ["Uint8Array", new Uint8Array(Buffer.from(text, "utf8"))],
    ]) {
      const o = outcome(
        () => sessionInfo(input, { mtime }),
        (v) => v,
      );
      if (o.threw) {
        failures.push(`${name} (${form}): sessionInfo ${o.text}`);
        continue;
      }
      const mine = o.value;
      if (!p || !mine) {
        if (!!p !== !!mine)
          failures.push(
            `${name} (${form}): pi ${p ? "lists it" : "gives no info"}, ours returns ${JSON.stringify(mine)}`,
          );
        continue;
      }
      const want = {
        id: p.id,
        cwd: p.cwd,
        name: p.name,
        parentSession: p.parentSessionPath,
        created: t(p.created),
        modified: t(p.modified),
        messageCount: p.messageCount,
        firstMessage: p.firstMessage,
      };
      const got = {
        id: mine.id,
        cwd: mine.cwd,
        name: mine.name,
        parentSession: mine.parentSession,
        created: t(mine.created),
        modified: t(mine.modified),
        messageCount: mine.messageCount,
        firstMessage: mine.firstMessage,
      };
      for (const k of Object.keys(want)) {
        if (Object.is(want[k], got[k])) continue;
        const why =
          k === "firstMessage" && typeof want[k] === "string" && LONE_SURROGATE.test(want[k])
            ? " [pi's first message contains a lone surrogate]"
            : "";
        const cut = (v) => (typeof v === "string" && v.length > 160 ? `${show(v.slice(0, 160))}…` : show(v));
        failures.push(`${name} (${form}): ${k}${why}: pi ${cut(want[k])}, ours ${cut(got[k])}`);
      }
      const keys = Object.keys(mine).join();
      if (keys !== "id,cwd,name,parentSession,created,modified,messageCount,firstMessage")
        failures.push(`${name} (${form}): keys ${keys}`);
    }
  }
  return failures;
}
