// Side-by-side benchmark: session-tree (the built package, ../../pkg) against
// pi 1.6.0's own session code (tests/shared/pi.mjs), in one Node process, on
// the same bytes.
//
//   node --expose-gc bench/bench.mjs      full run, from tests/ (make bench)
//   BENCH_QUICK=1 node bench/bench.mjs    fewer repetitions, a smoke run
//   BENCH_ONLY=branched,tree node ...     only these workloads and/or operations
//   node bench/bench.mjs --help           usage, and the versions of both sides
//
// See README.md for what is measured and how.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { dirname, join } from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import zlib from "node:zlib";
import * as ours from "session-tree";
import {
  installedVersion,
  migrateSessionEntries,
  parseSessionEntries,
  buildSessionContext as piBuildSessionContext,
  SessionManager,
} from "../shared/pi.mjs";
import { listRow } from "./list.mjs";
import { usageRow } from "./usage.mjs";
import { makeWorkload, WORKLOADS } from "./workloads.mjs";

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("session-tree/package.json"));
// The nodejs glue behind the package's Node entry (same module instance: the
// entry loads it through require too), for the functions the entry does not
// re-export: wasmMemoryBytes() and, once they exist, countEntries/validateSession.
const glue = require(join(pkgDir, "node", "session_tree.js"));
const piVersion = installedVersion();

// `--help`: usage, and the versions loaded (a quick check that both sides load).
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  const ourVersion = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version;
  console.log(`usage (from tests/): node --expose-gc bench/bench.mjs
  BENCH_QUICK=1     fewer repetitions, a smoke run
  BENCH_ONLY=a,b    only these workloads (${Object.keys(WORKLOADS).join(", ")}) and/or operations
loaded: session-tree ${ourVersion} from ${pkgDir}, pi ${piVersion}`);
  process.exit(0);
}

const QUICK = process.env.BENCH_QUICK === "1";
const WARMUP = QUICK ? 1 : 3; // besides the checked run, which also warms up
const MIN_RUNS = QUICK ? 3 : 7; // alternating pairs: pi, ours, pi, ours, ...
const MAX_RUNS = QUICK ? 3 : 21;
const TARGET_MS = 2500; // more runs (up to MAX_RUNS) while a pair costs little

// global.gc between runs: from --expose-gc, or switched on at run time (so a
// plain `node bench.mjs` collects garbage too)
function findGc() {
  if (typeof globalThis.gc === "function") return { gc: globalThis.gc, how: "--expose-gc" };
  try {
    v8.setFlagsFromString("--expose-gc");
    const fn = vm.runInNewContext("gc");
    if (typeof fn === "function") return { gc: fn, how: "v8.setFlagsFromString" };
  } catch {}
  return { gc: () => {}, how: null };
}
const { gc, how: gcHow } = findGc();

// ---------------------------------------------------------------------------
// The operations, as pi does them and as we do them. Both start from the same
// Buffer; pi decodes it as readFileSync(path, "utf8") does.

// pi's v1 migration draws 8-hex-digit ids from randomUUID() and checks them
// against a set it never fills, so in a 20,000-entry file two entries share an
// id about once in 20 migrations (n²/2 / 2³²); buildSessionContext and getTree
// then loop forever. On a v1 file the pi side therefore checks the ids and
// redoes parse + migrate after a collision (the check is timed with pi: a few
// ms of several hundred; the redo happens in the rare run that collides, and is
// counted in the report).
let piIdCollisions = 0;
function piEntries(buf) {
  for (;;) {
    const entries = parseSessionEntries(buf.toString("utf8"));
    const header = entries.find((e) => e.type === "session");
    const fromV1 = (header?.version ?? 1) < 2;
    migrateSessionEntries(entries);
    if (!fromV1 || idsUnique(entries)) return entries;
    piIdCollisions++;
  }
}

function idsUnique(entries) {
  const ids = new Set();
  for (const e of entries) {
    if (e.type === "session") continue;
    if (ids.has(e.id)) return false;
    ids.add(e.id);
  }
  return true;
}

