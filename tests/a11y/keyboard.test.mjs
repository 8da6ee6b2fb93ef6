// The viewer with the keyboard alone: no mouse event reaches the page (a
// listener fails the test on any), yet it opens a session, moves to a leaf,
// reads its context, compares it with a second leaf picked with the arrows
// and Enter, and shares the branch with a finding unticked.
//
//   node --test tests/a11y/keyboard.test.mjs

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { getTree } from "session-tree";
import { viewerSite } from "./axe.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
mkdirSync(OUT, { recursive: true });
const SAMPLE = readFileSync(here("../../www/sample.jsonl"), "utf8");

/** The viewer (www/, the package under /pkg) on a static server, and Chromium. */
const site = viewerSite();

/** The leaves of the sample, and each one's path from the root (ids). */
function leafPaths(text) {
  const out = new Map();
  const walk = (node, path) => {
    const here = [...path, node.entry.id];
    if (node.children.length === 0) out.set(node.entry.id, here);
    for (const c of node.children) walk(c, here);
  };
  for (const root of getTree(text)) walk(root, []);
  return out;
}

/** What has the focus: its id, test id, role and text. */
const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return { id: a?.id, testid: a?.dataset?.testid, role: a?.getAttribute("role"), text: a?.textContent?.trim() };
  });

/** Presses Tab until `match(focused)` holds; fails after `max` presses. */
async function tabTo(page, match, what, { max = 60, back = false } = {}) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const f = await focused(page);
    if (match(f)) return f;
  }
  throw new Error(`Tab never reached ${what}`);
}

/** The cursor's row (the graph's active descendant). */
const cursorRow = (page) =>
  page.evaluate(() => {
    const g = document.getElementById("graph");
    const row = document.getElementById(g.getAttribute("aria-activedescendant") ?? "");
    return row ? { id: row.dataset.entryId, selected: row.getAttribute("aria-selected") } : null;
  });

/**
 * Waits until the graph has drawn what the last key asked for: it draws, and sets
 * `aria-activedescendant`, on the next animation frame, so reading it at once after a key
 * can see the row before (on a loaded machine the arrows then ran past their row).
 */
const drawn = (page) =>
  page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));

/** Moves the graph's cursor with the arrow keys until it is on `id`. */
async function arrowTo(page, id) {
  await page.keyboard.press("Home");
  for (let i = 0; i < 400; i++) {
    await drawn(page);
    if ((await cursorRow(page))?.id === id) return;
    await page.keyboard.press("ArrowDown");
  }
  throw new Error(`the arrows never reached ${id}`);
}

