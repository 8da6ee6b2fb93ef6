// `make bench-large`: sessions of a GB and more (issue 23's targets), measured against
// their targets and, on 1.1 GB, against pi 1.6.0. Generates the workloads into a
// temporary folder (a batch of lines at a time, never one string of a whole file),
// measures each row in a child process of its own (its time and its peak resident
// memory), prints a markdown table on stdout (progress on stderr) and deletes the
// files at the end, on failure and on Ctrl-C too.
//
//   node bench/large.mjs                          from tests/ (make bench-large)
//   BENCH_LARGE_QUICK=1 node bench/large.mjs      a smoke run: every size ×0.01, no viewer
//   BENCH_LARGE_ONLY=node,pi                      only these groups (node, pi, cli, migrate, viewer)
//   BENCH_LARGE_SCALE=0.1                         every generated size times this
//   BENCH_LARGE_DIR=/big/tmp                      where the files go (default: the system's)
//   node bench/large.mjs --help
//
// Exit code 1 when a row failed or our results differ from pi's; missed targets are
// marked ❌ but do not fail the run. See README.md (`make bench-large`).

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statfsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
const require = createRequire(import.meta.url);
const GB = 1e9;
const GiB = 2 ** 30;
const MB = 1e6;

/** The peak resident memory of this process, in bytes (Linux: VmHWM; elsewhere maxRSS). */
function peakRss() {
  try {
    const m = /VmHWM:\s*(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (m) return Number(m[1]) * 1024;
  } catch {}
  return process.resourceUsage().maxRSS * 1024;
}

/** One hash of a context's messages (each hashed as JSON.stringify gives it), and its count. */
function contextDigest(context) {
  const all = createHash("sha256");
  const each = [];
  for (const m of context.messages) {
    const h = createHash("sha256").update(JSON.stringify(m)).digest("hex").slice(0, 16);
    each.push(h);
    all.update(h);
  }
  return { messages: context.messages.length, hash: all.digest("hex").slice(0, 16), each };
}

// ---------------------------------------------------------------------------
// The children: `node large.mjs --child KIND FILE [ARG]` measures one row and prints
// its result as JSON on the last line of stdout.

async function child(kind, file, arg) {
  const report = (r) => console.log(JSON.stringify({ ...r, rss: peakRss(), baseRss: base }));
  // the timed span's wall and CPU time (the process's user + system time: all its threads)
  let cpu0;
  const start = () => {
    cpu0 = process.cpuUsage();
    return performance.now();
  };
  const lap = (t0) => {
    const ms = performance.now() - t0;
    const used = process.cpuUsage(cpu0);
    return { ms, cpuMs: (used.user + used.system) / 1000 };
  };
  const base = peakRss(); // before the session: Node itself and the loaded modules
  if (kind === "pi") {
    const { SessionManager } = await import("../shared/pi.mjs");
    const t0 = start();
    const context = SessionManager.open(file).buildSessionContext();
    const { ms, cpuMs } = lap(t0);
    return report({ ms, cpuMs, ...contextDigest(context) });
  }
  if (kind === "gen") {
    const { writeLargeSession } = await import("./workloads.mjs");
    const spec = JSON.parse(arg);
    const t0 = start();
    const made = writeLargeSession(file, spec);
    return report({ ...lap(t0), ...made });
  }
  const st = await import("session-tree");
  const source = st.fileSource(file);
  try {
    const t0 = start();
    if (kind === "tree") {
      const roots = st.getTree(source);
      const { ms, cpuMs } = lap(t0);
      // the shape, outside the timing: every node counted, iteratively (chains are deep)
      let nodes = 0;
      const stack = [...roots];
      while (stack.length) {
        nodes++;
        for (const c of stack.pop().children) stack.push(c);
      }
      return report({ ms, cpuMs, nodes });
    }
    if (kind === "context") {
      const context = st.buildSessionContext(source);
      const { ms, cpuMs } = lap(t0);
      return report({ ms, cpuMs, ...contextDigest(context) });
    }
    if (kind === "open+context") {
      const session = st.Session.open(source);
      const context = session.buildSessionContext();
      const { ms, cpuMs } = lap(t0);
      session.free();
      return report({ ms, cpuMs, ...contextDigest(context) });
    }
    if (kind === "leaves") {
      const leaves = JSON.parse(arg);
      const session = st.Session.open(source);
      const openMs = performance.now() - t0;
      let messages = 0;
      for (const leaf of leaves) messages += session.buildSessionContext(leaf).messages.length;
      const { ms, cpuMs } = lap(t0);
      // outside the timing: the last leaf's context equals the stateless function's
      const last = leaves.at(-1);
      const same =
        contextDigest(session.buildSessionContext(last)).hash ===
        contextDigest(st.buildSessionContext(source, last)).hash;
      session.free();
      return report({ ms, cpuMs, openMs, leaves: leaves.length, messages, same });
    }
    throw new Error(`unknown child ${kind}`);
  } finally {
    source.close();
  }
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4], process.argv[5]);
  process.exit(0);
}

