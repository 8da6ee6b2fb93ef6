// `session-tree usage` on a folder that pi 1.6.0's own SessionManager writes (forks into other
// projects, branched copies, nested folders, several days; tests/shared/usage-folder.mjs), plus
// a hand copy of one session under an unrelated header. `--json` per session, day and model
// must equal sums written here over pi's own entries (`SessionManager.open(...).getEntries()`),
// with what lineage copies repeat counted once. USAGE_SEED replays a run.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { piSessionStats, SessionManager } from "../shared/pi.mjs";
import { envSeed } from "../shared/rng.mjs";
import { generateUsageFolder } from "../shared/usage-folder.mjs";
import { run } from "./run.mjs";

const seed = envSeed("USAGE_SEED");
const replay = `(USAGE_SEED=${seed})`;
const root = mkdtempSync(join(tmpdir(), "session-tree-usage-cli-"));
after(() => rmSync(root, { recursive: true, force: true }));
const { files } = generateUsageFolder(root, seed, { sessions: 8 });
// One session again under a header of its own: unrelated, though every entry id is shared.
{
  const [header, ...rest] = readFileSync(files[0].path, "utf8").trimEnd().split("\n");
  const other = { ...JSON.parse(header), id: "0199bbbb-0000-7000-8000-000000000000", cwd: "/elsewhere" };
  delete other.parentSession;
  const path = join(root, "unrelated.jsonl");
  writeFileSync(path, `${[JSON.stringify(other), ...rest].join("\n")}\n`);
  files.push({ path, cwd: "/elsewhere", made: "hand copy" });
}

const NO_MODEL = "(tools and summaries)";

/** The usage pi's getSessionStats adds for an entry, and the model it names (written here from pi's rules). */
function paid(entry) {
  if (entry.type === "usage") return { usage: entry.usage, model: `${entry.provider}/${entry.model}` };
  if ((entry.type === "compaction" || entry.type === "branch_summary") && entry.usage)
    return { usage: entry.usage, model: NO_MODEL };
  if (entry.type !== "message") return null;
  const m = entry.message;
  if (m.role === "toolResult" && m.usage) return { usage: m.usage, model: NO_MODEL };
  if (m.role === "assistant") return { usage: m.usage, model: `${m.provider}/${m.responseModel ?? m.model}` };
  return null;
}

/**
 * Every paid entry of the folder counted once: files are grouped into lineages by their
 * headers' parentSession chains; in a lineage, an entry (id and timestamp) belongs to the
 * first file that has it, sources before copies, then by path.
 */
function expectedRecords() {
  const byPath = new Map(files.map((f) => [f.path, SessionManager.open(f.path)]));
  const parentOf = (path) => byPath.get(path).getHeader().parentSession;
  const lineage = (path) => {
    let at = path;
    let depth = 0;
    while (parentOf(at)) {
      depth++;
      at = parentOf(at);
      if (!byPath.has(at)) break;
    }
    return { root: at, depth };
  };
  const order = [...byPath.keys()]
    .map((path) => ({ path, ...lineage(path) }))
    .sort((a, b) => a.depth - b.depth || (a.path < b.path ? -1 : 1));
  const seen = new Set();
  const records = [];
  let copies = 0;
  for (const { path, root: top } of order) {
    const sm = byPath.get(path);
    for (const entry of sm.getEntries()) {
      const p = paid(entry);
      if (!p) continue;
      const key = JSON.stringify([top, entry.id, entry.timestamp]);
      if (seen.has(key)) {
        copies++;
        continue;
      }
      seen.add(key);
      records.push({ ...p, path, timestamp: entry.timestamp });
    }
  }
  return { records, copies };
}

const { records, copies } = expectedRecords();

function sums(keyOf, list = records) {
  const out = new Map();
  for (const r of list) {
    const key = keyOf(r);
    const t = out.get(key) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, records: 0 };
    t.input += r.usage.input;
    t.output += r.usage.output;
    t.cacheRead += r.usage.cacheRead;
    t.cacheWrite += r.usage.cacheWrite;
    t.cost += r.usage.cost.total;
    t.records++;
    out.set(key, t);
  }
  return out;
}