const OPS = {
  parse: {
    pi: (buf) => parseSessionEntries(buf.toString("utf8")),
    ours: (buf) => ours.parseSession(buf),
  },
  migrate: {
    // pi's SessionManager._rewriteFile after migrating on open
    pi: (buf) =>
      `${piEntries(buf)
        .map((e) => JSON.stringify(e))
        .join("\n")}\n`,
    // bytes in, bytes out: the JSONL as UTF-8, ready to write back
    ours: (buf) => ours.migrate(buf),
  },
  context: {
    pi: (buf) => piBuildSessionContext(piEntries(buf)),
    ours: (buf) => ours.buildSessionContext(buf),
  },
  tree: {
    pi: (buf) => piTree(buf),
    ours: (buf) => ours.getTree(buf),
  },
  // the tree, then every node's `entry` read once (ours parses an entry when it is first read)
  "tree+read": {
    pi: (buf) => readEveryEntry(piTree(buf)),
    ours: (buf) => readEveryEntry(ours.getTree(buf)),
  },
  scan: {
    pi: null, // pi has no such pass
    ours: null, // set below if the glue has one
  },
};

function piTree(buf) {
  const sm = SessionManager.inMemory();
  sm.fileEntries = piEntries(buf);
  sm._buildIndex();
  return sm.getTree();
}

/** Walks the tree (iteratively: chains run thousands deep) and reads each node's entry. */
function readEveryEntry(roots) {
  const stack = [...roots];
  let n = 0;
  while (stack.length) {
    const node = stack.pop();
    if (node.entry.type) n++;
    for (const c of node.children) stack.push(c);
  }
  sink = (sink + n) | 0;
  return roots;
}

const SCAN_NAMES = ["countEntries", "validateSession"];
const scanName = SCAN_NAMES.find((n) => typeof glue[n] === "function");
if (scanName) OPS.scan.ours = (buf) => glue[scanName](buf);

// Targets: the minimum ratio (pi ms / our ms), or for scan the minimum MB/s.
function targetFor(op, workload) {
  switch (op) {
    case "parse":
      return 0.9;
    case "migrate":
      return 8;
    case "tree":
      return 1.5;
    case "tree+read":
      return 1.2;
    case "context":
      return workload === "linear" ? 1.2 : workload === "v1" ? null : 3;
    default:
      return null;
  }
}
const SCAN_TARGET_MBS = 1000;

// ---------------------------------------------------------------------------
// Result equality: JSON.stringify of both results, compared piece by piece
// (entries, lines, tree nodes in preorder; a deep tree is walked iteratively,
// JSON.stringify itself would overflow the stack). For v1, where migration
// invents random ids, each 8-hex-digit JSON string is replaced by the rank of
// its first appearance (in that side's output, in output order).

function idMapper() {
  const ranks = new Map();
  return (s) =>
    s.replace(/"([0-9a-f]{8})"/g, (_, id) => {
      let r = ranks.get(id);
      if (r === undefined) {
        r = ranks.size;
        ranks.set(id, r);
      }
      return `"#${r}"`;
    });
}

function* pieces(op, result) {
  if (op === "parse") {
    if (!Array.isArray(result)) throw new Error(`parse result is not an array: ${typeof result}`);
    yield `length ${result.length}`;
    for (const e of result) yield JSON.stringify(e);
  } else if (op === "migrate") {
    // Our bytes are compared as the text they hold (decoded outside the timing).
    if (result instanceof Uint8Array) result = new TextDecoder("utf-8", { ignoreBOM: true }).decode(result);
    if (typeof result !== "string") throw new Error(`migrate result is not text: ${typeof result}`);
    let from = 0;
    for (;;) {
      const nl = result.indexOf("\n", from);
      if (nl === -1) {
        yield `tail ${JSON.stringify(result.slice(from))}`;
        return;
      }
      yield result.slice(from, nl);
      from = nl + 1;
    }
  } else if (op === "context") {
    const { messages, ...rest } = result;
    yield `keys ${JSON.stringify(Object.keys(result))} ${JSON.stringify(rest)}`;
    yield `messages ${messages.length}`;
    for (const m of messages) yield JSON.stringify(m);
  } else if (op === "tree" || op === "tree+read") {
    // preorder; each node: its keys (as JSON.stringify would write them), its
    // fields but children, and its child count
    yield `roots ${result.length}`;
    const stack = [];
    for (let i = result.length - 1; i >= 0; i--) stack.push(result[i]);
    while (stack.length) {
      const node = stack.pop();
      const keys = Object.keys(node).filter((k) => node[k] !== undefined);
      yield `${keys.join(",")} ${JSON.stringify({ ...node, children: undefined })} ${node.children.length}`;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
    }
  }
}

