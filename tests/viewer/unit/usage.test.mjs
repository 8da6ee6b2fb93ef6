// Unit tests of the Usage view's DOM-free parts: www/usage/model.js (range
// presets, bar keys, the chart's geometry) with hand-written views, and the
// package's cli/serve/usage-data.js (what `serve` and the page show) on a
// folder pi 1.6.0's SessionManager writes, against the package's own
// UsageLedger and sessionUsage. USAGE_SEED replays the folder.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import * as lib from "session-tree";
import { autoUnit, daysBetween, FolderUsage } from "../../../pkg/cli/serve/usage-data.js";
import { leafCosts, summaryCostLine, usageView } from "../../../www/composition.js";
import {
  barKey,
  barKeys,
  barLabel,
  formatCost,
  formatTokens,
  isDate,
  layoutChart,
  modelSlots,
  niceStep,
  rangeOf,
  today,
} from "../../../www/usage/model.js";
import { envSeed } from "../../shared/rng.mjs";
import { generateUsageFolder } from "../../shared/usage-folder.mjs";

const totals = (cost) => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost,
  records: 1,
  incomplete: 0,
});
const row = (key, models) => ({
  key,
  usage: totals(models.reduce((a, [, c]) => a + c, 0)),
  models: models.map(([model, cost]) => ({ model, usage: totals(cost) })),
});

test("presets end today and count both ends; custom dates are taken as given, either way round", () => {
  assert.deepEqual(rangeOf("all", "2026-03-10"), { since: undefined, until: undefined });
  assert.deepEqual(rangeOf("7", "2026-03-10"), { since: "2026-03-04", until: "2026-03-10" });
  assert.deepEqual(rangeOf("30", "2026-03-01"), { since: "2026-01-31", until: "2026-03-01" });
  assert.deepEqual(rangeOf("365", "2024-12-31"), { since: "2024-01-02", until: "2024-12-31" });
  assert.deepEqual(rangeOf("custom", "x", { since: "2026-02-01", until: "2026-01-01" }), {
    since: "2026-01-01",
    until: "2026-02-01",
  });
  assert.deepEqual(rangeOf("custom", "x", { since: "2026-02-30", until: "" }), { since: undefined, until: undefined });
  assert.equal(isDate("2024-02-29"), true);
  assert.equal(isDate("2023-02-29"), false);
  // 23:30 UTC is already the next day in Paris (UTC+1 in winter).
  const at = Date.UTC(2026, 0, 5, 23, 30);
  assert.equal(today("UTC", at), "2026-01-05");
  assert.equal(today("Europe/Paris", at), "2026-01-06");
  assert.equal(today("America/Los_Angeles", at), "2026-01-05");
});

test("bars: days, weeks from their Monday, months; empty ones included", () => {
  assert.equal(barKey("week", "2026-01-04"), "2025-12-29"); // a Sunday: its week began the Monday before
  assert.equal(barKey("week", "2026-01-05"), "2026-01-05"); // a Monday
  assert.equal(barKey("month", "2026-01-31"), "2026-01");
  assert.deepEqual(barKeys("day", "2024-02-27", "2024-03-01"), [
    "2024-02-27",
    "2024-02-28",
    "2024-02-29",
    "2024-03-01",
  ]);
  assert.deepEqual(barKeys("week", "2026-01-01", "2026-01-13"), ["2025-12-29", "2026-01-05", "2026-01-12"]);
  assert.deepEqual(barKeys("month", "2025-11-20", "2026-02-01"), ["2025-11", "2025-12", "2026-01", "2026-02"]);
  assert.deepEqual(barKeys("day", "2026-01-02", "2026-01-01"), []);
  assert.deepEqual(barKeys("day", null, "2026-01-01"), []);
  assert.equal(barLabel("day", "2026-01-05"), "Jan 5");
  assert.equal(barLabel("week", "2026-12-28", true), "Dec 28, 2026");
  assert.equal(barLabel("month", "2026-02"), "Feb 2026");
  assert.equal(daysBetween("2026-01-01", "2026-01-01"), 1);
  assert.equal(daysBetween("2024-01-01", "2026-09-26"), 1000);
  assert.equal(autoUnit(92), "day");
  assert.equal(autoUnit(93), "week");
  assert.equal(autoUnit(1000), "week");
  assert.equal(autoUnit(1200), "month");
});