test("open, move to a leaf, read its context, compare, share: the keyboard alone", async () => {
  const leaves = leafPaths(SAMPLE);
  const [first, second] = [...leaves.keys()];
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await page.addInitScript(() => {
    window.__mouse = [];
    for (const type of ["mousedown", "mouseup", "click", "pointerdown", "dblclick", "contextmenu"]) {
      window.addEventListener(
        type,
        (e) => {
          // A click the keyboard makes (Enter or Space on a button) has no pointer: detail 0.
          if (type === "click" && e.detail === 0) return;
          window.__mouse.push(type);
        },
        true,
      );
    }
  });
  await page.goto(site.server.url);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });

  // Paste a session: "Paste" opens a dialog with the focus in its text box; Tab, Enter opens it.
  await tabTo(page, (f) => f.id === "paste-button", "Paste");
  await page.keyboard.press("Enter");
  assert.equal((await focused(page)).id, "paste-text");
  await page.keyboard.insertText(SAMPLE.replace("Cache forecast API responses", "Pasted by keyboard"));
  await tabTo(page, (f) => f.id === "paste-open", "Open", { max: 3 });
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.__viewer.opened >= 2, null, { timeout: 20_000 });
  assert.match(await page.textContent("#file-name"), /Pasted by keyboard/);
  assert.equal((await focused(page)).id, "paste-button", "the focus is back on Paste");

  // "Open folder…" is a tab stop (its picker is the system's).
  await tabTo(page, (f) => f.text === "Open folder…", "Open folder…", { back: true });

  // Open a session: "Open file…" with Enter opens the file picker.
  // Waiting for the chooser turns on Playwright's interception of it, by a message of its own
  // to the browser: start it before the Tabs, so it is on before Enter (else the page's
  // chooser can open unseen, which made this test fail at times).
  const choosing = page.waitForEvent("filechooser");
  await tabTo(page, (f) => f.id === "open-button", "Open file…");
  await page.keyboard.press("Enter");
  const chooser = await choosing;
  const file = `${OUT}keyboard.jsonl`;
  writeFileSync(file, SAMPLE);
  await chooser.setFiles(file);
  await page.waitForFunction(() => window.__viewer.opened >= 3, null, { timeout: 20_000 });
  assert.match(await page.textContent("#file-name"), /keyboard\.jsonl/);

  // The theme: Enter on the toggle steps auto → light → dark.
  await tabTo(page, (f) => f.testid === "theme", "Theme");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");

  // The filters: one tab stop; the arrows check the next one. A filter's rows come from the
  // worker after the filter is set, and the graph then moves its cursor to the leaf: wait for
  // the other filter's rows, then for the default's again, before the arrows move the cursor.
  const defaultRows = await page.evaluate(() => window.__viewer.visibleIds().join());
  await tabTo(page, (f) => f.role === "radio", "the filters");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction((rows) => window.__viewer.visibleIds().join() !== rows, defaultRows);
  const next = await page.evaluate(() => window.__viewer.state.filter);
  assert.notEqual(next, "default");
  assert.equal(await page.getAttribute(`#filters [data-filter="${next}"]`, "aria-checked"), "true");
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction(
    (rows) => window.__viewer.state.filter === "default" && window.__viewer.visibleIds().join() === rows,
    defaultRows,
  );
  await drawn(page);

  // Move to the first leaf in the graph, and make it the leaf with Enter.
  await tabTo(page, (f) => f.id === "graph", "the graph");
  await arrowTo(page, first);
  await page.keyboard.press("Enter");
  await page.waitForFunction((id) => document.querySelector("[data-testid=context]").dataset.leaf === id, first);
  await drawn(page);
  assert.deepEqual(await cursorRow(page), { id: first, selected: "true" });
  // What a screen reader hears of rows (the accessibility tree's name): kind, text and time,
  // then whether the row is the selected leaf or on the path to it.
  const heard = async (id) => {
    const row = page.locator(`.row[data-entry-id="${id}"]`);
    const [kind, text, time] = await row.evaluate((r) =>
      [".kind-badge", ".row-text", ".row-time"].map((c) => r.querySelector(c).textContent),
    );
    return { kind, text, time, snapshot: await row.ariaSnapshot() };
  };
  const leafRow = await heard(first);
  // The name is on the first line, `- option "<name>" [selected]` (YAML-quoted when it holds a colon).
  const nameOf = (snapshot) => /option "(.*)"/.exec(snapshot.split("\n")[0])?.[1].replace(/\s+/g, " ") ?? "";
  const squash = (t) => t.replace(/\s+/g, " ").trim();
  const leafName = nameOf(leafRow.snapshot);
  assert.ok(leafName.startsWith(`${leafRow.kind} : ${squash(leafRow.text).slice(0, 20)}`), leafName);
  assert.ok(leafName.endsWith(`${leafRow.time} , selected leaf`), leafName);
  assert.match(leafRow.snapshot, /\[selected\]/);
  const parentRow = await heard(leaves.get(first).at(-2));
  assert.ok(nameOf(parentRow.snapshot).endsWith(`${parentRow.time} , on the path`), parentRow.snapshot);

  // Read its context: Tab reaches the tab list, then the panel (a list of messages).
  await tabTo(page, (f) => f.role === "tab", "the tabs");
  await page.keyboard.press("Home");
  assert.equal((await focused(page)).id, "tab-context");
  await page.keyboard.press("Tab");
  assert.equal((await focused(page)).id, "panel-context");
  const items = await page.$$eval("[data-testid=context] > [role=listitem]", (els) =>
    els.map((e) => e.getAttribute("aria-label")),
  );
  assert.ok(items.length > 3, `context messages as list items: ${items.length}`);
  assert.match(items[0], /message, 1 of \d+/);
  // The arrows move between the tabs and show each.
  await tabTo(page, (f) => f.role === "tab", "the tabs", { back: true });
  await page.keyboard.press("ArrowRight");
  assert.equal((await focused(page)).id, "tab-system");
  assert.equal(await page.isVisible("#panel-system"), true);
  await page.keyboard.press("Home");

  // Compare: "Compare with…", then the arrows to the second leaf and Enter, no modifier key.
  await tabTo(page, (f) => f.testid === "compare-button", "Compare with…", { back: true });
  await page.keyboard.press("Enter");
  assert.equal((await focused(page)).id, "graph", "armed, the graph takes the focus");
  await arrowTo(page, second);
  await page.keyboard.press("Enter");
  await page.waitForSelector("[data-testid=compare]:not([hidden]) [data-testid=side-b]");
  assert.equal(await page.getAttribute("[data-testid=compare]", "data-a"), first);
  assert.equal(await page.getAttribute("[data-testid=compare]", "data-b"), second);
  // Close it: the focus goes back to the graph, the leaf unchanged.
  await tabTo(page, (f) => f.testid === "compare-close", "Close");
  await page.keyboard.press("Enter");
  await page.waitForSelector("[data-testid=compare]", { state: "hidden" });
  assert.equal((await focused(page)).id, "graph");
  assert.equal(await page.evaluate(() => window.__viewer.state.leafId), first);

  // Share the branch: untick the first finding with Space, tick it and untick it again, download.
  await tabTo(page, (f) => f.testid === "share", "Share…", { back: true });
  await page.keyboard.press("Enter");
  await page.waitForSelector("#share-dialog[open]");
  // The dialog focuses its first control: the first finding's tickbox.
  assert.ok((await page.$$("#share-findings input[type=checkbox]")).length > 0, "the sample has findings");
  assert.equal(await page.evaluate(() => document.activeElement.type), "checkbox");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Space"); // unticked, ticked, unticked
  assert.equal(await page.evaluate(() => document.activeElement.checked), false);
  const unticked = await page.evaluate(
    () => document.activeElement.closest("li").querySelector(".finding-text").textContent,
  );
  assert.match(await page.textContent("#share-summary"), /^\d+ of \d+ will be replaced/);
  await tabTo(page, (f) => f.testid === "share-download", "Download shared HTML");
  const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  const html = readFileSync(await download.path(), "utf8");
  assert.match(html, new RegExp(first));
  assert.ok(html.includes(unticked), "the unticked finding stays in the file");
  await page.waitForFunction(() => !document.querySelector("#share-dialog").open);
  assert.equal((await focused(page)).testid, "share", "the focus returns to Share…");

  assert.deepEqual(await page.evaluate(() => window.__mouse), [], "no mouse event reached the page");
  await page.close();
});
