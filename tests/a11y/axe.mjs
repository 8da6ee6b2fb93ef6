// Helpers of the accessibility suites (not a test file itself): axe-core run
// in a page with WCAG 2.1 A and AA rules only, and its violations as lines;
// the viewer on a static server with Chromium; a sample's leaves.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { getTree } from "session-tree";
import { startStaticServer } from "../../tools/static-server.mjs";
import { launchChromium } from "../browser/chromium.mjs";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** The rule tags of WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Runs axe-core on the page as it is now and resolves to its violations, each
 * as one line per offending node: `rule (impact): selector — summary`. Axe is
 * put in the page through the DevTools protocol, so the page's own
 * Content-Security-Policy (the viewer's, the shared file's) stays as it is.
 */
export async function axeViolations(page, { exclude = [] } = {}) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    async ({ tags, exclude }) => {
      const result = await window.axe.run(
        { include: [document], exclude },
        { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] },
      );
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
      }));
    },
    { tags: WCAG_TAGS, exclude },
  );
  const lines = [];
  for (const v of violations) {
    for (const n of v.nodes) lines.push(`${v.id} (${v.impact}): ${n.target} — ${n.summary.replace(/\s+/g, " ")}`);
  }
  return lines;
}

/**
 * Whether the document is wider than the window (something scrolls
 * sideways): null, or the widths and the first elements that stick out
 * without a scrolling box of their own around them.
 */
export const sidewaysScroll = (page) =>
  page.evaluate(() => {
    const d = document.documentElement;
    if (d.scrollWidth <= d.clientWidth + 1) return null;
    const clipped = (e) => {
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== "visible") return true;
      }
      return false;
    };
    const out = [...document.body.querySelectorAll("*")]
      .filter((e) => e.getBoundingClientRect().right > d.clientWidth + 1 && !clipped(e))
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}.${[...e.classList].join(".")}`);
    return { scrollWidth: d.scrollWidth, clientWidth: d.clientWidth, out };
  });

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/**
 * For the test file that calls it: the viewer (`www/`, with the package under
 * `/pkg`) on a static server and a Chromium, started before its tests and
 * closed after them, as the `server` and `browser` of the object returned.
 */
export function viewerSite() {
  const site = { server: null, browser: null };
  before(async () => {
    site.server = await startStaticServer({ root: here("../../www/"), mounts: { "/pkg": here("../../pkg/") } });
    site.browser = await launchChromium();
  });
  after(async () => {
    await site.browser?.close();
    await site.server?.close();
  });
  return site;
}

/** The ids of the leaves of `text`'s tree, depth first from the last root. */
export function leavesOf(text) {
  const leaves = [];
  for (const stack = [...getTree(text)]; stack.length; ) {
    const node = stack.pop();
    if (node.children.length === 0) leaves.push(node.entry.id);
    stack.push(...node.children);
  }
  return leaves;
}
