// The viewer opens a session over 1 GiB (more than the bytes path takes), picked through the
// file input, in Chromium: its first rows before the whole file is read, a progress bar
// while it is read, then the whole graph, and the context of two leaves, each equal to the
// package's own in Node through fileSource. The file is generated in the system's temporary
// folder and deleted. Prints how long each step took and the peak memory of Chromium's
// renderer processes (the page's and the worker's JS heaps and the wasm memory), not asserted.
//
//   VIEWER_LARGE_GIB=2.5   generates a file of that many GiB instead of 1.1 (a measurement)
//   VIEWER_LARGE_DIR=/tmp/x  writes large.jsonl there and keeps it; a later run reuses it

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { buildSessionContext, countEntries, fileSource } from "session-tree";
import { startStaticServer } from "../../tools/static-server.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { watchProblems } from "./page.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const GiB = 1024 ** 3;
const SIZE = Number(process.env.VIEWER_LARGE_GIB ?? 1.1) * GiB;

/** The resident memory of Chromium's renderer processes, in bytes (0 where `ps` cannot tell). */
function rendererMemory() {
  try {
    const out = execFileSync("ps", ["-C", "chromium", "-o", "rss=,args="], { encoding: "utf8" });
    let kib = 0;
    for (const line of out.split("\n")) if (line.includes("--type=renderer")) kib += Number.parseInt(line, 10) || 0;
    return kib * 1024;
  } catch {
    return 0;
  }
}

/**
 * Writes a v3 session of a little over `bytes`: a chain of user messages, each with a tool
 * result of a MiB of non-ASCII text on a side branch, a label now and then. Returns the
 * ids of the first step's result and of the last entry.
 */
function writeLarge(path, bytes) {
  const fd = openSync(path, "w");
  try {
    const stamp = (i) => new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
    const line = (value) => writeSync(fd, `${JSON.stringify(value)}\n`);
    line({ type: "session", version: 3, id: "big", timestamp: stamp(0), cwd: "/big" });
    const body = "é".repeat(1 << 19);
    let written = 0;
    let parent = null;
    let last;
    for (let i = 0; written < bytes; i++) {
      const id = `u${i.toString(16).padStart(7, "0")}`;
      const side = `r${i.toString(16).padStart(7, "0")}`;
      written += line({
        type: "message",
        id,
        parentId: parent,
        timestamp: stamp(2 * i + 1),
        message: { role: "user", content: `step ${i}`, timestamp: i },
      });
      written += line({
        type: "message",
        id: side,
        parentId: id,
        timestamp: stamp(2 * i + 2),
        message: { role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: body }] },
      });
      parent = id;
      last = side;
    }
    return { first: "r0000000", last };
  } finally {
    closeSync(fd);
  }
}