// ---------------------------------------------------------------------------
// Settings.

const GROUPS = ["node", "pi", "cli", "migrate", "viewer"];
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(`usage (from tests/): node bench/large.mjs     (make bench-large)
  BENCH_LARGE_QUICK=1      smoke run: every size ×0.01, no viewer row
  BENCH_LARGE_ONLY=a,b     only these groups: ${GROUPS.join(", ")}
  BENCH_LARGE_SCALE=x      every generated size times x
  BENCH_LARGE_DIR=path     where the files are generated (default ${os.tmpdir()})`);
  process.exit(0);
}
const QUICK = process.env.BENCH_LARGE_QUICK === "1";
const SCALE = Number(process.env.BENCH_LARGE_SCALE ?? (QUICK ? 0.01 : 1));
if (!(SCALE > 0)) throw new Error(`BENCH_LARGE_SCALE: not a positive number: ${process.env.BENCH_LARGE_SCALE}`);
const only = (process.env.BENCH_LARGE_ONLY ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
for (const g of only) {
  if (!GROUPS.includes(g)) {
    console.error(`BENCH_LARGE_ONLY: unknown group "${g}" (groups: ${GROUPS.join(", ")})`);
    process.exit(2);
  }
}
// The viewer's own test generates its file (always over 1 GiB): not in a quick run unless asked.
const groups = GROUPS.filter((g) => (only.length ? only.includes(g) : g !== "viewer" || !QUICK));

const SIZES = { big: 4.5 * GB * SCALE, mid: 1.1 * GB * SCALE, v1: 2.5 * GB * SCALE };
const SEEDS = { big: 0x4500a23, mid: 0x1100a23, v1: 0x2500a01 };
const VIEWER_GIB = 2.5;
const CHILD_TIMEOUT = 20 * 60_000;

const log = (text) => process.stderr.write(`${text}\n`);
const pkgDir = dirname(require.resolve("session-tree/package.json"));
const bin = join(pkgDir, "bin", "session-tree.js");
const rssPreload = join(dirname(here), "large-rss.cjs");

// ---------------------------------------------------------------------------
// The files, and their removal whatever happens.

const root = mkdtempSync(join(process.env.BENCH_LARGE_DIR ?? os.tmpdir(), "session-tree-bench-large-"));
let removed = false;
function cleanUp() {
  if (removed) return;
  removed = true;
  rmSync(root, { recursive: true, force: true });
}
process.on("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    log(`${signal}: removing ${root}`);
    cleanUp();
    process.exit(130);
  });
}

/** Refuses to start a file that would leave less than a GB free. */
function checkSpace(bytes) {
  const fs = statfsSync(root);
  const free = fs.bavail * fs.bsize;
  if (free < bytes + GB) {
    throw new Error(`${root}: ${(free / GB).toFixed(1)} GB free, ${((bytes + GB) / GB).toFixed(1)} GB needed`);
  }
}

