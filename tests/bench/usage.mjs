// The bench's "usage" row (issue 25): a folder of 1,000 sessions as pi 1.6
// writes them (about 150 MB: assistant messages with usage, usage entries,
// compactions with their summarizer's usage), summed by pi 1.6.0 (each file
// opened with `SessionManager.open` and added up by its own
// `getSessionStats`) and by what `session-tree usage DIR` does before
// printing (`findSessions`, `readUsage`, the ledger's summary by day), reading
// included in the timing.
//
//   BENCH_ONLY=usage node --expose-gc bench/bench.mjs     (from tests/: only this row)

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { findSessions, readUsage } from "../../pkg/files/folder.cjs";
import { piSessionStats, SessionManager } from "../shared/pi.mjs";
import { caseSeed, Rng } from "../shared/rng.mjs";
import { alternate } from "./list.mjs";
import { makePi16Session } from "./workloads.mjs";

export const USAGE_SEED = 0x25ec0575;
export const USAGE_FILES = 1000;
export const USAGE_TARGET = 4;

/** Writes the folder: sessions of 60 to 320 entries, named as pi names its files. */
export function makeUsageFolder(root = os.tmpdir()) {
  const dir = mkdtempSync(join(root, "session-tree-bench-usage-"));
  const rng = new Rng(USAGE_SEED);
  let bytes = 0;
  for (let i = 0; i < USAGE_FILES; i++) {
    const data = makePi16Session(caseSeed(USAGE_SEED, i), rng.range(60, 320));
    const stamp = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString().replace(/[:.]/g, "-");
    writeFileSync(join(dir, `${stamp}_${i.toString(16).padStart(8, "0")}.jsonl`), data);
    bytes += data.length;
  }
  return { dir, bytes, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** pi's side: every file opened by its SessionManager and counted by its getSessionStats. */
export function piUsage(dir) {
  const total = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, cost: 0 };
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".jsonl")) continue;
    const stats = piSessionStats(SessionManager.open(join(dir, name)));
    for (const k of ["input", "output", "cacheRead", "cacheWrite", "total"]) total[k] += stats.tokens[k];
    total.cost += stats.cost;
  }
  return total;
}

/** Our side: what `session-tree usage DIR` does before printing. */
export async function ourUsage(dir) {
  const { ledger } = await readUsage(await findSessions(dir, { recursive: true }));
  const summary = ledger.summary({ by: "day", timeZone: "UTC" });
  ledger.free();
  return summary.total;
}

/** null, or how the two totals differ (tokens exactly, cost to 1e-9 of itself). */
export function compareUsage(pi, ours) {
  const mine = [ours.input, ours.output, ours.cacheRead, ours.cacheWrite, ours.totalTokens];
  const theirs = [pi.input, pi.output, pi.cacheRead, pi.cacheWrite, pi.total];
  if (JSON.stringify(mine) !== JSON.stringify(theirs)) return `tokens: pi ${theirs} vs ours ${mine}`;
  if (Math.abs(pi.cost - ours.cost) > 1e-9 * Math.max(1, pi.cost)) return `cost: pi ${pi.cost} vs ours ${ours.cost}`;
  return null;
}

/** The row, in bench.mjs's format (as list.mjs's). */
export async function usageRow({ runs = 7, gc = () => {}, log = () => {} } = {}) {
  const t0 = performance.now();
  const folder = makeUsageFolder();
  const row = {
    op: "usage",
    workload: `${USAGE_FILES.toLocaleString("en")} sessions`,
    size: folder.bytes,
    pi: null,
    ours: null,
    ratio: null,
    target: USAGE_TARGET,
    same: null,
    note: "",
  };
  try {
    log(
      `usage: ${USAGE_FILES} files, ${(folder.bytes / 1e6).toFixed(1)} MB (seed 0x${USAGE_SEED.toString(16)}), written in ${(performance.now() - t0).toFixed(0)} ms`,
    );
    const diff = compareUsage(piUsage(folder.dir), await ourUsage(folder.dir));
    row.same = diff === null;
    if (diff) row.mismatch = `usage / ${row.workload} (seed 0x${USAGE_SEED.toString(16)}): ${diff}`;
    Object.assign(row, await alternate(piUsage, ourUsage, folder.dir, { runs, gc }), { runs });
    row.ratio = row.pi / row.ours;
    log(
      `  usage: pi ${row.pi.toFixed(0)} ms, ours ${row.ours.toFixed(0)} ms, ×${row.ratio.toFixed(2)} (${runs} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s)${row.same ? "" : "  RESULTS DIFFER"}`,
    );
  } finally {
    folder.cleanup();
  }
  return row;
}