test("figures read as money and tokens; ticks are 1, 2 or 5 times a power of ten", () => {
  assert.equal(formatCost(1234.5), "$1,234.50");
  assert.equal(formatCost(0.0042), "$0.0042");
  assert.equal(formatCost(1234567.891), "$1,234,567.89");
  assert.equal(formatCost(0), "$0.00");
  assert.equal(formatCost(-3), "-$3.00");
  assert.equal(formatTokens(950), "950");
  assert.equal(formatTokens(12_345), "12.3k");
  assert.equal(formatTokens(4_560_000), "4.56M");
  assert.equal(niceStep(10), 5);
  assert.equal(niceStep(0.37), 0.1);
  assert.equal(niceStep(7300), 2000);
  assert.equal(niceStep(0), 1);
});

test("models get colour slots in the package's order; past the last slot they share it", () => {
  const models = ["a", "b", "c", "d"].map((model, i) => ({ model, usage: totals(10 - i) }));
  const three = modelSlots(models, 3);
  assert.deepEqual(
    three.legend.map((l) => [l.label, l.slot, l.cost]),
    [
      ["a", 0, 10],
      ["b", 1, 9],
      ["2 other models", 2, null],
    ],
  );
  assert.deepEqual(three.legend[2].models, ["c", "d"]);
  assert.equal(three.slotOf("d"), 2);
  const all = modelSlots(models, 4);
  assert.deepEqual(
    all.legend.map((l) => l.slot),
    [0, 1, 2, 3],
  );
});

test("the chart: a bar per day with empty days, stacked in legend order, heights in proportion", () => {
  const view = {
    unit: "day",
    since: null,
    until: null,
    first: "2026-01-01",
    last: "2026-01-04",
    rows: [
      row("2026-01-01", [
        ["m/b", 3],
        ["m/a", 1],
      ]),
      row("2026-01-04", [["m/a", 8]]),
      row("(no date)", [["m/a", 2]]),
    ],
    models: [
      { model: "m/a", usage: totals(11) },
      { model: "m/b", usage: totals(3) },
    ],
  };
  const c = layoutChart(view, { width: 476, height: 240 });
  assert.deepEqual(
    c.bars.map((b) => [b.key, b.cost]),
    [
      ["2026-01-01", 4],
      ["2026-01-02", 0],
      ["2026-01-03", 0],
      ["2026-01-04", 8],
    ],
  );
  assert.equal(c.undated, 2);
  assert.equal(c.width, 476);
  const [first, , , last] = c.bars;
  // m/a (slot 0, the folder's dearest) at the bottom of the first day, m/b on top of it.
  assert.deepEqual(
    first.segments.map((s) => [s.model, s.slot]),
    [
      ["m/a", 0],
      ["m/b", 1],
    ],
  );
  const bottom = c.plot.y + c.plot.h;
  assert.equal(first.segments[0].y + first.segments[0].h, bottom);
  assert.ok(Math.abs(first.segments[1].y + first.segments[1].h - first.segments[0].y) < 1e-9);
  // The axis tops at $8 (ticks of $2): $8 is the whole plot, $4 half of it.
  assert.deepEqual(
    c.yTicks.map((t) => t.value),
    [0, 2, 4, 6, 8],
  );
  assert.ok(Math.abs(last.segments[0].h - c.plot.h) < 1e-9);
  assert.ok(Math.abs(first.segments[0].h + first.segments[1].h - 0.5 * c.plot.h) < 1e-9);
  assert.ok(Math.abs(first.segments[0].h - 0.125 * c.plot.h) < 1e-9);
  // Bars side by side, inside the plot, none overlapping.
  for (let i = 1; i < c.bars.length; i++) assert.ok(c.bars[i].x >= c.bars[i - 1].x + c.bars[i - 1].w);
  assert.ok(c.bars.at(-1).x + c.bars.at(-1).w <= c.plot.x + c.plot.w + 1e-9);
  assert.equal(c.xTicks[0].label, "Jan 1, 2026");
});

