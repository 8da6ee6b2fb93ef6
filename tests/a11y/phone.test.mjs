// The viewer and the shared file on a phone: 390 × 844 with touch. Nothing
// scrolls sideways; the graph's rows are on screen and a tap on one makes it
// the leaf; the leaf's context can be scrolled to; the header's actions sit
// behind one menu button. axe (WCAG 2.1 A and AA) finds nothing there either.
//
//   node --test tests/a11y/phone.test.mjs
//
// UPDATE_SCREENSHOT=1 also refreshes the README's phone picture (www/screenshot-phone.png).

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { axeViolations, leavesOf, sidewaysScroll, viewerSite } from "./axe.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
mkdirSync(OUT, { recursive: true });
const SAMPLE = readFileSync(here("../../www/sample.jsonl"), "utf8");
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

/** The viewer (www/, the package under /pkg) on a static server, and Chromium. */
const site = viewerSite();

/** The rows of `selector` wholly inside the window, each `{ id, top, height }`. */
const rowsOnScreen = (page, selector) =>
  page.$$eval(selector, (els) =>
    els
      .map((e) => ({ id: e.dataset.entryId, ...e.getBoundingClientRect().toJSON() }))
      .filter((r) => r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth)
      .map(({ id, top, height }) => ({ id, top, height })),
  );

/** Whether `selector`'s first element, scrolled into view, lies in the window. */
async function reachable(page, selector) {
  const el = page.locator(selector).first();
  await el.scrollIntoViewIfNeeded();
  const box = await el.boundingBox();
  const { width, height } = page.viewportSize();
  return box !== null && box.height > 0 && box.y < height && box.y + box.height > 0 && box.x >= 0 && box.x < width;
}

