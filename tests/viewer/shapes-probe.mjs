// Opens each session of a folder in the viewer in Chromium (picked through the file input of
// the static page, or through `session-tree serve` on the folder with `--serve`) and prints
// what happened: time to the first rows and to the whole graph, the page's long tasks, its
// JS heap, a deep leaf's context against the package's `buildSessionContext` in Node, page
// errors, and whether any markup from the text ran. A measurement (docs/shapes-log.md,
// "The viewer and serve"), not a test.
//
//   node tests/viewer/shapes-session.mjs /tmp/vshapes
//   node tests/viewer/shapes-probe.mjs /tmp/vshapes [--serve] [name...]

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSessionContext } from "session-tree";
import { startStaticServer } from "../../tools/static-server.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { startServe } from "../serve/helpers.mjs";
import { watchProblems } from "./page.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const args = process.argv.slice(2);
const serve = args.includes("--serve");
const [dir, ...only] = args.filter((a) => a !== "--serve");
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".jsonl"))
  .filter((f) => !only.length || only.includes(f.replace(/\.jsonl$/, "")));

/** The deepest leaf by the last entry's id (the file's last line with an id), as the viewer picks by default. */
function lastId(text) {
  const lines = text.trimEnd().split("\n");
  for (let i = lines.length - 1; i > 0; i--) {
    try {
      const v = JSON.parse(lines[i]);
      if (v && typeof v.id === "string") return v.id;
    } catch {}
  }
  return null;
}

const watchPage = () => {
  window.__long = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__long.push(Math.round(e.duration));
  }).observe({ type: "longtask", buffered: true });
  window.__seen = [];
  const t0 = performance.now();
  window.__t0 = t0;
  window.__sampler = setInterval(() => {
    const s = window.__viewer?.state;
    if (s)
      window.__seen.push({
        t: performance.now() - t0,
        opened: window.__viewer.opened,
        partial: s.partial,
        shown: s.shown,
      });
  }, 20);
};

const server = serve
  ? await startServe(dir)
  : await startStaticServer({ root: here("../../www/"), mounts: { "/pkg": here("../../pkg/") } });
const browser = await launchChromium();
try {
  for (const file of files) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = watchProblems(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    const t = Date.now();
    let opened;
    let before = 0;
    if (serve) {
      await page.goto(`${server.url}`);
      await page.waitForSelector("a[href*='.jsonl'], [data-testid=session-row], table, li", { timeout: 60_000 });
      await page.evaluate(watchPage);
      await page.goto(`${server.url}?session=${encodeURIComponent(file)}`).catch((e) => problems.push(String(e)));
      await page.evaluate(watchPage);
      opened = await page
        .waitForFunction(() => window.__viewer?.opened >= 1 && !window.__viewer.state.partial, null, {
          timeout: 180_000,
        })
        .then(
          () => true,
          (e) => e.message,
        );
    } else {
      await page.goto(server.url);
      await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 30_000 });
      await page.evaluate(watchPage);
      before = await page.evaluate(() => window.__viewer.opened);
      await page.setInputFiles("#file-input", path);
      opened = await page
        .waitForFunction((n) => window.__viewer.opened > n, before, { timeout: 180_000 })
        .then(
          () => true,
          (e) => e.message,
        );
    }
    const openMs = Date.now() - t;
    const seen = await page.evaluate(() => window.__seen ?? []);
    // The first rows of the new file (a preview while it is read, or the whole graph).
    const firstRows = seen.find((s) => s.opened > before || (s.partial && s.shown > 0))?.t;
    const whole = seen.find((s) => s.opened > before && !s.partial)?.t;
    const leaf = lastId(text);
    let contextNote = "no leaf";
    let selectMs = null;
    if (leaf && opened === true) {
      const t1 = Date.now();
      await page.evaluate((id) => window.__viewer.select(id), leaf);
      const ok = await page
        .waitForFunction((l) => document.querySelector("[data-testid=context]").dataset.leaf === l, leaf, {
          timeout: 60_000,
        })
        .then(
          () => true,
          (e) => e.message,
        );
      selectMs = Date.now() - t1;
      if (ok === true) {
        const expected = buildSessionContext(Buffer.from(text), leaf).messages;
        const roles = await page.$$eval("[data-testid=context] > [data-role]", (els) => els.map((e) => e.dataset.role));
        const head = await page.textContent("#context-head");
        const want = expected.slice(0, 200).map((m) => m.role);
        const same = JSON.stringify(roles) === JSON.stringify(want) && head.startsWith(`${expected.length} message`);
        contextNote = same
          ? `context = Node (${expected.length} messages)`
          : `CONTEXT DIFFERS: page ${roles.length} ${head.slice(0, 40)} vs node ${expected.length}`;
      } else contextNote = `select failed: ${ok}`;
    }
    // Layout: does anything overflow the page horizontally?
    const layout = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      width: window.innerWidth,
      injected: window.__injected ?? null,
      status: document.getElementById("status")?.textContent,
      title: document.getElementById("file-name")?.textContent,
      heap: performance.memory ? Math.round(performance.memory.usedJSHeapSize / 2 ** 20) : null,
      long: window.__long ?? [],
      banners: document.getElementById("banners")?.textContent,
    }));
    const metrics = Object.fromEntries(
      (await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]),
    );
    const long = layout.long;
    console.log(
      JSON.stringify({
        file,
        mb: +(text.length / 2 ** 20).toFixed(1),
        opened,
        openMs,
        firstRows: firstRows && Math.round(firstRows),
        whole: whole && Math.round(whole),
        selectMs,
        contextNote,
        longTasks: long.length,
        longestTask: Math.max(0, ...long),
        longTotal: long.reduce((a, b) => a + b, 0),
        heapMiB: layout.heap,
        cdpHeapMiB: Math.round(metrics.JSHeapUsedSize / 2 ** 20),
        overflow: layout.scrollWidth > layout.width ? layout.scrollWidth : 0,
        injected: layout.injected,
        status: layout.status,
        title: layout.title,
        banners: layout.banners?.slice(0, 200),
        problems: problems.slice(0, 5).map((p) => p.slice(0, 300)),
      }),
    );
    if (process.env.SHOT) await page.screenshot({ path: join(process.env.SHOT, `${file}.png`) });
    await page.close();
  }
} finally {
  await browser.close();
  serve ? await server.stop() : await server.close();
}