function assertRows(rows, expected, what) {
  assert.deepEqual(rows.map((r) => r.key).sort(), [...expected.keys()].sort(), `${what} keys ${replay}`);
  for (const row of rows) {
    const e = expected.get(row.key);
    const at = `${what} ${row.key} ${replay}`;
    assert.deepEqual(
      [row.input, row.output, row.cacheRead, row.cacheWrite, row.records],
      [e.input, e.output, e.cacheRead, e.cacheWrite, e.records],
      at,
    );
    assert.equal(row.totalTokens, e.input + e.output + e.cacheRead + e.cacheWrite, at);
    assert.ok(Math.abs(row.cost - e.cost) <= 1e-9 * Math.max(1, e.cost), `${at}: cost ${row.cost} vs ${e.cost}`);
    assert.equal(row.incomplete, 0, at);
  }
}

const usageJson = async (...args) => {
  const r = await run(["usage", root, "--json", ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test("the folder has lineage copies to count once", () => {
  assert.ok(
    files.some((f) => f.made !== "create" && f.made !== "hand copy"),
    replay,
  );
  assert.ok(copies > 0, replay);
});

test("usage --json --by session: each session's own requests, copies counted once", async () => {
  const out = await usageJson("--by", "session");
  assertRows(
    out.rows,
    sums((r) => r.path),
    "session",
  );
  assert.equal(out.copies, copies);
  assert.equal(out.files, files.length);
  assert.deepEqual(out.skipped, []);
  // The hand copy is no lineage copy: it counts in full, as its source does.
  const row = (path) => out.rows.find((r) => r.key === path);
  assert.equal(row(files.at(-1).path).records, row(files[0].path).records);
});

test("usage --json --by day, in UTC and in another zone", async () => {
  const utc = await usageJson("--by", "day", "--timezone", "UTC");
  assertRows(
    utc.rows,
    sums((r) => r.timestamp.slice(0, 10)),
    "UTC day",
  );
  assert.equal(utc.timeZone, "UTC");
  const zone = "America/Los_Angeles";
  const local = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" });
  const la = await usageJson("--by", "day", "--timezone", zone);
  assertRows(
    la.rows,
    sums((r) => local.format(new Date(r.timestamp))),
    "Los Angeles day",
  );
  assert.deepEqual(
    la.rows.map((r) => r.key),
    la.rows.map((r) => r.key).sort(),
    "days in order",
  );
});

test("usage --json --by model, and --since/--until", async () => {
  const out = await usageJson("--by", "model");
  assertRows(
    out.rows,
    sums((r) => r.model),
    "model",
  );
  const days = [...new Set(records.map((r) => r.timestamp.slice(0, 10)))].sort();
  assert.ok(days.length >= 3, `the folder spans days ${replay}`);
  const day = days[1];
  const ranged = await usageJson("--by", "model", "--timezone", "UTC", "--since", day, "--until", day);
  const onDay = records.filter((r) => r.timestamp.slice(0, 10) === day);
  assertRows(
    ranged.rows,
    sums((r) => r.model, onDay),
    `model on ${day}`,
  );
  const compact = await usageJson("--by", "day", "--timezone", "UTC", "--since", day.replaceAll("-", ""));
  assert.deepEqual(
    compact.rows.map((r) => r.key),
    days.slice(1),
    "YYYYMMDD as ccusage takes it",
  );
});

test("usage draws a table that fits the terminal, with a breakdown by model", async () => {
  const wide = await run(["usage", root, "--by", "month", "--timezone", "UTC", "--breakdown"], {
    env: { COLUMNS: "200" },
  });
  assert.equal(wide.code, 0, wide.stderr);
  const lines = wide.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^Month\s+Input\s+Output\s+Cache read\s+Cache write\s+Total tokens\s+Cost$/);
  assert.match(lines[2], /^2026-01\s/);
  assert.ok(
    lines.some((l) => l.startsWith("  └ anthropic/")),
    "model rows under the month",
  );
  const total = lines.find((l) => l.startsWith("Total"));
  const expectedCost = records.reduce((n, r) => n + r.usage.cost.total, 0);
  assert.ok(total.endsWith(`$${expectedCost.toFixed(2)}`), total);
  assert.match(wide.stdout, new RegExp(`${copies} requests repeated in forks and branched copies were counted once`));

  const narrow = await run(["usage", root, "--by", "model"], { env: { COLUMNS: "60" } });
  const narrowLines = narrow.stdout.trimEnd().split("\n");
  assert.doesNotMatch(narrowLines[0], /Cache/);
  for (const l of narrowLines.slice(0, -1)) assert.ok(Array.from(l).length <= 60, `fits 60 columns: ${l}`);
});

test("usage --by branch lists one session's leaves with their path and own cost", async () => {
  const file = files[0].path;
  const r = await run(["usage", file, "--by", "branch", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const sm = SessionManager.open(file);
  assert.equal(out.leafId, sm.getLeafId());
  const sum = (entries) => entries.reduce((n, e) => n + (paid(e) ? paid(e).usage.input + paid(e).usage.output : 0), 0);
  for (const leaf of out.leaves) {
    const path = sm.getBranch(leaf.entryId);
    assert.equal(leaf.path.input + leaf.path.output, sum(path), `${leaf.entryId} ${replay}`);
    assert.ok(leaf.own.records <= leaf.path.records);
  }
  assert.ok(out.leaves.length >= 2, `the first session branches ${replay}`);
  const table = await run(["usage", file, "--by", "branch"]);
  assert.match(table.stdout, /^Leaf\s+Input/);
  assert.match(table.stdout, new RegExp(`^\\* ${out.leafId}\\s`, "m"));
  assert.match(table.stdout, /Off the current path: \$\d+\.\d\d in \d+ requests\./);
});

test("usage: a progress line on stderr only when it is a terminal", async () => {
  const slow = await run(["usage", root], { stderrTTY: true, extra: { progressAfterMs: 0 } });
  assert.match(slow.stderr, new RegExp(`reading sessions: ${files.length}/${files.length}`));
  const piped = await run(["usage", root], { extra: { progressAfterMs: 0 } });
  assert.equal(piped.stderr, "");
});

test("usage refuses bad options and paths with exit 2", async () => {
  for (const [args, message] of [
    [["--by", "year"], /--by must be one of day, week, month, model, project, session, branch, not year/],
    [["--since", "2026-02-30"], /--since must be a date as YYYY-MM-DD or YYYYMMDD, not 2026-02-30/],
    [["--timezone", "Mars/Olympus"], /--timezone must be a time zone/],
    [[files[1].path, "--by", "branch"], /--by branch reads one session FILE/],
  ]) {
    const r = await run(["usage", root, ...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message);
  }
  const folder = await run(["usage", root, "--by", "branch"]);
  assert.equal(folder.code, 2);
  assert.match(folder.stderr, /is a directory/);
  const missing = await run(["usage", join(root, "nope")]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no such file or directory/);
  const noHome = await run(["usage"], { env: { HOME: join(root, "no-home") } });
  assert.equal(noHome.code, 2);
  assert.match(noHome.stderr, /no sessions folder at .*no-home\/\.pi\/agent\/sessions \(give a PATH\)/);
});

test("usage: sums that overflow print as pi prints them, never a crash", async () => {
  // Two replies of 1e308 input and $1e308 each: pi's getSessionStats gives Infinity for both
  // sums. A third of -1e308 output makes the total tokens Infinity less Infinity: NaN.
  const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-05T00:00:00.000Z", cwd: "/p" };
  const reply = (id, parentId, input, output, cost) => ({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-05T10:00:00.000Z",
    message: {
      role: "assistant",
      content: [],
      usage: { input, output, cacheRead: 0, cacheWrite: 0, cost: { total: cost } },
    },
  });
  const lines = [header, reply("a", null, 1e308, -1e308, 1e308), reply("b", "a", 1e308, -1e308, 1e308)];
  const dir = mkdtempSync(join(tmpdir(), "session-tree-usage-overflow-"));
  const path = join(dir, "overflow.jsonl");
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  try {
    const pi = piSessionStats(SessionManager.open(path));
    assert.equal(pi.cost, Number.POSITIVE_INFINITY);
    assert.ok(Number.isNaN(pi.tokens.total));
    for (const by of ["day", "branch"]) {
      const r = await run(["usage", path, "--by", by, "--timezone", "UTC"]);
      assert.equal(r.code, 0, r.stderr);
      const total = r.stdout.split("\n").find((l) => /^(File t|T)otal/.test(l));
      assert.match(total, /\sInfinity\s.*\sNaN\s+\$Infinity$/, total);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("usage: a file reached twice (a folder and a link to it, both given) counts once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "session-tree-usage-link-"));
  try {
    const folder = join(dir, "sessions");
    mkdirSync(folder);
    writeFileSync(join(folder, "a.jsonl"), readFileSync(files[0].path));
    symlinkSync(folder, join(dir, "link"));
    const pi = piSessionStats(SessionManager.open(files[0].path));
    const r = await run(["usage", folder, join(dir, "link"), join(dir, "link", "a.jsonl"), "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.files, 1);
    assert.equal(out.total.totalTokens, pi.tokens.total);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