const files = {};
function generate(name, version) {
  if (files[name]) return files[name];
  const path = join(root, `${name}.jsonl`);
  checkSpace(SIZES[name]);
  const r = run(process.execPath, [
    here,
    "--child",
    "gen",
    path,
    JSON.stringify({ bytes: SIZES[name], seed: SEEDS[name], version }),
  ]);
  if (!r.result) throw new Error(`generating ${name}: ${r.error}`);
  files[name] = { path, ...r.result };
  log(
    `${name}: v${version}, ${(r.result.bytes / GB).toFixed(2)} GB (${(r.result.bytes / GiB).toFixed(2)} GiB), ${r.result.entries.toLocaleString("en")} entries, written in ${(r.result.ms / 1000).toFixed(1)} s`,
  );
  return files[name];
}
function drop(name) {
  if (!files[name]) return;
  rmSync(files[name].path, { force: true });
  delete files[name];
}

// ---------------------------------------------------------------------------
// Running children.

/** Runs a child; its last stdout line is its JSON result. Wall time measured here too. */
function run(cmd, args, { env, stdout } = {}) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, {
    cwd: dirname(dirname(here)),
    env: { ...process.env, ...env },
    stdio: ["ignore", stdout ?? "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 256 * MB,
    timeout: CHILD_TIMEOUT,
  });
  const wallMs = performance.now() - t0;
  const out = { wallMs, status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  if (r.error) return { ...out, error: r.error.message };
  if (r.signal) {
    const why = out.stderr
      .split("\n")
      .find((l) => /FATAL|out of memory|Error/.test(l))
      ?.trim();
    return { ...out, error: `killed by ${r.signal}${why ? `: ${why}` : ""}` };
  }
  if (stdout === undefined) {
    const last = out.stdout.trim().split("\n").at(-1);
    try {
      out.result = JSON.parse(last);
    } catch {}
  }
  if (r.status !== 0 || (stdout === undefined && !out.result)) {
    out.error = `exit ${r.status}: ${firstLine(out.stderr) || firstLine(out.stdout) || "no output"}`;
  }
  return out;
}
const firstLine = (s) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith("at ")) ?? "";

/** Our side of a row, measured in a child of its own. */
function ours(kind, file, arg) {
  return run(process.execPath, [here, "--child", kind, file, ...(arg === undefined ? [] : [arg])]);
}

/** A `session-tree` command on a file: wall time, peak RSS (large-rss.cjs), output size. */
function command(args) {
  const rssFile = join(root, "rss.json");
  const outFile = join(root, "out.txt");
  const fd = openSync(outFile, "w");
  let r;
  try {
    r = run(process.execPath, ["--require", rssPreload, bin, ...args], {
      env: { BENCH_LARGE_RSS: rssFile },
      stdout: fd,
    });
  } finally {
    closeSync(fd);
  }
  r.outBytes = statSync(outFile).size;
  rmSync(outFile, { force: true });
  try {
    ({ rss: r.rss, cpuMs: r.cpuMs } = JSON.parse(readFileSync(rssFile, "utf8")));
    rmSync(rssFile);
  } catch {}
  return r;
}

// ---------------------------------------------------------------------------
// The rows.

