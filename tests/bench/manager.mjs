// The bench's rows for session-tree/node's SessionManager against pi 1.6.0's,
// on files in a temporary folder (reading and writing included in the times):
// - open + buildSessionContext of the `branched` workload continued to 100 MB
//   (`branched-100mb`; target ×3);
// - 10,000 appends to a new session, ours with each durability level, pi's
//   as it writes (one appendFileSync per entry; target: "flush" no slower).
// Prints a markdown table on stdout (medians, and each side's fastest and
// slowest run), progress on stderr. Both sides' results are compared first;
// a difference exits 1.
//
//   node --expose-gc bench/manager.mjs        (from tests/; BENCH_QUICK=1: 3 runs)

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { SessionManager } from "session-tree/node";
import { SessionManager as PiManager } from "../shared/pi.mjs";
import { makeWorkload } from "./workloads.mjs";

const QUICK = process.env.BENCH_QUICK === "1";
const log = (text) => process.stderr.write(`${text}\n`);
const gc = globalThis.gc ?? (() => {});
const root = mkdtempSync(join(os.tmpdir(), "session-tree-bench-manager-"));

/** `fn`'s milliseconds over `runs` runs after one warm-up (median, min, max); `setup` runs untimed before each. */
function measure(fn, runs, setup = () => {}) {
  setup();
  fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    setup();
    gc();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)], min: times[0], max: times[runs - 1] };
}
const ms = (t) =>
  t.max === t.min ? t.median.toFixed(0) : `${t.median.toFixed(0)} (${t.min.toFixed(0)}–${t.max.toFixed(0)})`;

const rows = [];
let mismatch = false;

// --- open + context ---------------------------------------------------------------
{
  const workload = makeWorkload("branched-100mb");
  const file = join(root, "branched.jsonl");
  writeFileSync(file, workload.bytes);
  log(`branched: ${(workload.bytes.length / 1e6).toFixed(1)} MB, ${workload.entries} entries`);
  const ours = () => {
    const manager = SessionManager.open(file);
    const context = manager.buildSessionContext();
    manager.close();
    return context;
  };
  const theirs = () => PiManager.open(file).buildSessionContext();
  if (JSON.stringify(ours()) !== JSON.stringify(theirs())) {
    mismatch = true;
    log("open+context: the two contexts differ");
  }
  const runs = QUICK ? 3 : 7;
  const pi = measure(theirs, runs);
  const st = measure(ours, runs);
  rows.push({
    row: "open + buildSessionContext",
    input: `branched, ${(workload.bytes.length / 1e6).toFixed(0)} MB, ${workload.entries.toLocaleString("en")} entries`,
    pi,
    ours: st,
    target: 3,
  });
  log(`open+context: pi ${ms(pi)} ms, ours ${ms(st)} ms`);
}

// --- appends --------------------------------------------------------------------------
{
  const APPENDS = 10_000;
  const message = (i) => ({
    role: i % 2 ? "assistant" : "user",
    content: `message ${i} ${"x".repeat(200)}`,
    timestamp: i,
  });
  let n = 0;
  const folder = () => join(root, `appends-${n++}`);
  const appendAll = (manager) => {
    for (let i = 0; i < APPENDS; i++) manager.appendMessage(message(i));
    return manager;
  };
  const linesOf = (manager) => readFileSync(manager.getSessionFile(), "utf8").split("\n").length - 1;
  const check = appendAll(SessionManager.create("/bench", folder()));
  check.close();
  if (linesOf(check) !== APPENDS + 1 || linesOf(appendAll(PiManager.create("/bench", folder()))) !== APPENDS + 1) {
    mismatch = true;
    log("appends: a file does not hold every line");
  }
  const runs = QUICK ? 3 : 9;
  const pi = measure(() => appendAll(PiManager.create("/bench", folder())), runs);
  rows.push({ row: "10,000 appends", input: "pi (appendFileSync per entry)", pi, ours: null, target: null });
  for (const durability of ["flush", "batch", "fsync"]) {
    const st = measure(
      () => appendAll(SessionManager.create("/bench", folder(), { durability })).close(),
      durability === "fsync" ? 1 : runs,
    );
    rows.push({
      row: "10,000 appends",
      input: `"${durability}"`,
      pi,
      ours: st,
      target: durability === "flush" ? 1 : null,
    });
    log(`appends ${durability}: pi ${ms(pi)} ms, ours ${ms(st)} ms`);
  }
}

rmSync(root, { recursive: true, force: true });

console.log("| row | input | pi 1.6.0 (ms) | session-tree (ms) | ratio | target | met |");
console.log("| --- | --- | ---: | ---: | ---: | ---: | :---: |");
for (const r of rows) {
  const ratio = r.ours === null ? null : r.pi.median / r.ours.median;
  console.log(
    `| ${r.row} | ${r.input} | ${ms(r.pi)} | ${r.ours === null ? "" : ms(r.ours)} | ${ratio === null ? "" : `×${ratio.toFixed(2)}`} | ${r.target === null ? "" : `×${r.target}`} | ${r.target === null ? "" : ratio >= r.target ? "✅" : "❌"} |`,
  );
}
if (mismatch) process.exit(1);