function compare(op, workload, piResult, ourResult) {
  const mapPi = workload === "v1" ? idMapper() : (s) => s;
  const mapOurs = workload === "v1" ? idMapper() : (s) => s;
  const a = pieces(op, piResult);
  const b = pieces(op, ourResult);
  for (let i = 0; ; i++) {
    const x = a.next();
    const y = b.next();
    if (x.done && y.done) return null;
    const xs = x.done ? "<end>" : mapPi(x.value);
    const ys = y.done ? "<end>" : mapOurs(y.value);
    if (xs !== ys) {
      let at = 0;
      while (at < xs.length && xs[at] === ys[at]) at++;
      const around = (s) => JSON.stringify(s.slice(Math.max(0, at - 60), at + 60));
      return `piece ${i}, char ${at}: pi ${around(xs)} vs ours ${around(ys)}`;
    }
  }
}

/**
 * Runs both sides once and compares the results; sets row.same (and row.note
 * if a side threw) and returns a mismatch line or null. A function of its
 * own so that the results die with its frame: kept alive by the top-level
 * loop's registers, a few hundred MB of results would make every garbage
 * collection during the timed runs mark them again.
 */
function check(op, wname, seed, pi, ourFn, buf, row) {
  let piResult, ourResult;
  try {
    piResult = pi(buf);
  } catch (err) {
    row.note = `pi threw: ${err.message}`;
  }
  try {
    ourResult = ourFn(buf);
  } catch (err) {
    row.note = `ours threw: ${err.message}`;
  }
  if (row.note) {
    row.same = false;
    return `${op} / ${wname}: ${row.note}`;
  }
  try {
    const diff = compare(op, wname, piResult, ourResult);
    row.same = diff === null;
    return diff ? `${op} / ${wname} (seed 0x${seed.toString(16)}): ${diff}` : null;
  } catch (err) {
    row.same = false;
    return `${op} / ${wname}: comparison failed: ${err.message}`;
  }
}

// ---------------------------------------------------------------------------
// Timing.

let sink = 0;
function consume(r) {
  // (a byte result by its length: Object.keys of a Uint8Array lists every index)
  sink =
    (sink +
      (typeof r === "string" || Array.isArray(r) || ArrayBuffer.isView(r)
        ? r.length
        : r && typeof r === "object"
          ? Object.keys(r).length
          : Number(r) || 0)) |
    0;
}

