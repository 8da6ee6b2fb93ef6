// Helpers the viewer's Playwright suites share (not a test file itself).

import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { startStaticServer } from "../../tools/static-server.mjs";
import { launchChromium } from "../browser/chromium.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The viewer as `make demo` serves it (www/, with pkg/ at /pkg) and a Chromium, for one test
 * file: started before its tests, closed after them. `viewer.server.url`, `viewer.browser`.
 */
export function serveViewer() {
  const viewer = { server: null, browser: null };
  before(async () => {
    viewer.server = await startStaticServer({ root: here("../../www/"), mounts: { "/pkg": here("../../pkg/") } });
    viewer.browser = await launchChromium();
  });
  after(async () => {
    await viewer.browser?.close();
    await viewer.server?.close();
  });
  return viewer;
}

/**
 * Drops `text` on the viewer as a file named `name`, through real `dragenter`,
 * `dragover` and `drop` events carrying a DataTransfer, and waits until the
 * viewer has opened it.
 */
export async function dropFile(page, text, name) {
  const before = await page.evaluate(() => window.__viewer.opened);
  await page.evaluate(
    ({ text, name }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type: "application/jsonl" }));
      for (const type of ["dragenter", "dragover", "drop"]) {
        document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }
    },
    { text, name },
  );
  await page.waitForFunction((n) => window.__viewer.opened > n, before, { timeout: 60_000 });
}

/** Collects the page's errors and its console errors and warnings, as lines. */
export function watchProblems(page) {
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  return problems;
}

/**
 * Scrolls the virtualized graph until the row of `id` is in the DOM, and gives
 * its locator. The graph is drawn once it is on screen (after a compare view
 * closes, say): that is waited for first.
 */
export async function rowOf(page, id) {
  await page.waitForFunction(() => document.getElementById("graph").clientHeight > 0);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (let top = 0; top < 200_000; top += 300) {
    const selector = `.row[data-entry-id="${id}"]`;
    if (await page.$(selector)) return page.locator(selector);
    // The rows of the new place are drawn in the frame after the scroll.
    await page.evaluate(
      (top) =>
        new Promise((r) => {
          document.getElementById("graph").scrollTop = top;
          requestAnimationFrame(() => requestAnimationFrame(r));
        }),
      top,
    );
  }
  throw new Error(`row ${id} not found`);
}