test("1,000 days stay readable: bars a few pixels wide at least, labels apart, by week or by day", () => {
  const days = barKeys("day", "2024-01-01", "2026-09-26");
  assert.equal(days.length, 1000);
  const rows = days.filter((_, i) => i % 3 === 0).map((d, i) => row(d, [["m/a", 1 + (i % 5)]]));
  const models = [{ model: "m/a", usage: totals(1) }];
  const base = { since: null, until: null, first: days[0], last: days.at(-1), models };
  for (const [unit, n] of [
    ["day", 1000],
    ["week", 143],
    ["month", 33],
  ]) {
    const c = layoutChart({ ...base, unit, rows: unit === "day" ? rows : [] }, { width: 900 });
    assert.equal(c.bars.length, n, unit);
    assert.ok(
      c.bars.every((b) => b.w >= 2.4),
      `${unit}: every bar at least 2.4 px wide`,
    );
    for (let i = 1; i < c.xTicks.length; i++)
      assert.ok(c.xTicks[i].x - c.xTicks[i - 1].x >= 84, `${unit}: labels apart`);
    // A thousand days fit 900 px as weeks; as days the chart grows and scrolls.
    if (unit !== "day") assert.equal(c.width, 900);
    else assert.ok(c.width >= 3000);
  }
});

