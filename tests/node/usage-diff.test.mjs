// A differential test of the usage accounting against pi 1.6.0 on odd sessions: random trees
// (branches, orphans, duplicate ids, new roots), every kind of paid entry, usage fields that
// are missing, partial, negative, strings, huge, `1e400`, booleans, costs with many decimals,
// providers and models changing, aborted and error replies, v1/v2 files pi migrates, non-ASCII,
// torn last lines and timestamps that are odd, missing or near a DST change.
//
// The expectations come from pi's own code (tests/shared/pi.mjs) run over pi's own entries of
// the file (SessionManager.open), with one stated rule of ours applied first: a usage field
// that is not a finite number counts as 0 and marks its record incomplete (README,
// differences). Over those entries, pi's getSessionStats is each file's total and each path's
// (getBranch(leaf)), pi's getUsageCostBreakdown (the /session command's per-model split) is
// the ledger's rows by model, and the ledger's rows by day are pi's totals of each day's
// entries, the day read by Intl in the zone. USAGE_DIFF_SEED replays a run; USAGE_DIFF_COUNT
// sets how many sessions (default 40, a second or two).

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { sessionUsage, UsageLedger } from "session-tree";
import { piSessionStats, SessionManager } from "../shared/pi.mjs";
import { caseSeed, envCount, envSeed, Rng } from "../shared/rng.mjs";

const { addUsageToTotals, createUsageTotals, getUsageCostBreakdown } = await import(
  new URL("../node_modules/@earendil-works/pi-coding-agent/dist/core/usage-totals.js", import.meta.url).href
);

const seed = envSeed("USAGE_DIFF_SEED");
const count = envCount("USAGE_DIFF_COUNT", 40);
const root = mkdtempSync(join(tmpdir(), "session-tree-usage-diff-"));
after(() => rmSync(root, { recursive: true, force: true }));

const ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham"];
// Instants around DST changes (Paris and New York in March and November 2026, Lord Howe's
// half hour in April), midnights, and plain days.
const INSTANTS = [
  "2026-03-29T00:59:59.999Z",
  "2026-03-29T01:00:00.000Z",
  "2026-03-08T06:59:59.000Z",
  "2026-03-08T07:00:00.000Z",
  "2026-11-01T05:30:00.000Z",
  "2026-04-04T14:45:00.000Z",
  "2026-01-04T23:59:59.999Z",
  "2026-01-05T00:00:00.000Z",
  "2025-12-31T23:30:00.000Z",
  "2026-06-15T12:00:00.000Z",
];
const MODELS = [
  ["anthropic", "claude-sonnet-4-5"],
  ["anthropic", "claude-opus-4-1"],
  ["openai", "gpt-5"],
  ["openrouter", "auto"],
  [undefined, "local-ü-模型"],
];
// Written as JSON text, not JSON.stringify'd: `1e400` parses to Infinity.
const INF = "__INF__";

/** A usage object: mostly what pi-ai writes, sometimes broken in one of many ways. */
function usageOf(rng) {
  const n = () =>
    rng.weighted([
      [20, rng.int(0, 5000)],
      [2, -rng.int(1, 100)],
      [1, 1e300],
      [1, INF],
      [1, String(rng.int(0, 50))],
      [1, null],
      [1, true],
      [1, [3]],
      [1, 0.1 + rng.next()],
    ]);
  const cost = () =>
    rng.weighted([
      [20, rng.next() / 7],
      [3, rng.int(0, 1e6) / 1e6],
      [1, 1e-17 * rng.next()],
      [1, -0.001],
      [1, "0.5"],
      [1, 1e300],
    ]);
  const usage = {};
  for (const f of ["input", "output", "cacheRead", "cacheWrite"]) if (!rng.chance(0.03)) usage[f] = n();
  usage.totalTokens = 1;
  const shape = rng.weighted([
    [20, "object"],
    [1, "missing"],
    [1, "number"],
    [1, "no-total"],
    [1, "null"],
  ]);
  if (shape === "object") usage.cost = { input: 0, output: 0, total: cost() };
  else if (shape === "number") usage.cost = cost();
  else if (shape === "no-total") usage.cost = { input: 1 };
  else if (shape === "null") usage.cost = null;
  return rng.weighted([
    [30, usage],
    [1, undefined],
    [1, null],
    [1, 0],
    [1, "lots"],
    [1, []],
  ]);
}

