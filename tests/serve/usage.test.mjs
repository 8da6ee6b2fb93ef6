// The Usage view over a folder that pi 1.6.0's own SessionManager writes
// (tests/shared/usage-folder.mjs: forks, branched copies, usage entries,
// compactions and branch summaries that carry usage, nested folders, several
// days), in Chromium, in `session-tree serve` and in the static page's "Open
// folder…": the totals shown equal `session-tree usage --json`'s, over the
// whole folder and over a range picked with the range picker; a bar is drawn
// for every day, each as tall as that day's cost; the most expensive session
// and branch are the command's and open the session. USAGE_SEED replays a
// run; UPDATE_SCREENSHOT=1 refreshes the README's pictures.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Session } from "session-tree";
import { startStaticServer } from "../../tools/static-server.mjs";
import { axeViolations } from "../a11y/axe.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { envSeed } from "../shared/rng.mjs";
import { generateUsageFolder } from "../shared/usage-folder.mjs";
import { BIN, startServe } from "./helpers.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("../viewer/output/");
const seed = envSeed("USAGE_SEED");
const replay = `(USAGE_SEED=${seed})`;
const ZONE = "UTC";
const FIELDS = ["cost", "totalTokens", "input", "output", "cacheRead", "cacheWrite", "records"];

let root;
let serve;
let browser;
before(async () => {
  root = mkdtempSync(path.join(tmpdir(), "st-usage-view-"));
  generateUsageFolder(root, seed, { sessions: 10 });
  serve = await startServe(root);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await serve?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** `session-tree usage ROOT --json …` run as a command. */
const command = (...args) =>
  JSON.parse(
    execFileSync(process.execPath, [BIN, "usage", root, "--json", "--timezone", ZONE, ...args], { encoding: "utf8" }),
  );

/** What the page shows: each total's number, the bars' keys and costs, the lists' links. */
async function shown(page) {
  await page.waitForSelector("[data-testid=usage-view][data-ready=true]", { timeout: 60_000 });
  return page.evaluate((fields) => {
    const totals = {};
    for (const f of fields) totals[f] = Number(document.querySelector(`[data-testid=usage-total-${f}]`).dataset.value);
    const bars = [...document.querySelectorAll("[data-testid=usage-chart] .usage-bar")].map((g) => ({
      key: g.dataset.key,
      cost: Number(g.dataset.cost),
      height: [...g.querySelectorAll(".usage-seg")].reduce((a, r) => a + Number(r.getAttribute("height")), 0),
      segments: g.querySelectorAll(".usage-seg").length,
    }));
    const links = (id) =>
      [...document.querySelectorAll(`[data-testid=${id}] a`)].map((a) => ({
        path: a.dataset.sessionPath,
        entryId: a.dataset.entryId ?? null,
        own: Number(a.dataset.cost),
      }));
    return { totals, bars, sessions: links("usage-sessions"), branches: links("usage-branches") };
  }, FIELDS);
}

function sameTotals(view, cli, what) {
  for (const f of FIELDS) {
    const want = cli.total[f === "records" ? "records" : f];
    if (f === "cost")
      assert.ok(Math.abs(view.totals.cost - want) < 1e-9, `${what}: cost ${view.totals.cost} ≠ ${want} ${replay}`);
    else assert.equal(view.totals[f], want, `${what}: ${f} ${replay}`);
  }
}

/** Every day from the first to the last of the command's rows has its bar, as tall as its cost. */
function sameBars(view, cli, what) {
  const rows = new Map(cli.rows.map((r) => [r.key, r]));
  const keys = cli.rows.map((r) => r.key).filter((k) => /^\d{4}-\d{2}-\d{2}$/.test(k));
  const span = (Date.parse(keys.at(-1)) - Date.parse(keys[0])) / 86_400_000 + 1;
  assert.equal(view.bars.length, span, `${what}: one bar per day ${replay}`);
  assert.ok(
    view.bars.some((b) => b.segments > 0),
    `${what}: bars are drawn ${replay}`,
  );
  const tallest = Math.max(...view.bars.map((b) => b.height));
  const dearest = Math.max(...view.bars.map((b) => b.cost));
  const most = view.bars.find((b) => b.height === tallest).segments;
  for (const bar of view.bars) {
    const want = rows.get(bar.key)?.cost ?? 0;
    assert.ok(
      Math.abs(bar.cost - want) < 1e-9,
      `${what}: ${bar.key} costs ${bar.cost}, the command says ${want} ${replay}`,
    );
    assert.equal(
      bar.segments,
      rows.get(bar.key)?.models.filter((m) => m.cost > 0).length ?? 0,
      `${what}: ${bar.key}'s models`,
    );
    // Each segment is drawn rounded to 0.01 px and at least 0.5 px tall; the tallest bar, the
    // scale here, is drawn so too.
    assert.ok(
      Math.abs(bar.height - (tallest * bar.cost) / dearest) <= 0.51 * (bar.segments + most) + 0.02,
      `${what}: ${bar.key}'s height ${replay}`,
    );
  }
}

test("serve: the Usage view's totals, bars and lists are the command's", async () => {
  const cli = command();
  assert.ok(cli.total.records > 0 && cli.copies > 0, `the folder has paid requests and copies ${replay}`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  await page.goto(`${serve.url}?view=usage`);
  const view = await shown(page);
  sameTotals(view, cli, "serve, all time");
  sameBars(view, cli, "serve, all time");

  // The most expensive session is the command's first by session.
  const bySession = command("--by", "session");
  const top = path.relative(root, bySession.rows[0].key).split(path.sep).join("/");
  assert.equal(view.sessions[0].path, top, `the most expensive session ${replay}`);
  assert.ok(view.branches.length > 0, `the folder has branches ${replay}`);

  // A custom range: the middle days of the folder.
  const days = cli.rows.map((r) => r.key).filter((k) => /^\d{4}-/.test(k));
  const since = days[1];
  const until = days[days.length - 2];
  await page.fill("[data-testid=usage-since]", since);
  await page.dispatchEvent("[data-testid=usage-since]", "change");
  await page.fill("[data-testid=usage-until]", until);
  await page.dispatchEvent("[data-testid=usage-until]", "change");
  await page.waitForFunction(
    ([s, u]) => {
      const bars = [...document.querySelectorAll("[data-testid=usage-chart] .usage-bar")];
      return (
        document.querySelector("[data-testid=usage-view]")?.dataset.ready === "true" &&
        bars[0]?.dataset.key === s &&
        bars.at(-1)?.dataset.key === u
      );
    },
    [since, until],
    { timeout: 20_000 },
  );
  const ranged = await shown(page);
  const cliRanged = command("--since", since, "--until", until);
  sameTotals(ranged, cliRanged, `serve, ${since}..${until}`);
  sameBars(ranged, cliRanged, `serve, ${since}..${until}`);

  // Pictures in both themes (the README's, with UPDATE_SCREENSHOT=1).
  mkdirSync(OUT, { recursive: true });
  await page.selectOption("[data-testid=usage-preset]", "all");
  await page.waitForSelector("[data-testid=usage-view][data-ready=true]");
  await page.evaluate(() => document.activeElement?.blur());
  const shot = async (name) => {
    await page.locator("#folder-view").screenshot({ path: `${OUT}${name}` });
    if (process.env.UPDATE_SCREENSHOT === "1") copyFileSync(`${OUT}${name}`, here(`../../www/${name}`));
  };
  // And WCAG 2.1 AA in both themes (axe-core, as tests/a11y/ runs it).
  await page.emulateMedia({ colorScheme: "light" });
  await shot("screenshot-usage.png");
  assert.deepEqual(await axeViolations(page), [], `axe, light ${replay}`);
  await page.emulateMedia({ colorScheme: "dark" });
  await shot("screenshot-usage-dark.png");
  assert.deepEqual(await axeViolations(page), [], `axe, dark ${replay}`);
  await page.emulateMedia({ colorScheme: "light" });

  // A branch link opens its session at its leaf; Back comes back to the view.
  const branch = view.branches[0];
  await page.click(`[data-testid=usage-branches] a[data-entry-id="${branch.entryId}"]`);
  await page.waitForFunction((id) => window.__viewer?.state.leafId === id, branch.entryId, { timeout: 20_000 });
  assert.equal(new URL(page.url()).searchParams.get("session"), branch.path);
  // The graph shows the same branch's cost on its leaf when asked: the view's figure, from the
  // same core. A leaf that is a usage entry is no row (pi's /tree shows none): its branch's cost
  // is on the entry above its usage entries, added to any other such branch that ends there.
  await page.check("[data-testid=branch-costs]");
  const text = readFileSync(path.join(root, branch.path), "utf8");
  const entries = new Map(
    text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type !== "session")
      .map((e) => [e.id, e]),
  );
  const rowOf = (id) => {
    let at = id;
    while (entries.get(at)?.type === "usage") at = entries.get(at).parentId;
    return at;
  };
  const session = Session.open(text);
  const leaves = session.usage(null, { records: false }).leaves;
  session.free?.();
  const row = rowOf(branch.entryId);
  const want = leaves.filter((l) => rowOf(l.entryId) === row).reduce((sum, l) => sum + l.own.cost, 0);
  assert.ok(want >= branch.own - 1e-12, `the branch is among the row's ${replay}`);
  const tag = page.locator(`.row[data-entry-id="${row}"] .tag.cost`);
  await tag.waitFor({ timeout: 10_000 });
  assert.ok(Math.abs(Number(await tag.getAttribute("data-cost")) - want) < 1e-9, `the leaf's cost tag ${replay}`);
  await page.goBack();
  await page.waitForSelector("[data-testid=usage-view][data-ready=true]", { state: "visible" });
  assert.deepEqual(problems, []);
  await page.close();
});

test("Open folder…: the Usage view counted in the page equals the command", async () => {
  const cli = command();
  const server = await startStaticServer({ root: here("../../www/"), mounts: { "/pkg": here("../../pkg/") } });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
    const problems = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(server.url);
    await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
    await page.setInputFiles("[data-testid=folder-input]", root);
    await page.click("[data-testid=folder-show-usage]");
    const view = await shown(page);
    // Copies are linked by the names their headers give their sources: counted once here too.
    sameTotals(view, cli, "Open folder…");
    sameBars(view, cli, "Open folder…");
    const bySession = command("--by", "session");
    assert.equal(view.sessions[0].path, path.relative(root, bySession.rows[0].key).split(path.sep).join("/"));
    await page.click("[data-testid=usage-sessions] a");
    await page.waitForFunction(() => window.__viewer?.opened >= 2, null, { timeout: 20_000 });
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
  }
});