test("usage-data: the view's figures are the ledger's, branches listed once per lineage", () => {
  const seed = envSeed("USAGE_SEED");
  const root = mkdtempSync(join(tmpdir(), "st-usage-data-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const { files } = generateUsageFolder(root, seed, { sessions: 6 });
  const data = new FolderUsage(lib);
  const ledger = new lib.UsageLedger();
  for (const f of files) {
    const bytes = readFileSync(f.path);
    data.add(f.path, relative(root, f.path), bytes);
    ledger.add(f.path, bytes);
  }
  assert.deepEqual(data.skipped, []);
  const view = data.view({ timeZone: "UTC", top: 100 });
  const byDay = ledger.summary({ by: "day", timeZone: "UTC" });
  assert.deepEqual(view.total, byDay.total, `USAGE_SEED=${seed}`);
  assert.deepEqual(view.rows, byDay.rows);
  assert.equal(view.unit, autoUnit(daysBetween(view.first, view.last)));
  assert.equal(view.first, byDay.rows[0].key);
  const bySession = ledger.summary({ by: "session", timeZone: "UTC" });
  assert.deepEqual(
    view.sessions.map((s) => [s.path, s.usage]),
    bySession.rows.map((r) => [relative(root, r.key), r.usage]),
  );
  // Each leaf of a forking session once, with its own cost as sessionUsage gives it, dearest
  // first. The generator writes each source before its copies, and copies repeat its ids:
  // the first file that has a leaf is the one nearest its lineage's root.
  const want = new Map();
  for (const f of files) {
    const report = lib.sessionUsage(readFileSync(f.path));
    if (report.leaves.length < 2) continue;
    for (const l of report.leaves) if (l.own.records > 0 && !want.has(l.entryId)) want.set(l.entryId, l.own);
  }
  assert.deepEqual(new Map(view.branches.map((b) => [b.leafId, b.own])), want, `USAGE_SEED=${seed}`);
  for (let i = 1; i < view.branches.length; i++) assert.ok(view.branches[i - 1].own.cost >= view.branches[i].own.cost);
  // A range: the ledger's rows for it.
  const ranged = data.view({ timeZone: "UTC", since: view.first, until: view.first, bars: "day" });
  assert.deepEqual(
    ranged.total,
    ledger.summary({ by: "day", timeZone: "UTC", since: view.first, until: view.first }).total,
  );
  assert.equal(ranged.rows.length, 1);
  data.free();
  ledger.free();
});

test("in one session: each leaf's branch cost, and what summaries cost, from Session.usage", () => {
  const u = (cost) => ({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: cost } });
  const at = (n) => `2026-01-05T10:00:0${n}.000Z`;
  const lines = [
    { type: "session", version: 3, id: "S", timestamp: at(0), cwd: "/p" },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: at(1),
      message: { role: "user", content: "q", timestamp: 1 },
    },
    {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: at(2),
      message: { role: "assistant", content: [], provider: "p", model: "m", usage: u(1), timestamp: 2 },
    },
    {
      type: "message",
      id: "a2",
      parentId: "a1",
      timestamp: at(3),
      message: { role: "assistant", content: [], provider: "p", model: "m", usage: u(2), timestamp: 3 },
    },
    { type: "branch_summary", id: "b1", parentId: "a1", timestamp: at(4), fromId: "a2", summary: "s", usage: u(4) },
    {
      type: "compaction",
      id: "c1",
      parentId: "b1",
      timestamp: at(5),
      summary: "s",
      firstKeptEntryId: "b1",
      tokensBefore: 9,
      usage: u(8),
    },
  ];
  const session = lib.Session.open(lines.map((l) => JSON.stringify(l)).join("\n"));
  const report = session.usage(null, { records: false });
  const ids = ["u1", "a1", "a2", "b1", "c1"];
  // Two leaves below the fork at a1: a2 ($2 of its own, $3 from the root) and c1 ($4 + $8, $13).
  assert.deepEqual(leafCosts(ids, report), [null, null, { own: 2, path: 3 }, null, { own: 12, path: 13 }]);
  const linear = lib.Session.open(
    lines
      .slice(0, 4)
      .map((l) => JSON.stringify(l))
      .join("\n"),
  );
  assert.deepEqual(leafCosts(ids.slice(0, 3), linear.usage(null, { records: false })), [null, null, null]);
  // Branches that end in usage entries (never a row, as in pi's /tree): their costs go on the
  // entry above them. a2 ends in a $16 usage entry, and two more ($32, $64) hang below c1.
  const ended = [
    ...lines,
    { type: "usage", id: "g1", parentId: "a2", timestamp: at(6), kind: "k", provider: "p", model: "m", usage: u(16) },
    { type: "usage", id: "g2", parentId: "c1", timestamp: at(7), kind: "k", provider: "p", model: "m", usage: u(32) },
    { type: "usage", id: "g3", parentId: "c1", timestamp: at(8), kind: "k", provider: "p", model: "m", usage: u(64) },
  ];
  const withUsage = lib.Session.open(ended.map((l) => JSON.stringify(l)).join("\n"));
  const endedIds = [...ids, "g1", "g2", "g3"];
  const types = ended.slice(1).map((l) => l.type);
  // nodes: u1 a1 a2 b1 c1 g1 g2 g3; parents by node index
  const parent = [-1, 0, 1, 1, 3, 2, 4, 4];
  assert.deepEqual(leafCosts(endedIds, withUsage.usage(null, { records: false }), types, parent), [
    null,
    null,
    // a2's branch: a2 ($2) and g1 ($16) below the fork at a1; $1 more from the root
    { own: 18, path: 19 },
    null,
    // c1's two branches forked at c1: g2 ($32) and g3 ($64) alone; from the root $1 + $4 + $8 + their own
    { own: 96, path: 77 },
    null,
    null,
    null,
  ]);
  withUsage.free?.();
  assert.equal(
    summaryCostLine(usageView(report, "total")),
    "Summaries cost 1 compaction $8.0000, 1 branch summary $4.0000, of $15.0000 in all.",
  );
  assert.equal(summaryCostLine(usageView(session.usage("a2", { records: false }), "path")), null);
  session.free?.();
  linear.free?.();
});