function timestampOf(rng, clock) {
  clock.t += rng.int(1, 4 * 3600_000);
  return rng.weighted([
    [20, new Date(clock.t).toISOString()],
    [4, rng.pick(INSTANTS)],
    [1, undefined],
    [1, clock.t],
    [1, "yesterday"],
    [1, new Date(clock.t).toISOString().replace("Z", "+05:30")],
    [1, "2026-02-30T10:00:00Z"],
  ]);
}

/** A random session as JSONL text, and whether pi migrates it (v1/v2: new ids). */
function generate(rng) {
  const version = rng.weighted([
    [10, 3],
    [1, 2],
    [1, 1],
  ]);
  const clock = { t: Date.parse("2026-01-01T00:00:00Z") + rng.int(0, 200) * 86_400_000 };
  const header = { type: "session", id: rng.uuid(), timestamp: new Date(clock.t).toISOString(), cwd: "/work/ä" };
  if (version > 1) header.version = version;
  const lines = [header];
  const ids = [];
  let model = rng.pick(MODELS);
  const n = rng.int(1, 40);
  for (let i = 0; i < n; i++) {
    const id = ids.length > 0 && rng.chance(0.05) ? rng.pick(ids) : rng.hex8();
    const parentId = rng.weighted([
      [20, ids.at(-1) ?? null],
      [4, ids.length > 0 ? rng.pick(ids) : null],
      [1, null],
      [1, "nowhere0"],
    ]);
    if (rng.chance(0.1)) model = rng.pick(MODELS);
    const base = { id, parentId, timestamp: timestampOf(rng, clock) };
    if (base.timestamp === undefined) delete base.timestamp;
    const kind = rng.weighted([
      [6, "user"],
      [10, "assistant"],
      [3, "toolResult"],
      [2, "usage"],
      [1, "compaction"],
      [1, "branch_summary"],
      [1, "label"],
      [1, "custom_message"],
    ]);
    let e;
    const withUsage = (o) => {
      const u = usageOf(rng);
      if (u !== undefined) o.usage = u;
      return o;
    };
    if (kind === "user") e = { type: "message", ...base, message: { role: "user", content: "héllo 👋", timestamp: 1 } };
    else if (kind === "assistant") {
      const message = { role: "assistant", content: [{ type: "toolCall", id: "c", name: "bash", arguments: {} }] };
      if (model[0] !== undefined) message.provider = model[0];
      message.model = model[1];
      if (rng.chance(0.1)) message.responseModel = "resolved-model";
      message.stopReason = rng.pick(["stop", "toolUse", "aborted", "error", "length"]);
      e = { type: "message", ...base, message: withUsage(message) };
    } else if (kind === "toolResult") {
      const message = { role: "toolResult", toolCallId: "c", toolName: "bash", content: [], isError: false };
      e = { type: "message", ...base, message: rng.chance(0.4) ? withUsage(message) : message };
    } else if (kind === "usage") {
      e = withUsage({ type: "usage", ...base, kind: rng.pick(["cache_warm", "другое"]), provider: "anthropic" });
      if (model[0] !== undefined) e.provider = model[0];
      e.model = model[1];
    } else if (kind === "compaction") {
      e = { type: "compaction", ...base, summary: "s", firstKeptEntryId: id, tokensBefore: 10 };
      if (rng.chance(0.6)) withUsage(e);
    } else if (kind === "branch_summary") {
      e = { type: "branch_summary", ...base, fromId: parentId ?? "root", summary: "s" };
      if (rng.chance(0.6)) withUsage(e);
    } else if (kind === "label") e = { type: "label", ...base, targetId: id, label: "l" };
    else e = { type: "custom_message", ...base, customType: "x", content: "c", display: true };
    if (version === 1) {
      delete e.id;
      delete e.parentId;
    }
    if (version > 1 || e.type === "message" || e.type === "compaction") lines.push(e);
    ids.push(id);
  }
  let text = `${lines.map((l) => JSON.stringify(l).replaceAll(`"${INF}"`, "1e400")).join("\n")}\n`;
  // A torn last line: a reply still being written.
  if (rng.chance(0.15))
    text += '{"type":"message","id":"torn0000","parentId":null,"message":{"role":"assistant","usage":{"input":5';
  return { text, migrated: version < 3 };
}