function timeOnce(fn, buf) {
  gc();
  const t0 = performance.now();
  const r = fn(buf);
  const t1 = performance.now();
  consume(r);
  return t1 - t0;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Warm-up, then alternating runs; returns medians in ms (null for a missing side). */
function measure(piFn, ourFn, buf) {
  // WARMUP rounds, or fewer once a second is spent (the big workloads)
  const warm = performance.now();
  for (let i = 0; i < WARMUP && (i === 0 || performance.now() - warm < 1000); i++) {
    if (piFn) timeOnce(piFn, buf);
    if (ourFn) timeOnce(ourFn, buf);
  }
  const piT = [];
  const ourT = [];
  const start = performance.now();
  while (
    piT.length + ourT.length === 0 ||
    Math.max(piT.length, ourT.length) < MIN_RUNS ||
    (Math.max(piT.length, ourT.length) < MAX_RUNS && performance.now() - start < TARGET_MS)
  ) {
    if (piFn) piT.push(timeOnce(piFn, buf));
    if (ourFn) ourT.push(timeOnce(ourFn, buf));
  }
  return { pi: piFn ? median(piT) : null, ours: ourFn ? median(ourT) : null, runs: Math.max(piT.length, ourT.length) };
}

// ---------------------------------------------------------------------------
// Main.

const only = (process.env.BENCH_ONLY ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const workloadNames = Object.keys(WORKLOADS);
const opNames = [...Object.keys(OPS), "rebuilds", "list", "usage"];
for (const o of only) {
  if (!workloadNames.includes(o) && !opNames.includes(o)) {
    console.error(
      `BENCH_ONLY: unknown workload or operation "${o}" (workloads: ${workloadNames.join(", ")}; operations: ${opNames.join(", ")})`,
    );
    process.exit(2);
  }
}
const selWorkloads = workloadNames.filter((w) => !only.some((o) => workloadNames.includes(o)) || only.includes(w));
const selOps = opNames.filter((o) => !only.some((x) => opNames.includes(x)) || only.includes(o));

const log = (...a) => console.error(...a); // progress on stderr, the report on stdout
const fmtMs = (ms) => (ms === null ? "—" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const fmtMB = (bytes) => (bytes / 1e6).toFixed(1);

if (!gcHow) log("note: no gc() available: run with node --expose-gc to collect garbage between runs");
log(
  `session-tree bench: ${QUICK ? "quick" : "full"} settings, workloads ${selWorkloads.join(", ")}, operations ${selOps.join(", ")}`,
);

const rows = [];
const mismatches = [];
const memory = []; // { workload, size, bytes }
const tStart = performance.now();

// (the list row brings its own folder: no workload is generated for it alone)
for (const wname of selOps.some((o) => o !== "list" && o !== "usage") ? selWorkloads : []) {
  let t0 = performance.now();
  const w = makeWorkload(wname);
  const buf = w.bytes;
  log(
    `${wname}: ${w.entries} entries, ${fmtMB(buf.length)} MB (seed 0x${w.seed.toString(16)}), generated in ${(performance.now() - t0).toFixed(0)} ms`,
  );
  for (const op of selOps.filter((o) => OPS[o])) {
    t0 = performance.now();
    const { pi, ours: ourFn } = OPS[op];
    const row = {
      op,
      workload: wname,
      size: buf.length,
      pi: null,
      ours: null,
      ratio: null,
      target: targetFor(op, wname),
      same: null,
      note: "",
    };
    rows.push(row);
    if (op === "scan") {
      row.target = SCAN_TARGET_MBS;
      if (!ourFn) {
        row.note = "n/a";
        continue;
      }
      try {
        const m = measure(null, ourFn, buf);
        row.ours = m.ours;
        row.runs = m.runs;
        row.mbs = buf.length / 1e6 / (m.ours / 1000);
      } catch (err) {
        row.note = `ours threw: ${err.message}`;
      }
      log(`  ${op}: ${row.mbs ? `${row.mbs.toFixed(0)} MB/s` : row.note}`);
      continue;
    }
    // correctness first, outside timing (this run also warms both sides up)
    const problem = check(op, wname, w.seed, pi, ourFn, buf, row);
    if (problem) {
      mismatches.push(problem);
      if (row.note) {
        log(`  ${op}: ${row.note}`);
        continue;
      }
    }
    const m = measure(pi, ourFn, buf);
    Object.assign(row, { pi: m.pi, ours: m.ours, runs: m.runs, ratio: m.pi / m.ours });
    log(
      `  ${op}: pi ${fmtMs(m.pi)} ms, ours ${fmtMs(m.ours)} ms, ×${row.ratio.toFixed(2)} (${m.runs} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s)${row.same ? "" : "  RESULTS DIFFER"}`,
    );
  }
  if (typeof glue.wasmMemoryBytes === "function")
    memory.push({ workload: wname, size: buf.length, bytes: glue.wasmMemoryBytes() });
  if (wname === "branched" && selOps.includes("rebuilds")) rows.push(rebuilds(buf));
}

// Issue 14's row: a folder of 1,000 sessions listed (list.mjs).
if (selOps.includes("list")) {
  const row = await listRow({ runs: QUICK ? 3 : 7, gc, log });
  rows.push(row);
  if (row.mismatch) mismatches.push(row.mismatch);
}

// Issue 25's row: a folder of 1,000 sessions' usage summed (usage.mjs).
if (selOps.includes("usage")) {
  const row = await usageRow({ runs: QUICK ? 3 : 7, gc, log });
  rows.push(row);
  if (row.mismatch) mismatches.push(row.mismatch);
}

// Issue 5's row: 1,000 context rebuilds for different leaves on a session that
// is already open (parsed, migrated and indexed once, outside the timing):
// pi's SessionManager with the entries indexed, against our Session.
function rebuilds(buf) {
  const t0 = performance.now();
  const row = {
    op: "1,000 context rebuilds",
    workload: "branched (open)",
    size: buf.length,
    pi: null,
    ours: null,
    ratio: null,
    target: 20,
    same: null,
    note: "",
  };
  const sm = SessionManager.inMemory();
  sm.fileEntries = piEntries(buf);
  sm._buildIndex();
  const session = ours.Session.open(buf);
  // 1,000 leaves spread over the file (a fixed stride: rerunnable).
  const ids = sm.getEntries().map((e) => e.id);
  const leaves = Array.from({ length: 1000 }, (_, i) => ids[Math.floor(((i * 7919) % 1000) * (ids.length / 1000))]);
  const piRun = () => {
    let n = 0;
    for (const leaf of leaves) {
      sm.branch(leaf);
      n += sm.buildSessionContext().messages.length;
    }
    return n;
  };
  const ourRun = () => {
    let n = 0;
    for (const leaf of leaves) n += session.buildSessionContext(leaf).messages.length;
    return n;
  };
  // Correctness first: the same contexts, compared in full for a spread of leaves.
  const diffs = [];
  for (const leaf of leaves.filter((_, i) => i % 50 === 0)) {
    sm.branch(leaf);
    if (JSON.stringify(sm.buildSessionContext()) !== JSON.stringify(session.buildSessionContext(leaf)))
      diffs.push(leaf);
  }
  row.same = diffs.length === 0;
  if (!row.same) mismatches.push(`1,000 context rebuilds: contexts differ at leaves ${diffs.slice(0, 5).join(", ")}`);
  const m = measure(piRun, ourRun, buf);
  Object.assign(row, { pi: m.pi, ours: m.ours, runs: m.runs, ratio: m.pi / m.ours });
  log(
    `  rebuilds: pi ${fmtMs(m.pi)} ms, ours ${fmtMs(m.ours)} ms, ×${row.ratio.toFixed(2)} (${m.runs} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  session.free();
  return row;
}

// ---------------------------------------------------------------------------
// Report (stdout, markdown).

const out = [];
const cpu = os.cpus()[0]?.model ?? "unknown CPU";
out.push(
  `session-tree vs pi ${piVersion} — ${new Date().toISOString()}, Node ${process.version}, ${cpu} (${os.cpus().length} cores), ${QUICK ? "BENCH_QUICK" : "full"} settings${gcHow ? "" : ", no gc between runs"}`,
);
out.push("");
out.push("| operation | workload | size (MB) | pi ms | ours ms | ratio | target | | same result |");
out.push("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |");
let misses = 0;
for (const r of rows) {
  let ratio = "—";
  let target = "—";
  let mark = "";
  if (r.op === "scan") {
    target = `≥ ${r.target} MB/s`;
    if (r.mbs) {
      ratio = `${r.mbs.toFixed(0)} MB/s`;
      mark = r.mbs >= r.target ? "✅" : "❌";
    } else ratio = r.note || "n/a";
  } else if (r.ratio !== null) {
    ratio = `×${r.ratio.toFixed(2)}`;
    if (r.target !== null) {
      target = `×${r.target}`;
      mark = r.ratio >= r.target ? "✅" : "❌";
    }
  } else if (r.note) ratio = r.note;
  if (mark === "❌") misses++;
  const same = r.same === null ? "—" : r.same ? "yes" : "**MISMATCH**";
  out.push(
    `| ${r.op} | ${r.workload} | ${fmtMB(r.size)} | ${fmtMs(r.pi)} | ${fmtMs(r.ours)} | ${ratio} | ${target} | ${mark} | ${same} |`,
  );
}
out.push("");
out.push(
  `ratio = pi median / our median over ≥ ${MIN_RUNS} alternating runs after warm-up; pi decodes the Buffer with toString("utf8"), ours takes it as is.`,
);
if (piIdCollisions)
  out.push(
    `pi's v1 migration gave duplicate ids ${piIdCollisions} time(s) (it would then hang); those runs redid parse + migrate.`,
  );
if (!scanName && selOps.includes("scan"))
  out.push(`scan: n/a (the package exports no ${SCAN_NAMES.join(" or ")} yet).`);

if (memory.length) {
  const heaviest = memory.reduce((a, b) => (b.size > a.size ? b : a));
  const factor = heaviest.bytes / heaviest.size;
  out.push("");
  out.push(
    `wasm linear memory after ${heaviest.workload} (the largest input, ${fmtMB(heaviest.size)} MB): ${fmtMB(heaviest.bytes)} MB = ${factor.toFixed(2)}× the input (target ≤ 2×) ${factor <= 2 ? "✅" : "❌"}`,
  );
  if (factor > 2) misses++;
}

const wasmPath = join(pkgDir, "node", "session_tree_bg.wasm");
const wasmBytes = readFileSync(wasmPath);
const gz = zlib.gzipSync(wasmBytes, { level: 9 }).length;
out.push(
  `wasm size: ${(wasmBytes.length / 1024).toFixed(1)} KB, gzipped (level 9) ${(gz / 1024).toFixed(1)} KB (target ≤ 150 KB) ${gz <= 150 * 1024 ? "✅" : "❌"}`,
);
if (gz > 150 * 1024) misses++;
out.push(
  `${misses === 0 ? "all targets met" : `${misses} target(s) missed`}; total bench time ${((performance.now() - tStart) / 1000).toFixed(0)} s`,
);

if (mismatches.length) {
  out.push("");
  out.push("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
  out.push(`!!! ${mismatches.length} RESULT MISMATCH(ES): these timings compare different answers`);
  for (const m of mismatches) out.push(`!!!   ${m}`);
  out.push("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
  process.exitCode = 1;
}
console.log(out.join("\n"));
if (sink === 0.5) console.log(sink); // keep the results observable