let server;
let browser;
let dir;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "session-tree-viewer-large-"));
  server = await startStaticServer({ root: here("../../www/"), mounts: { "/pkg": here("../../pkg/") } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const contents = (page) => page.$$eval("[data-testid=context] > [data-role]", (els) => els.map((e) => e.dataset.role));

test("a session over 1 GiB opens by piece: first rows, progress, graph, contexts", { timeout: 600_000 }, async () => {
  const kept = process.env.VIEWER_LARGE_DIR;
  if (kept) mkdirSync(kept, { recursive: true });
  const path = join(kept ?? dir, "large.jsonl");
  const t0 = Date.now();
  // A kept file of this size is reused: its last step is found from its entries.
  const reuse = kept && existsSync(path) && statSync(path).size > SIZE && statSync(path).size < SIZE + (4 << 20);
  const written = reuse ? null : writeLarge(path, SIZE);
  const source = fileSource(path);
  const count = countEntries(source) - 1; // without the header
  const first = "r0000000";
  const last = written?.last ?? `r${(count / 2 - 1).toString(16).padStart(7, "0")}`;
  const generated = Date.now() - t0;
  assert.ok(source.size > SIZE && source.size > GiB);

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = watchProblems(page);
  await page.goto(server.url);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 30_000 });
  const opened = await page.evaluate(() => window.__viewer.opened);
  // What the page shows while the file is read, sampled every 20 ms by the page itself.
  await page.evaluate(() => {
    window.__seen = [];
    window.__sampler = setInterval(() => {
      const s = window.__viewer.state;
      const bar = document.getElementById("progress");
      window.__seen.push({
        t: performance.now(),
        partial: s.partial,
        shown: s.shown,
        title: document.getElementById("file-name").textContent,
        progress: bar.hidden ? null : document.getElementById("progress-bar").value,
        context: document.querySelector("[data-testid=context]").textContent,
      });
    }, 20);
  });
  let peak = rendererMemory();
  const sampler = setInterval(() => {
    peak = Math.max(peak, rendererMemory());
  }, 250);
  const picked = Date.now();
  await page.setInputFiles("#file-input", path);
  await page.waitForFunction((n) => window.__viewer.opened > n, opened, { timeout: 300_000 });
  const graphMs = Date.now() - picked;
  await page.waitForFunction((leaf) => document.querySelector("[data-testid=context]").dataset.leaf === leaf, last, {
    timeout: 60_000,
  });
  clearInterval(sampler);
  const seen = await page.evaluate(() => {
    clearInterval(window.__sampler);
    return window.__seen;
  });

  // The first rows came before the whole file was read, under the new title, with the
  // sample's context gone; the bar showed the read going forward.
  const preview = seen.find((s) => s.partial && s.shown > 0);
  assert.ok(preview, "rows were shown while the file was still read");
  assert.ok(preview.shown < count, `the first rows (${preview.shown}) are a part of the ${count} entries`);
  assert.equal(preview.title, "large.jsonl");
  for (const s of seen.filter((s) => s.title === "large.jsonl" && s.partial)) {
    assert.doesNotMatch(s.context, /sample|messages? sent to the model/, "no context under the new title while read");
  }
  const fractions = seen.map((s) => s.progress).filter((p) => p !== null);
  assert.ok(
    fractions.some((p) => p > 0 && p < 1),
    `the progress bar moved: ${[...new Set(fractions)].join(", ")}`,
  );
  const firstRows = preview.t - seen[0].t;
  // The whole graph is shown (no longer partial) before the default leaf's context is read.
  const whole = seen.find((s) => s.title === "large.jsonl" && !s.partial && s.shown > 0);
  const wholeGraph = whole ? Math.round(whole.t - seen[0].t) : "?";

  // The whole graph: every entry (tool results included) under the All filter.
  assert.equal(await page.evaluate(() => window.__viewer.state.count), count);
  await page.evaluate(() => window.__viewer.setFilter("all"));
  await page.waitForFunction((n) => window.__viewer.state.shown === n, count);
  const ids = await page.evaluate(() => window.__viewer.visibleIds());
  assert.equal(ids[0], "u0000000");
  assert.ok(ids.includes(first) && ids.includes(last));

  // The default leaf's context (the last entry), then another leaf's: what Node says.
  // The panel draws long contexts 200 messages at a time; its title counts them all.
  const expected = buildSessionContext(source, last).messages;
  assert.deepEqual(
    await contents(page),
    expected.slice(0, 200).map((m) => m.role),
  );
  assert.match(await page.textContent("#context-head"), new RegExp(`^${expected.length} messages sent`));
  const t1 = Date.now();
  await page.evaluate((id) => window.__viewer.select(id), first);
  await page.waitForFunction((leaf) => document.querySelector("[data-testid=context]").dataset.leaf === leaf, first);
  const leafMs = Date.now() - t1;
  assert.deepEqual(await contents(page), ["user", "toolResult"]);
  const text = await page.textContent("[data-testid=context]");
  assert.match(text, /step 0/);
  assert.match(text, /éééé/);
  assert.match(await page.textContent("[data-testid=status]"), new RegExp(`^${count} entries`));

  // Search reads the entries' previews: the user messages whose text has both words.
  const t2 = Date.now();
  await page.fill("#search", "STEP 1");
  const steps = count / 2;
  const found = [];
  for (let i = 0; i < steps; i++) if (String(i).includes("1")) found.push(`u${i.toString(16).padStart(7, "0")}`);
  await page.waitForFunction(
    (n) => window.__viewer.state.query === "STEP 1" && window.__viewer.state.shown === n,
    found.length,
  );
  assert.deepEqual(await page.evaluate(() => window.__viewer.visibleIds()), found);
  const searchMs = Date.now() - t2;
  await page.fill("#search", "");
  await page.waitForFunction((n) => window.__viewer.state.shown === n, count);

  // Two branches compared: the paths' entries are read by range.
  const t3 = Date.now();
  await page.evaluate(
    ([a, b]) => {
      location.hash = `#compare=${a},${b}`;
    },
    [last, first],
  );
  await page.waitForFunction(
    ([a, b]) => {
      const box = document.querySelector("[data-testid=compare]");
      return box && !box.hidden && box.dataset.a === a && box.dataset.b === b;
    },
    [last, first],
    { timeout: 60_000 },
  );
  const compareMs = Date.now() - t3;
  assert.equal(await page.$eval("[data-testid=fork-point]", (e) => e.dataset.entryId), "u0000000");
  assert.deepEqual(
    await page.$$eval("[data-testid=side-b] [data-entry-id]", (els) => els.map((e) => e.dataset.entryId)),
    [first],
  );
  assert.deepEqual(problems, []);
  source.close();
  const opening = (await page.textContent("#panel-stats")).match(/Opened in [^.]*/)?.[0];
  console.log(
    `# ${(source.size / GiB).toFixed(2)} GiB, ${count} entries: generated in ${generated} ms; first rows after ${Math.round(firstRows)} ms, whole graph after ${wholeGraph} ms, with the context in ${graphMs} ms, a leaf's context in ${leafMs} ms, a search in ${searchMs} ms, a comparison in ${compareMs} ms; renderers' peak memory ${Math.round(peak / 2 ** 20)} MiB; ${opening}`,
  );
  await page.close();
});