const finite = (v) => typeof v === "number" && Number.isFinite(v);
const paidTypes = new Set(["usage", "compaction", "branch_summary"]);

/**
 * pi's entries with our rule applied: each usage pi would add has its fields that are not
 * finite numbers set to 0 (and `incomplete` counts such usages). Everything else is pi's.
 */
function sanitize(entries) {
  let incomplete = 0;
  const fix = (u) => {
    const out = { cost: {} };
    let broken = false;
    for (const f of ["input", "output", "cacheRead", "cacheWrite"]) {
      const v = u?.[f];
      out[f] = finite(v) ? v : 0;
      broken ||= !finite(v);
    }
    const total = u?.cost?.total;
    out.cost.total = finite(total) ? total : 0;
    broken ||= !finite(total);
    if (broken) incomplete++;
    return out;
  };
  const map = new Map();
  const out = entries.map((e) => {
    let s = e;
    if (e.type === "usage") s = { ...e, usage: fix(e.usage) };
    else if (paidTypes.has(e.type) && e.usage) s = { ...e, usage: fix(e.usage) };
    else if (e.type === "message" && e.message?.role === "assistant")
      s = { ...e, message: { ...e.message, usage: fix(e.message.usage) } };
    else if (e.type === "message" && e.message?.role === "toolResult" && e.message.usage)
      s = { ...e, message: { ...e.message, usage: fix(e.message.usage) } };
    map.set(e, s);
    return s;
  });
  return { entries: out, incomplete, of: (e) => map.get(e) };
}

/** pi's getSessionStats over exactly `entries`, as our totals read. */
function piTotals(entries) {
  const s = piSessionStats({ getEntries: () => entries });
  return { ...s.tokens, cost: s.cost };
}
/** Our totals in the shape of pi's. A sum that overflows is ±Infinity in both; JSON has no
 * NaN (an infinity less another, pi's total tokens), which ours give as null. */
const nan = (n) => (n === null ? Number.NaN : n);
const ours = (t) => ({
  input: nan(t.input),
  output: nan(t.output),
  cacheRead: nan(t.cacheRead),
  cacheWrite: nan(t.cacheWrite),
  total: nan(t.totalTokens),
  cost: nan(t.cost),
});

/** Whether pi's getBranch(id) ends (it loops forever on a parentId cycle). */
function branchEnds(sm, id) {
  const seen = new Set();
  for (let e = sm.getEntry(id); e; e = e.parentId ? sm.getEntry(e.parentId) : undefined) {
    if (seen.has(e)) return false;
    seen.add(e);
  }
  return true;
}

/** The local date of `timestamp` in `zone` as `new Date` reads it; "(no date)" when not a date. */
function dayOf(timestamp, zone) {
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return "(no date)";
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(d);
  const part = (type) => parts.find((p) => p.type === type).value;
  return `${part("year")}-${part("month")}-${part("day")}`;
}

const cases = Array.from({ length: count }, (_, i) => {
  const rng = new Rng(caseSeed(seed, i));
  return { i, rng, ...generate(rng) };
});

