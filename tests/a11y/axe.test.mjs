// axe-core (WCAG 2.1 A and AA rules) on every state of the viewer, in the
// light and the dark theme: each tab, every filter's graph, the compare view,
// the paste and share dialogs, the shared HTML file the share dialog makes,
// and `session-tree serve`'s session list, search results and an open
// session (and the list on a phone). Any violation fails, with the rule and
// the element named.
//
//   node --test tests/a11y/        (after `make build` and the tests/ npm install)

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { writeFolder } from "../serve/folder.mjs";
import { startServe } from "../serve/helpers.mjs";
import { envSeed } from "../shared/rng.mjs";
import { axeViolations, leavesOf, sidewaysScroll, viewerSite } from "./axe.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
mkdirSync(OUT, { recursive: true });
const SAMPLE = readFileSync(here("../../www/sample.jsonl"), "utf8");
const TABS = ["context", "system", "composition", "entry", "stats", "diagnostics"];
// The system's scheme, and the toggle's dark theme over a light system.
const THEMES = [
  { name: "light", scheme: "light", toggle: null },
  { name: "dark", scheme: "dark", toggle: null },
  { name: "dark (toggle)", scheme: "light", toggle: "dark" },
];

/** The viewer (www/, the package under /pkg) on a static server, and Chromium. */
const site = viewerSite();

async function openViewer(theme, hash = "") {
  const page = await site.browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  await page.emulateMedia({ colorScheme: theme.scheme });
  if (theme.toggle) {
    await page.addInitScript((t) => localStorage.setItem("session-tree.theme", t), theme.toggle);
  }
  await page.goto(site.server.url + hash);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector("[data-testid=context]")?.dataset.leaf);
  return page;
}

/** Lets the graph draw (it renders on animation frames) and transitions end. */
const settle = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)))));

/**
 * Runs axe on `state` and adds what it finds to `found` (one line per node);
 * a test checks all its states, then asserts that nothing was found, so one
 * run lists every violation.
 */
async function check(page, state, found) {
  await settle(page);
  for (const line of await axeViolations(page)) found.push(`${state}: ${line}`);
}

const assertNone = (found) =>
  assert.deepEqual(found, [], `${found.length} WCAG 2.1 A/AA violations\n${found.join("\n")}`);

for (const theme of THEMES) {
  test(`viewer, ${theme.name}: every tab and every filter`, async () => {
    const found = [];
    const page = await openViewer(theme);
    for (const tab of TABS) {
      await page.click(`.tab[data-tab=${tab}]`);
      if (tab === "entry") await page.waitForSelector("#panel-entry *");
      await check(page, `tab ${tab}`, found);
    }
    await page.click(".tab[data-tab=context]");
    const filters = await page.$$eval("#filters [data-filter]", (els) => els.map((e) => e.dataset.filter));
    for (const filter of filters) {
      await page.evaluate((f) => window.__viewer.setFilter(f), filter);
      await check(page, `filter ${filter}`, found);
    }
    await page.close();
    assertNone(found);
  });

  test(`viewer, ${theme.name}: compare view, paste and share dialogs, the shared file`, async () => {
    const found = [];
    const [a, b] = leavesOf(SAMPLE);
    const page = await openViewer(theme, `#compare=${encodeURIComponent(a)},${encodeURIComponent(b)}`);
    await page.waitForSelector("[data-testid=compare]:not([hidden]) [data-testid=side-b]");
    await check(page, "compare view", found);
    await page.click("[data-testid=compare-close]");
    await page.waitForSelector("[data-testid=compare]", { state: "hidden" });

    await page.click("#paste-button");
    await page.waitForSelector("#paste-dialog[open]");
    await check(page, "paste dialog", found);
    await page.keyboard.press("Escape");

    await page.click("[data-testid=share]");
    await page.waitForSelector("#share-dialog[open]");
    await page.fill("#share-own", "forecast");
    await page.click("[data-testid=share-add]");
    await check(page, "share dialog", found);
    const [file] = await Promise.all([page.waitForEvent("download"), page.click("[data-testid=share-download]")]);
    const saved = `${OUT}shared-${theme.name.replace(/\W+/g, "-")}.html`;
    await file.saveAs(saved);
    await page.close();

    const shared = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await shared.emulateMedia({ colorScheme: theme.scheme });
    await shared.goto(`file://${saved}`);
    await shared.waitForSelector("[data-testid=context] [data-role]");
    await check(shared, "shared file, context", found);
    for (const tab of await shared.$$eval("[role=tab]", (els) => els.map((e) => e.textContent))) {
      await shared.getByRole("tab", { name: tab }).click();
      await check(shared, `shared file, tab ${tab}`, found);
    }
    await shared.close();
    assertNone(found);
  });
}

test("serve: the session list, search results and an open session, light and dark", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "st-a11y-"));
  const seed = envSeed("A11Y_SEED");
  writeFolder(dir, { count: 24, seed, plant: "zorblax quindle" });
  const serve = await startServe(dir);
  const found = [];
  try {
    for (const scheme of ["light", "dark"]) {
      const page = await site.browser.newPage({ viewport: { width: 1300, height: 900 } });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(serve.url);
      await page.waitForFunction(
        () => document.querySelectorAll("[data-testid=session-list] [data-session-path]").length >= 24,
        null,
        { timeout: 30_000 },
      );
      await check(page, `serve list, ${scheme}`, found);
      await page.fill("[data-testid=search]", "zorblax");
      await page.waitForSelector("[data-testid=search-results] .result");
      await check(page, `serve search results, ${scheme}`, found);
      await page.click("[data-testid=search-results] .result a");
      await page.waitForFunction(() => document.querySelector("[data-testid=context]")?.dataset.leaf, null, {
        timeout: 20_000,
      });
      await check(page, `serve open session, ${scheme}`, found);
      await page.close();
    }
    // The list and the results on a phone: nothing scrolls sideways.
    const phone = await site.browser.newContext({
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    const page = await phone.newPage();
    await page.goto(serve.url);
    await page.waitForFunction(
      () => document.querySelectorAll("[data-testid=session-list] [data-session-path]").length >= 24,
      null,
      { timeout: 30_000 },
    );
    assert.equal(await sidewaysScroll(page), null, "the session list on a phone");
    await page.fill("[data-testid=search]", "zorblax");
    await page.waitForSelector("[data-testid=search-results] .result");
    assert.equal(await sidewaysScroll(page), null, "search results on a phone");
    await check(page, "serve search results, phone", found);
    await phone.close();
    assertNone(found);
  } finally {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
