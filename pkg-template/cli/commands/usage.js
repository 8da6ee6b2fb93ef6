// `session-tree usage [PATH…]`: what sessions cost, by day, week, month,
// model, project or session (each paid request counted once across forks and
// branched copies), or by branch within one session. The accounting is the
// package's (`UsageLedger`, `sessionUsage`); this module reads the files and
// draws the table.

import { relative } from "node:path";
import { findSessions, readUsage } from "../../files/folder.cjs";
import { sessionUsage } from "../../node.js";
import {
  absolute,
  clip,
  colours,
  describeFsError,
  fsOf,
  line,
  printable,
  printJson,
  progress,
  readInput,
  UsageError,
} from "../io.js";

const GROUPINGS = ["day", "week", "month", "model", "project", "session", "branch"];
const HEADS = {
  day: "Date",
  week: "Week of",
  month: "Month",
  model: "Model",
  project: "Project",
  session: "Session",
  branch: "Leaf",
};

/** `YYYY-MM-DD` from `YYYY-MM-DD` or `YYYYMMDD` (ccusage's form); a UsageError otherwise. */
function dateOption(name, value) {
  if (value === undefined) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value);
  const iso = m ? `${m[1]}-${m[2]}-${m[3]}` : "";
  const parsed = new Date(`${iso}T00:00:00Z`);
  if (!m || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== iso)
    throw new UsageError(`--${name} must be a date as YYYY-MM-DD or YYYYMMDD, not ${value}`);
  return iso;
}

function zoneOption(value) {
  if (value === undefined) return undefined;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
  } catch {
    throw new UsageError(`--timezone must be a time zone such as Europe/Paris or UTC, not ${value}`);
  }
  return value;
}

/**
 * `1234567` as `1,234,567`. A sum that overflowed is `Infinity`, as pi shows it; `null` is
 * the JSON of NaN (an infinity less another), shown as pi would show NaN.
 */