test(`each file's totals, paths and kinds are pi's (USAGE_DIFF_SEED=${seed})`, () => {
  const seen = { incomplete: 0, migrated: 0, leaves: 0, overflow: 0 };
  for (const c of cases) {
    const at = `case ${c.i} (USAGE_DIFF_SEED=${seed})`;
    const path = join(root, `${c.i}.jsonl`);
    writeFileSync(path, c.text);
    const report = sessionUsage(c.text);
    const sm = SessionManager.open(path);
    const pi = sanitize(sm.getEntries());
    assert.deepEqual(ours(report.total), piTotals(pi.entries), at);
    assert.equal(report.total.incomplete, pi.incomplete, at);
    seen.incomplete += pi.incomplete;
    seen.migrated += c.migrated;
    seen.overflow += report.records === undefined ? 0 : report.records.filter((r) => r.input >= 1e300).length;
    // What each kind cost: pi's accounting over the entries of that kind.
    const kinds = {
      assistant: (e) => e.type === "message" && e.message?.role === "assistant",
      toolResult: (e) => e.type === "message" && e.message?.role === "toolResult" && e.message.usage,
      usage: (e) => e.type === "usage",
      compaction: (e) => e.type === "compaction" && e.usage,
      branchSummary: (e) => e.type === "branch_summary" && e.usage,
    };
    for (const [kind, is] of Object.entries(kinds)) {
      const of = pi.entries.filter(is);
      if (of.length === 0) assert.equal(report.byKind.total[kind], undefined, `${kind} ${at}`);
      else assert.deepEqual(ours(report.byKind.total[kind]), piTotals(of), `${kind} ${at}`);
    }
    // The default path is pi's current leaf of the file just opened; each leaf's path is
    // getBranch(leaf) (ids of migrated files are pi's own random ones: not comparable).
    if (c.migrated) continue;
    assert.equal(report.leafId, sm.getLeafId(), at);
    if (branchEnds(sm, sm.getLeafId())) {
      const branch = sm.getBranch();
      assert.deepEqual(ours(report.path), piTotals(branch.map(pi.of)), `path ${at}`);
      // Off the path: every other entry of the file, in file order (abandoned branches, orphans).
      const on = new Set(branch);
      const off = sm.getEntries().filter((e) => !on.has(e));
      assert.deepEqual(ours(report.abandoned), piTotals(off.map(pi.of)), `abandoned ${at}`);
    }
    // A leaf whose id another entry repeats is not the entry pi's getBranch(id) starts at.
    const times = new Map();
    for (const e of sm.getEntries()) times.set(e.id, (times.get(e.id) ?? 0) + 1);
    for (const leaf of report.leaves) {
      if (times.get(leaf.entryId) !== 1 || !branchEnds(sm, leaf.entryId)) continue;
      const want = piTotals(sm.getBranch(leaf.entryId).map(pi.of));
      assert.deepEqual(ours(sessionUsage(c.text, { leafId: leaf.entryId, records: false }).path), want, at);
      assert.deepEqual(ours(leaf.path), want, `leaf ${leaf.entryId} ${at}`);
      seen.leaves++;
    }
  }
  // The run had what it is for (the odds of a miss in 40 sessions are below one in a thousand).
  if (count >= 40) for (const [what, n] of Object.entries(seen)) assert.ok(n > 0, `${what} (USAGE_DIFF_SEED=${seed})`);
});