const rows = [];
const problems = [];
const fmtS = (ms) => (ms == null ? "—" : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`);
const fmtMem = (bytes) =>
  bytes == null ? "—" : bytes >= GB ? `${(bytes / GiB).toFixed(2)} GiB` : `${Math.round(bytes / 2 ** 20)} MiB`;
const sizeOf = (f) => `${(f.bytes / GB).toFixed(2)} GB`;

/**
 * A row: `r` is a child's run. `limits`: { ms, rss } the targets (null: none).
 * `what` names the row, `file` the input.
 */
function row(what, file, r, limits = {}, extra = {}) {
  const res = r.result ?? {};
  const ms = res.ms ?? r.wallMs;
  const rss = res.rss ?? r.rss ?? null;
  const cpu = res.cpuMs ?? r.cpuMs ?? null;
  const entry = {
    what,
    file,
    ms: r.error ? null : ms,
    cpu: r.error ? null : cpu,
    rss: r.error ? null : rss,
    limits,
    note: extra.note ?? "",
    ...extra,
  };
  if (r.error) {
    entry.note = `failed: ${r.error}`.slice(0, 160);
    problems.push(`${what} (${file}): ${r.error}`);
  }
  rows.push(entry);
  log(
    `  ${what}: ${entry.ms == null ? entry.note : `${fmtS(entry.ms)} (CPU ${fmtS(entry.cpu)}), peak RSS ${fmtMem(entry.rss)}`}${extra.note ? ` (${extra.note})` : ""}`,
  );
  return entry;
}

function nodeRows(name) {
  const f = generate(name, 3);
  const big = name === "big";
  const tree = ours("tree", f.path);
  if (tree.result && tree.result.nodes !== f.entries)
    problems.push(`getTree on ${name}: ${tree.result.nodes} nodes, ${f.entries} entries written`);
  row("`getTree` (fileSource)", sizeOf(f), tree, big ? { ms: 5000, rss: GB } : {}, {
    note: tree.result ? `${tree.result.nodes.toLocaleString("en")} nodes` : "",
  });
  const ctx = ours("context", f.path);
  row("`buildSessionContext` at the last entry", sizeOf(f), ctx, big ? { ms: 3000 } : {}, {
    note: ctx.result ? `${ctx.result.messages} messages` : "",
  });
  const leaves = ours("leaves", f.path, JSON.stringify(f.leaves));
  if (leaves.result && !leaves.result.same)
    problems.push(`Session on ${name}: a leaf's context differs from buildSessionContext's`);
  row(`\`Session.open\`, then contexts at ${f.leaves.length} leaves`, sizeOf(f), leaves, big ? { ms: 10_000 } : {}, {
    note: leaves.result
      ? `open ${fmtS(leaves.result.openMs)}, ${leaves.result.messages.toLocaleString("en")} messages`
      : "",
  });
}

function piRow() {
  const f = generate("mid", 3);
  log("  pi 1.6.0: SessionManager.open + buildSessionContext (16 GB heap)…");
  const pi = run(process.execPath, ["--max-old-space-size=16384", here, "--child", "pi", f.path]);
  const st = ours("open+context", f.path);
  const entry = row(
    "`Session.open` + `buildSessionContext`, against pi's `SessionManager.open` + `buildSessionContext`",
    sizeOf(f),
    st,
    {
      ratio: 5,
      rssShare: 1 / 3,
    },
  );
  if (pi.error) {
    entry.piNote = `pi failed: ${pi.error}`;
    problems.push(`pi on ${sizeOf(f)}: ${pi.error}`);
  } else {
    entry.pi = { ms: pi.result.ms, cpu: pi.result.cpuMs, rss: pi.result.rss };
    if (st.result) {
      const same = st.result.messages === pi.result.messages && st.result.hash === pi.result.hash;
      entry.note = `${st.result.messages} messages, ${same ? "the same as pi's" : "**DIFFERENT from pi's**"}`;
      if (!same) {
        const at = st.result.each.findIndex((h, i) => h !== pi.result.each[i]);
        problems.push(
          `context on ${sizeOf(f)}: ours ${st.result.messages} messages, pi's ${pi.result.messages}; first difference at message ${at}`,
        );
      }
    }
  }
  log(
    `  pi: ${pi.result ? `${fmtS(pi.result.ms)} (CPU ${fmtS(pi.result.cpuMs)}), peak RSS ${fmtMem(pi.result.rss)}` : pi.error}`,
  );
}