export function formatTokens(n) {
  if (n === null) return "NaN";
  if (!Number.isFinite(n)) return String(n);
  const sign = n < 0 ? "-" : "";
  return sign + String(Math.round(Math.abs(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Dollars with cents: `$0.41`. */
export function formatCost(n) {
  if (n === null) return "$NaN";
  return n < 0 ? `-$${(-n).toFixed(2)}` : `$${n.toFixed(2)}`;
}

/** Totals as JSON rows give them: the numbers, flat. */
const flat = (u) => ({
  input: u.input,
  output: u.output,
  cacheRead: u.cacheRead,
  cacheWrite: u.cacheWrite,
  totalTokens: u.totalTokens,
  cost: u.cost,
  records: u.records,
  incomplete: u.incomplete,
});

const COLUMNS = [
  { head: "Input", of: (u) => formatTokens(u.input) },
  { head: "Output", of: (u) => formatTokens(u.output) },
  { head: "Cache read", of: (u) => formatTokens(u.cacheRead), wide: true },
  { head: "Cache write", of: (u) => formatTokens(u.cacheWrite), wide: true },
  { head: "Total tokens", of: (u) => formatTokens(u.totalTokens) },
  { head: "Cost", of: (u) => formatCost(u.cost) },
];

/** The terminal's width: stdout's columns when it is a terminal, else $COLUMNS, else no limit. */
function widthOf(io) {
  if (io.isTTY && io.stdout.columns > 0) return io.stdout.columns;
  const env = Number(io.env?.COLUMNS);
  return env > 0 ? env : Number.POSITIVE_INFINITY;
}

/**
 * The table's lines: a key column, then the number columns (and `extra`
 * columns after them). `rows` are `{ key, usage, sub?, mark?, extra? }`;
 * `sub` rows (a model breakdown) are drawn indented under their row. On a
 * terminal too narrow for every column, the cache columns are left out, then
 * the keys are clipped.
 */
function table(io, head, rows, total, extra = []) {
  const c = colours(io);
  const limit = widthOf(io);
  const len = (s) => Array.from(s).length;
  const render = (columns) => {
    const cells = (r) => [...columns.map((col) => col.of(r.usage)), ...extra.map((col) => col.of(r))];
    const heads = [...columns.map((col) => col.head), ...extra.map((col) => col.head)];
    const all = [...rows.flatMap((r) => [r, ...(r.sub ?? [])]), total];
    const widths = heads.map((h, i) => Math.max(len(h), ...all.map((r) => len(cells(r)[i]))));
    const keyWidth = Math.max(len(head), ...all.map((r) => len(r.key) + (r.indent ? 4 : 0)));
    const numbers = widths.reduce((n, w) => n + w + 2, 0);
    return { cells, heads, widths, keyWidth, numbers };
  };
  let layout = render(COLUMNS);
  if (layout.keyWidth + layout.numbers > limit) layout = render(COLUMNS.filter((col) => !col.wide));
  const { cells, heads, widths, numbers } = layout;
  const keyWidth = Math.max(len(head), Math.min(layout.keyWidth, Math.max(12, limit - numbers)));
  const pad = (s, w) => s + " ".repeat(Math.max(0, w - len(s)));
  const fit = (key, indent) => pad(clip(key, keyWidth - indent), keyWidth - indent);
  const out = [];
  const row = (key, values, style = (s) => s, indent = 0) =>
    `${" ".repeat(indent)}${style(fit(key, indent))}${values.map((v, i) => `  ${style(v.padStart(widths[i]))}`).join("")}`.trimEnd();
  out.push(row(head, heads, c.bold));
  const rule = c.dim("─".repeat(keyWidth + numbers));
  out.push(rule);
  for (const r of rows) {
    out.push(row(r.key, cells(r), r.mark ? c.bold : undefined));
    for (const s of r.sub ?? []) out.push(row(`└ ${s.key}`, cells(s), c.dim, 2));
  }
  out.push(rule);
  out.push(row(total.key, cells(total), c.bold));
  return out;
}

/** The files that PATHs name: a folder's `.jsonl` files (subfolders too), a file as it is. */
async function pathsOf(io, positionals, skipped) {
  const home = io.env?.HOME ?? io.env?.USERPROFILE ?? "";
  const given = positionals.length > 0 ? positionals : [`${home}/.pi/agent/sessions`];
  const found = new Set();
  for (const p of given) {
    const path = absolute(io, p);
    let stat;
    try {
      stat = await fsOf(io).stat(path);
    } catch (error) {
      throw new UsageError(
        positionals.length === 0 ? `no sessions folder at ${path} (give a PATH)` : describeFsError(p, error),
      );
    }
    if (!stat.isDirectory()) {
      found.add(path);
      continue;
    }
    const files = await findSessions(path, {
      recursive: true,
      fs: io.fs,
      onError: (folder, error) => skipped.push({ path: folder, error: describeFsError(folder, error) }),
    });
    for (const f of files) found.add(f);
  }
  // One file named twice (a folder and a symbolic link to it, both given) would count twice:
  // each real file is read once, under the first name it was found by.
  const fs = fsOf(io);
  const real = new Set();
  const once = [];
  for (const path of found) {
    let key = path;
    try {
      if (typeof fs.realpath === "function") key = await fs.realpath(path);
    } catch {
      // A file that cannot be resolved is read (and its error reported) under its own name.
    }
    if (real.has(key)) continue;
    real.add(key);
    once.push(path);
  }
  return once;
}

async function byBranch(io, values, positionals) {
  if (positionals.length !== 1) throw new UsageError("--by branch reads one session FILE");
  if (values.since !== undefined || values.until !== undefined)
    throw new UsageError("--since and --until choose dates; --by branch lists one session's leaves");
  const file = positionals[0];
  const report = sessionUsage(await readInput(io, file));
  if (values.json) {
    printJson(io, {
      by: "branch",
      file: file === "-" ? null : absolute(io, file),
      sessionId: report.sessionId ?? null,
      leafId: report.leafId,
      total: flat(report.total),
      path: flat(report.path),
      abandoned: flat(report.abandoned),
      leaves: report.leaves.map((l) => ({ entryId: l.entryId, path: flat(l.path), own: flat(l.own) })),
      forks: report.forks.map((f) => ({
        entryId: f.entryId,
        sides: f.sides.map((s) => ({ entryId: s.entryId, leaves: s.leaves, ...flat(s.usage) })),
      })),
    });
    return 0;
  }
  const c = colours(io);
  const rows = report.leaves.map((l) => ({
    key: `${l.entryId === report.leafId ? "* " : "  "}${printable(l.entryId)}`,
    usage: l.path,
    own: l.own,
    mark: l.entryId === report.leafId,
  }));
  rows.sort((a, b) => b.usage.cost - a.usage.cost || (a.key < b.key ? -1 : 1));
  const own = { head: "Own cost", of: (r) => (r.own ? formatCost(r.own.cost) : "") };
  for (const l of table(io, HEADS.branch, rows, { key: "File total", usage: report.total }, [own])) line(io.stdout, l);
  line(io.stdout, c.dim("* the current leaf. Cost: its path from the root; own cost: below the last fork."));
  line(
    io.stdout,
    c.dim(`Off the current path: ${formatCost(report.abandoned.cost)} in ${report.abandoned.records} requests.`),
  );
  notes(io, report.total.incomplete, 0);
  return 0;
}

function notes(io, incomplete, copies) {
  const c = colours(io);
  if (copies > 0) line(io.stdout, c.dim(`${copies} requests repeated in forks and branched copies were counted once.`));
  if (incomplete > 0)
    line(
      io.stdout,
      c.yellow(`${incomplete} requests had usage fields missing or not numbers; those fields count as 0.`),
    );
}

export default {
  name: "usage",
  summary: "what sessions cost: tokens and dollars by day, model, project, session or branch",
  usage: `usage: session-tree usage [PATH…] [--by day|week|month|model|project|session|branch]
                          [--since DATE] [--until DATE] [--timezone ZONE]
                          [--breakdown] [--json]

Tokens and cost of every paid request in the sessions at PATH (files, or
folders read with their subfolders; default ~/.pi/agent/sessions), as pi 1.6
counts them: assistant messages, tool results that carry usage, usage entries
(cache warming), and the summarizers of compactions and branch summaries. A
request that forks and branched copies repeat (files linked by parentSession)
counts once; unrelated files are never merged.

  --by G          day (default), week (keyed by its Monday), month, model,
                  project (the session's cwd), session (its file), or branch:
                  each leaf of one session FILE, the cost of its path and of
                  its own part below the last fork
  --since DATE    the first day counted, YYYY-MM-DD or YYYYMMDD
  --until DATE    the last day counted
  --timezone Z    the time zone of the days (Europe/Paris, UTC); default the
                  local one
  --breakdown     each row split by model
  --json          the rows as JSON: { by, timeZone, since, until, rows: [{ key,
                  input, output, cacheRead, cacheWrite, totalTokens, cost,
                  records, incomplete, models: [{ model, … }] }], total, files,
                  copies, skipped }; with --by branch: { file, leafId, total,
                  path, abandoned, leaves: [{ entryId, path, own }], forks }

The table fits the terminal: on a narrow one the cache columns are left out.
A long read shows its progress on stderr when stderr is a terminal. A usage
field that is missing or not a number counts as 0, and the count of such
requests is shown. Exit codes: 0 ok; 1 some files could not be read; 2 bad
usage or a PATH that cannot be read.`,
  options: {
    by: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    timezone: { type: "string" },
    breakdown: { type: "boolean" },
    json: { type: "boolean" },
  },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    const by = values.by ?? "day";
    if (!GROUPINGS.includes(by)) throw new UsageError(`--by must be one of ${GROUPINGS.join(", ")}, not ${by}`);
    if (by === "branch") return byBranch(io, values, positionals);
    const since = dateOption("since", values.since);
    const until = dateOption("until", values.until);
    const timeZone = zoneOption(values.timezone);
    const skipped = [];
    const paths = await pathsOf(io, positionals, skipped);
    const meter = progress(io, "reading sessions");
    const read = await readUsage(paths, { fs: io.fs, onProgress: meter.update });
    meter.clear();
    skipped.push(...read.skipped);
    for (const s of skipped)
      line(
        io.stderr,
        `session-tree usage: skipped ${printable(s.error.startsWith(s.path) ? s.error : `${s.path}: ${s.error}`)}`,
      );
    const summary = read.ledger.summary({ by, timeZone, since, until });
    read.ledger.free();
    const shown = (key) => (by === "session" ? relative(absolute(io, "."), key) || key : key);

    if (values.json) {
      printJson(io, {
        by,
        timeZone: timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
        since: since ?? null,
        until: until ?? null,
        rows: summary.rows.map((r) => ({
          key: r.key,
          ...flat(r.usage),
          models: r.models.map((m) => ({ model: m.model, ...flat(m.usage) })),
        })),
        total: flat(summary.total),
        files: summary.files,
        copies: summary.copies,
        skipped,
      });
      return skipped.length > 0 ? 1 : 0;
    }
    if (summary.rows.length === 0) {
      line(io.stdout, `no paid requests in ${summary.files} session files${since || until ? " in that range" : ""}`);
      return skipped.length > 0 ? 1 : 0;
    }
    const rows = summary.rows.map((r) => ({
      key: printable(shown(r.key)),
      usage: r.usage,
      sub:
        values.breakdown && by !== "model"
          ? r.models.map((m) => ({ key: printable(m.model), usage: m.usage, indent: true }))
          : [],
    }));
    for (const l of table(io, HEADS[by], rows, { key: "Total", usage: summary.total })) line(io.stdout, l);
    notes(io, summary.total.incomplete, summary.copies);
    return skipped.length > 0 ? 1 : 0;
  },
};