test(`the ledger's rows by model are pi's /session cost breakdown (USAGE_DIFF_SEED=${seed})`, () => {
  for (const c of cases) {
    const at = `case ${c.i} (USAGE_DIFF_SEED=${seed})`;
    const path = join(root, `${c.i}.jsonl`);
    writeFileSync(path, c.text);
    const pi = sanitize(SessionManager.open(path).getEntries());
    const ledger = new UsageLedger();
    ledger.add(path, c.text);
    // pi names a model without a provider `undefined/model`, and what names none `Tools/summaries`;
    // it leaves out keys with no cost and no tokens.
    const name = (k) => (k === "(tools and summaries)" ? "Tools/summaries" : k.includes("/") ? k : `undefined/${k}`);
    const rows = ledger
      .summary({ by: "model" })
      .rows.filter((r) => r.usage.cost > 0 || r.usage.totalTokens > 0)
      .map((r) => ({ key: name(r.key), cost: nan(r.usage.cost), tokens: nan(r.usage.totalTokens) }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    const want = getUsageCostBreakdown(pi.entries).sort((a, b) => (a.key < b.key ? -1 : 1));
    assert.deepEqual(rows, want, at);
    ledger.free();
  }
});

test(`the ledger's total is the file's whatever the grouping, and its days are pi's (USAGE_DIFF_SEED=${seed})`, () => {
  for (const c of cases) {
    const at = `case ${c.i} (USAGE_DIFF_SEED=${seed})`;
    const path = join(root, `${c.i}.jsonl`);
    writeFileSync(path, c.text);
    const pi = sanitize(SessionManager.open(path).getEntries());
    const whole = piTotals(pi.entries);
    const ledger = new UsageLedger();
    ledger.add(path, c.text);
    for (const by of ["day", "week", "month", "model", "project", "session"])
      assert.deepEqual(ours(ledger.summary({ by, timeZone: "UTC" }).total), whole, `${by} ${at}`);
    const zone = ZONES[c.i % ZONES.length];
    // Each day's row: pi's totals of the paid entries whose timestamp falls on it in `zone`.
    const paid = pi.entries.filter(
      (e) =>
        paidTypes.has(e.type) ||
        (e.type === "message" &&
          (e.message?.role === "assistant" || (e.message?.role === "toolResult" && e.message.usage))),
    );
    const days = new Map();
    for (const e of paid) {
      if (e.type !== "usage" && e.type !== "message" && !e.usage) continue;
      const day = dayOf(e.timestamp, zone);
      if (!days.has(day)) days.set(day, createUsageTotals());
      addUsageToTotals(days.get(day), e.type === "message" ? e.message.usage : e.usage);
    }
    const got = ledger.summary({ by: "day", timeZone: zone }).rows.map((r) => [r.key, r.usage.cost]);
    const want = [...days].map(([k, t]) => [k, t.cost]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(got, want, `${zone} ${at}`);
    ledger.free();
  }
});

/** A session of assistant replies, one a `[timestamp, usage]`. */
function replies(...list) {
  const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
  const lines = list.map(([timestamp, usage], i) => ({
    type: "message",
    id: `r${i}`,
    parentId: i > 0 ? `r${i - 1}` : null,
    timestamp,
    message: { role: "assistant", content: [], provider: "p", model: "m", usage },
  }));
  return `${[header, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`;
}
const paid = (n, cost) => ({
  input: n,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: n + 1,
  cost: { total: cost },
});

test("a sum that overflows is Infinity, as pi's, not null", () => {
  const text = replies(
    ["2026-01-05T10:00:00.000Z", paid(1e308, 1e308)],
    ["2026-01-05T11:00:00.000Z", paid(1e308, 1e308)],
  );
  const path = join(root, "overflow.jsonl");
  writeFileSync(path, text);
  const pi = piTotals(SessionManager.open(path).getEntries());
  assert.equal(pi.cost, Number.POSITIVE_INFINITY);
  const report = sessionUsage(text);
  assert.deepEqual(ours(report.total), pi);
  assert.deepEqual(ours(report.path), pi);
  const ledger = new UsageLedger();
  ledger.add(path, text);
  const summary = ledger.summary({ timeZone: "UTC" });
  assert.deepEqual(ours(summary.total), pi);
  assert.deepEqual(ours(summary.rows[0].usage), pi);
  ledger.free();
});

test("days past the year 9999 are in order and in a range that starts before them", () => {
  // JS dates reach the year 275760; `new Date` reads `+010000-…` as the year 10000.
  const text = replies(["+010000-01-01T00:00:00.000Z", paid(1, 1)], ["2026-02-01T00:00:00.000Z", paid(1, 2)]);
  const ledger = new UsageLedger();
  ledger.add("/a.jsonl", text);
  const rows = (options) => ledger.summary({ timeZone: "UTC", ...options }).rows.map((r) => [r.key, r.usage.cost]);
  const later = [dayOf("+010000-01-01T00:00:00.000Z", "UTC"), 1];
  assert.deepEqual(later, ["10000-01-01", 1]);
  assert.deepEqual(rows({}), [["2026-02-01", 2], later], "dates in order");
  assert.deepEqual(rows({ since: "2026-01-01" }), [["2026-02-01", 2], later]);
  assert.deepEqual(rows({ until: "9999-12-31" }), [["2026-02-01", 2]]);
  assert.deepEqual(rows({ by: "month", since: "2026-02-01" }), [
    ["2026-02", 2],
    ["10000-01", 1],
  ]);
  assert.equal(ledger.summary({ since: "2026-01-01", timeZone: "UTC" }).total.cost, 3);
  ledger.free();
});

test("the ledger's total adds the requests in file order, as pi does, not its rows", () => {
  // $0.7 and $0.2 on the 5th, $0.1 on the 6th: pi adds 0.7 + 0.1 + 0.2 = 1; the rows by day,
  // added, make 0.9 + 0.1 = 0.9999999999999999.
  const text = replies(
    ["2026-01-05T10:00:00.000Z", paid(1, 0.7)],
    ["2026-01-06T10:00:00.000Z", paid(1, 0.1)],
    ["2026-01-05T11:00:00.000Z", paid(1, 0.2)],
  );
  const path = join(root, "order.jsonl");
  writeFileSync(path, text);
  const pi = piTotals(SessionManager.open(path).getEntries());
  assert.equal(pi.cost, 1);
  const ledger = new UsageLedger();
  ledger.add(path, text);
  for (const by of ["day", "week", "month", "model", "project", "session"])
    assert.deepEqual(ours(ledger.summary({ by, timeZone: "UTC" }).total), pi, by);
  ledger.free();
});