test("the viewer on a phone: no sideways scroll, rows to tap, the context below, actions in a menu", async () => {
  const context = await site.browser.newContext({ ...PHONE, acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(site.server.url);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector("[data-testid=context]")?.dataset.leaf);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

  assert.equal(await sidewaysScroll(page), null, "nothing scrolls sideways");
  const rows = await rowsOnScreen(page, "#graph .row[data-entry-id]");
  assert.ok(rows.length >= 8, `graph rows on screen: ${rows.length}`);
  assert.ok(
    rows.every((r) => r.height >= 24),
    "rows are tall enough to tap",
  );

  // The header: one menu button; its actions are folded until it is tapped.
  assert.equal(await page.isVisible("#share-button"), false);
  const header = await page.locator(".topbar").boundingBox();
  assert.ok(header.height < 844 * 0.15, `the header takes ${header.height}px`);
  await page.tap("#menu-button");
  assert.equal(await page.getAttribute("#menu-button", "aria-expanded"), "true");
  assert.equal(await page.isVisible("#share-button"), true);
  assert.equal(await sidewaysScroll(page), null, "the open menu stays inside the window");
  await page.screenshot({ path: `${OUT}phone-menu.png` });
  await page.tap("#status");
  assert.equal(await page.isVisible("#share-button"), false, "a tap outside folds the menu");
  await page.evaluate(() => window.scrollTo(0, 0));

  // Tap a leaf other than the current one: it becomes the leaf, and its context is below.
  const current = await page.evaluate(() => window.__viewer.state.leafId);
  const onScreen = new Set((await rowsOnScreen(page, "#graph .row[data-entry-id]")).map((r) => r.id));
  const target = leavesOf(SAMPLE).find((id) => id !== current && onScreen.has(id)) ?? [...onScreen].at(-1);
  await page.tap(`#graph .row[data-entry-id="${target}"]`);
  await page.waitForFunction((id) => document.querySelector("[data-testid=context]").dataset.leaf === id, target);
  assert.equal(await page.getAttribute(`#graph .row[data-entry-id="${target}"]`, "aria-selected"), "true");
  assert.ok(await reachable(page, "[data-testid=context] [data-role]"), "the leaf's context scrolls into view");
  assert.equal(await sidewaysScroll(page), null);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${OUT}phone.png` });
  if (process.env.UPDATE_SCREENSHOT === "1") copyFileSync(`${OUT}phone.png`, here("../../www/screenshot-phone.png"));

  // Every tab fits the width too.
  for (const tab of ["system", "composition", "entry", "stats", "diagnostics", "context"]) {
    await page.locator(`.tab[data-tab=${tab}]`).tap();
    assert.equal(await sidewaysScroll(page), null, `tab ${tab}`);
  }
  const found = await axeViolations(page);
  assert.deepEqual(found, [], found.join("\n"));

  // The share file, made here and opened on the phone.
  await page.tap("#menu-button");
  await page.tap("[data-testid=share]");
  await page.waitForSelector("#share-dialog[open]");
  assert.equal(await sidewaysScroll(page), null, "the share dialog fits");
  const [file] = await Promise.all([page.waitForEvent("download"), page.tap("[data-testid=share-download]")]);
  const saved = `${OUT}phone-shared.html`;
  await file.saveAs(saved);

  const shared = await context.newPage();
  await shared.goto(`file://${saved}`);
  await shared.waitForSelector("[data-testid=context] [data-role]");
  assert.equal(await sidewaysScroll(shared), null, "the shared file does not scroll sideways");
  const sharedRows = await rowsOnScreen(shared, "[data-testid=share-rows] [data-entry-id]");
  assert.ok(sharedRows.length >= 5, `shared rows on screen: ${sharedRows.length}`);
  const pick = sharedRows[1].id;
  await shared.tap(`[data-testid=share-rows] [data-entry-id="${pick}"]`);
  await shared.waitForSelector(`[data-testid=share-rows] [data-entry-id="${pick}"].current`);
  assert.ok(await reachable(shared, "pre, [data-testid=context] [data-role]"), "the entry's detail scrolls into view");
  await shared.getByRole("tab", { name: "Context at the leaf" }).tap();
  assert.ok(await reachable(shared, "[data-testid=context] [data-role]"), "the context scrolls into view");
  assert.equal(await sidewaysScroll(shared), null);
  await shared.evaluate(() => window.scrollTo(0, 0));
  await shared.screenshot({ path: `${OUT}phone-shared.png` });
  const sharedFound = await axeViolations(shared);
  assert.deepEqual(sharedFound, [], sharedFound.join("\n"));
  await context.close();
});

// 360 px, the narrowest phone we promise; and a 1280 × 900 window at 200% zoom (640 × 450 CSS px).
for (const [name, size] of [
  ["360 × 740 with touch", { viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true }],
  ["1280 × 900 at 200% zoom", { viewport: { width: 640, height: 450 }, deviceScaleFactor: 2 }],
]) {
  test(`${name}: every tab and the compare view fit the width; rows, menu and context are there`, async () => {
    const [a, b] = leavesOf(SAMPLE);
    const context = await site.browser.newContext(size);
    const page = await context.newPage();
    await page.goto(site.server.url);
    await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
    await page.waitForFunction(() => document.querySelector("[data-testid=context]")?.dataset.leaf);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const rows = await rowsOnScreen(page, "#graph .row[data-entry-id]");
    assert.ok(rows.length >= 5, `graph rows on screen: ${rows.length}`);
    assert.equal(await page.isVisible("#menu-button"), true);
    assert.equal(await page.isVisible("#share-button"), false);
    for (const tab of ["context", "system", "composition", "entry", "stats", "diagnostics"]) {
      await page.click(`.tab[data-tab=${tab}]`);
      assert.equal(await sidewaysScroll(page), null, `tab ${tab}`);
      assert.ok(await reachable(page, `#panel-${tab}`), `the ${tab} panel scrolls into view`);
    }
    await page.click(".tab[data-tab=context]");
    assert.ok(await reachable(page, "[data-testid=context] [data-role]"), "the context scrolls into view");
    await page.evaluate(
      ([a, b]) => {
        location.hash = `#compare=${encodeURIComponent(a)},${encodeURIComponent(b)}`;
      },
      [a, b],
    );
    await page.waitForSelector("[data-testid=compare]:not([hidden]) [data-testid=side-b]");
    assert.equal(await sidewaysScroll(page), null, "the compare view");
    const found = await axeViolations(page);
    assert.deepEqual(found, [], found.join("\n"));
    await context.close();
  });
}