function cliRows() {
  const f = generate("big", 3);
  const limits = { ms: 10_000, rss: GB };
  for (const args of [["info"], ["tree"], ["context"], ["inspect"]]) {
    const r = command([...args, f.path]);
    row(`\`session-tree ${args.join(" ")}\``, sizeOf(f), r, limits, {
      note: r.error ? "" : `${(r.outBytes / MB).toFixed(1)} MB printed`,
    });
  }
}

function migrateRow() {
  const f = generate("v1", 1);
  const out = join(root, "migrated.jsonl");
  checkSpace(f.bytes * 1.1);
  const r = command(["migrate", f.path, "-o", out]);
  let note = "";
  try {
    const size = statSync(out).size;
    note = `${(size / GB).toFixed(2)} GB written`;
    // a v1 file gains an id and a parentId on every line: the output must be larger
    if (!(size > f.bytes)) problems.push(`migrate: ${size} bytes written from ${f.bytes}`);
  } catch {}
  rmSync(out, { force: true });
  row("`session-tree migrate -o` (v1 → v3)", `${sizeOf(f)}, v1`, r, { rss: GB }, { note });
}

function viewerRows() {
  log(`  viewer: VIEWER_LARGE_GIB=${VIEWER_GIB} node --test tests/viewer/large-file.test.mjs …`);
  const r = run(process.execPath, ["--test", "viewer/large-file.test.mjs"], {
    env: { VIEWER_LARGE_GIB: String(VIEWER_GIB), TMPDIR: root },
    stdout: "pipe",
  });
  const m =
    /# ([\d.]+) GiB, (\d+) entries: .*first rows after (\d+) ms, whole graph after \d+ ms, with the context in (\d+) ms, a leaf's context in (\d+) ms.*; renderers' peak memory (\d+) MiB/.exec(
      r.stdout,
    );
  const file = m ? `${m[1]} GiB, ${Number(m[2]).toLocaleString("en")} entries` : `${VIEWER_GIB} GiB`;
  if (!m) {
    const error = r.error ?? "no measurement line in the test's output";
    rows.push({
      what: "the viewer (Chromium)",
      file,
      ms: null,
      rss: null,
      limits: {},
      note: `failed: ${error}`.slice(0, 160),
    });
    problems.push(`viewer: ${error}`);
    log(`  viewer: ${error}`);
    return;
  }
  const rss = Number(m[6]) * 2 ** 20;
  const note = r.error ? `the test failed: ${r.error}`.slice(0, 160) : "";
  if (r.error) problems.push(`viewer: ${r.error}`);
  const add = (what, ms, limits) => {
    rows.push({ what, file, ms, rss: null, limits, note });
    log(`  ${what}: ${fmtS(ms)}`);
  };
  add("the viewer: first rows", Number(m[3]), { ms: 5000 });
  add("the viewer: whole graph and the last entry's context", Number(m[4]), { ms: 15_000 });
  add("the viewer: another leaf's context", Number(m[5]), { ms: 2000 });
  rows.push({
    what: "the viewer: renderers' peak memory",
    file,
    ms: null,
    rss,
    limits: { rss: 2 * GiB },
    note: note || "JS heaps and wasm memory of the page and its worker",
  });
}

// ---------------------------------------------------------------------------
// Main.

const tStart = performance.now();
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
const loadStart = load();
log(
  `session-tree bench-large: groups ${groups.join(", ")}, sizes ×${SCALE}, files in ${root}; load average ${loadStart}`,
);
try {
  if (groups.includes("node")) {
    log("Node, through fileSource, on the 4.5 GB session:");
    nodeRows("big");
  }
  if (groups.includes("cli")) {
    log("The command on the 4.5 GB session:");
    cliRows();
  }
  drop("big");
  if (groups.includes("pi") || groups.includes("node")) {
    log("The 1.1 GB session:");
    if (groups.includes("node")) nodeRows("mid");
    if (groups.includes("pi")) piRow();
  }
  drop("mid");
  if (groups.includes("migrate")) {
    log("migrate, on the 2.5 GB v1 session:");
    migrateRow();
  }
  drop("v1");
  if (groups.includes("viewer")) {
    log("The viewer, in Chromium:");
    viewerRows();
  }
} catch (error) {
  problems.push(`stopped: ${error.message}`);
  log(`stopped: ${error.stack}`);
} finally {
  cleanUp();
}

