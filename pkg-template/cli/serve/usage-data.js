// What the viewer's Usage view shows over a folder: spend per day (or week,
// or month) split by model, the range's totals, and the most expensive
// sessions and branches. Every number is the package's: `UsageLedger` counts
// each paid request once across forks and branched copies, and
// `sessionUsage` gives each leaf's cost; this module only picks and orders
// them. Pure ESM with no `node:` imports: `serve` builds it from the files it
// reads (lib = node.js), and the static page from a folder opened in it
// (lib = browser.js), so both show the same figures.

import { buildLineage } from "../lineage.js";

/** Days from `a` to `b` (`YYYY-MM-DD`), both included; 0 when either is missing. */
export function daysBetween(a, b) {
  const t = (d) => Date.parse(`${d}T00:00:00Z`);
  if (!a || !b || Number.isNaN(t(a)) || Number.isNaN(t(b))) return 0;
  return Math.round((t(b) - t(a)) / 86_400_000) + 1;
}

/** The bar a chart of `days` days reads best with: a day up to a quarter, a week up to three years. */
export function autoUnit(days) {
  if (days <= 92) return "day";
  if (days <= 3 * 366) return "week";
  return "month";
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class FolderUsage {
  /** `lib`: the package (`UsageLedger`, `sessionUsage`) of the host. */
  constructor(lib) {
    this.lib = lib;
    this.ledger = new lib.UsageLedger();
    this.files = [];
    this.links = new Map();
    this.skipped = [];
  }

  /**
   * Adds one file: `key` is the path other files' `parentSession` name it by
   * (what links forks and copies to it), `link` the path the page opens it by.
   * A file that is not a session is listed in `skipped`, never thrown.
   */
  add(key, link, bytes) {
    try {
      const report = this.lib.sessionUsage(bytes, { records: false });
      this.ledger.add(key, bytes);
      this.links.set(key, link);
      this.files.push({
        key,
        link,
        parentSession: report.parentSession ?? null,
        // Branches are the leaves of a session that forks; a file of one
        // leaf is a session, already listed as one.
        leaves: report.leaves.length > 1 ? report.leaves : [],
      });
    } catch (error) {
      this.skipped.push({ path: link, error: String(error?.message ?? error).split("\n")[0] });
    }
  }

  /**
   * The view over `since`..`until` (local dates `YYYY-MM-DD`, both optional)
   * in `timeZone` (default: the host's): `{ first, last, unit, rows, total,
   * models, sessions, branches, files, copies, skipped }`. `unit` is `bars`
   * ("day", "week", "month"), or with "auto" the one `autoUnit` picks for
   * the range. `rows` are the ledger's rows by `unit`; `first`/`last` the
   * first and last day with spend in the whole folder. `top` sessions and
   * branches, most expensive first; a branch is a leaf of a forking session,
   * its cost the part below its last fork (all time: a branch has no date).
   */
  view({ since, until, timeZone, bars = "auto", top = 10 } = {}) {
    const zone = timeZone ? { timeZone } : {};
    const days = this.ledger
      .summary({ by: "day", ...zone })
      .rows.map((r) => r.key)
      .filter((k) => DATE.test(k));
    const first = days[0] ?? null;
    const last = days[days.length - 1] ?? null;
    const lo = since && (!first || since > first) ? since : first;
    const hi = until && (!last || until < last) ? until : last;
    const unit = bars === "auto" ? autoUnit(daysBetween(lo, hi)) : bars;
    const range = { ...zone, ...(since ? { since } : {}), ...(until ? { until } : {}) };
    const chart = this.ledger.summary({ by: unit, ...range });
    const models = this.ledger.summary({ by: "model", ...range });
    const sessions = this.ledger.summary({ by: "session", ...range });
    return {
      since: since ?? null,
      until: until ?? null,
      first,
      last,
      unit,
      rows: chart.rows,
      total: chart.total,
      files: chart.files,
      copies: chart.copies,
      models: models.rows.map((r) => ({ model: r.key, usage: r.usage })),
      sessions: sessions.rows.slice(0, top).map((r) => ({ path: this.links.get(r.key) ?? r.key, usage: r.usage })),
      branches: this.branches(top),
      skipped: this.skipped,
    };
  }

  /**
   * The `top` most expensive branches by their own cost. Forks and copies of
   * one session repeat its leaves under the same ids: within one lineage
   * (files linked by `parentSession`) a leaf is listed once, from the file
   * nearest the lineage's root.
   */
  branches(top) {
    const items = this.files.map((f) => ({ path: f.key, file: f, info: { parentSession: f.parentSession } }));
    const out = [];
    for (const [n, tree] of buildLineage(items).entries()) {
      const seen = new Set();
      // Breadth first: a source before its forks and copies.
      for (let level = [tree]; level.length; level = level.flatMap((node) => node.children)) {
        for (const { item } of level) {
          for (const leaf of item.file.leaves) {
            if (seen.has(leaf.entryId) || !(leaf.own.records > 0)) continue;
            seen.add(leaf.entryId);
            out.push({ path: item.file.link, leafId: leaf.entryId, own: leaf.own, usage: leaf.path, lineage: n });
          }
        }
      }
    }
    out.sort((a, b) => b.own.cost - a.own.cost || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out.slice(0, top).map(({ lineage, ...b }) => b);
  }

  free() {
    this.ledger.free();
  }
}