// ---------------------------------------------------------------------------
// Report (stdout, markdown).

function verdict(r) {
  const marks = [];
  const t = r.limits;
  if (t.ms != null && r.ms != null) marks.push(r.ms <= t.ms);
  if (t.rss != null && r.rss != null) marks.push(r.rss < t.rss);
  if (t.ratio != null && r.pi && r.ms != null) marks.push(r.pi.ms / r.ms >= t.ratio);
  if (t.rssShare != null && r.pi && r.rss != null) marks.push(r.rss <= r.pi.rss * t.rssShare);
  if (r.ms == null && r.rss == null) return "❌";
  // the targets are for the full sizes: a scaled run only shows its figures
  if (SCALE !== 1) return "";
  return marks.length === 0 ? "" : marks.every(Boolean) ? "✅" : "❌";
}
function targetText(t) {
  const parts = [];
  if (t.ms != null) parts.push(`≤ ${t.ms / 1000} s`);
  if (t.rss != null) parts.push(t.rss === GB ? "< 1 GB" : `< ${fmtMem(t.rss)}`);
  if (t.ratio != null) parts.push(`×${t.ratio}`);
  if (t.rssShare != null) parts.push("⅓ of pi's memory");
  return parts.join(", ") || "—";
}

const cpu = os.cpus()[0]?.model ?? "unknown CPU";
const out = [];
out.push(
  `session-tree bench-large — ${new Date().toISOString()}, Node ${process.version}, ${cpu} (${os.cpus().length} cores, ${(os.totalmem() / GiB).toFixed(0)} GiB), load average ${loadStart} at the start, ${load()} at the end${SCALE !== 1 ? `, sizes ×${SCALE}` : ""}`,
);
out.push("");
out.push(
  "| row | input | ours | ours CPU | ours peak RSS | pi 1.6.0 | pi CPU | pi peak RSS | ratio | target | | notes |",
);
out.push("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |");
let misses = 0;
for (const r of rows) {
  const mark = verdict(r);
  if (mark === "❌") misses++;
  const ratio = r.pi && r.ms ? `×${(r.pi.ms / r.ms).toFixed(2)} (memory ${(r.rss / r.pi.rss).toFixed(2)})` : "—";
  out.push(
    `| ${r.what} | ${r.file} | ${fmtS(r.ms)} | ${fmtS(r.cpu)} | ${fmtMem(r.rss)} | ${r.pi ? fmtS(r.pi.ms) : (r.piNote ?? "—")} | ${r.pi ? fmtS(r.pi.cpu) : "—"} | ${r.pi ? fmtMem(r.pi.rss) : "—"} | ${ratio} | ${targetText(r.limits)} | ${mark} | ${r.note} |`,
  );
}
out.push("");
out.push(
  `${SCALE !== 1 ? `Sizes ×${SCALE}: the targets are for the full sizes and are not judged. ` : ""}Each row ran in a process of its own: times are wall-clock (the targets are judged on them); CPU is the process's user + system time over the same span (all its threads, the garbage collector's helpers too), which a loaded machine inflates far less; peak RSS is its VmHWM (or \`process.resourceUsage().maxRSS\`), Node itself included. ${misses ? `${misses} row(s) missed a target` : "Every target met"}; total ${((performance.now() - tStart) / 1000).toFixed(0)} s.`,
);
if (problems.length) {
  out.push("");
  out.push("!!! problems:");
  for (const p of problems) out.push(`!!!   ${p}`);
  process.exitCode = 1;
}
console.log(out.join("\n"));
