// Without a server: the static viewer page (as `make demo` serves it) opens a
// folder through its `webkitdirectory` input and shows the same list, forks
// and search as `session-tree serve`.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startStaticServer } from "../../tools/static-server.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { envSeed } from "../shared/rng.mjs";
import { writeFolder } from "./folder.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const SEED = envSeed("SERVE_SEED");
const PHRASE = "plimsoll gargantuan vortex";

let dir;
let folder;
let server;
let browser;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "st-static-"));
  folder = writeFolder(dir, { count: 80, seed: SEED, plant: PHRASE, projects: 5 });
  server = await startStaticServer({ root: here("../../www/"), mounts: { "/pkg": here("../../pkg/") } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("Open folder… through the input shows every session, forks under their sources, and search", async () => {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(server.url);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  await page.setInputFiles("[data-testid=folder-input]", dir);
  await page.waitForFunction(
    () => document.querySelector("[data-testid=folder-progress]")?.dataset.ready === "true",
    null,
    {
      timeout: 60_000,
    },
  );
  const rows = await page.$$eval("[data-testid=session-list] [data-session-path]", (els) =>
    els.map((e) => ({ path: e.dataset.sessionPath, depth: Number(e.dataset.depth) })),
  );
  assert.equal(rows.length, folder.sessions.length);
  assert.deepEqual(new Set(rows.map((r) => r.path)), new Set(folder.sessions.map((s) => s.rel)));
  const at = new Map(rows.map((r, i) => [r.path, i]));
  const forks = folder.sessions.filter((s) => s.parentRel);
  assert.ok(forks.length > 0, "the folder has forks");
  for (const fork of forks) {
    const p = at.get(fork.parentRel);
    const f = at.get(fork.rel);
    assert.equal(rows[f].depth, rows[p].depth + 1, `${fork.rel} is one level under its source`);
    assert.ok(f > p);
    for (let i = p + 1; i < f; i++) assert.ok(rows[i].depth > rows[p].depth);
  }

  const target = folder.sessions.find((s) => s.planted);
  await page.fill("[data-testid=search]", `"${PHRASE}"`);
  await page.waitForSelector("[data-testid=search-results] li[data-session-path]", { timeout: 20_000 });
  const results = await page.$$eval("[data-testid=search-results] li[data-session-path]", (els) =>
    els.map((e) => ({ path: e.dataset.sessionPath, id: e.dataset.entryId })),
  );
  assert.deepEqual(results, [{ path: target.rel, id: target.planted }]);
  await page.click("[data-testid=search-results] li[data-session-path] a");
  await page.waitForFunction((id) => window.__viewer?.state.leafId === id, target.planted, { timeout: 20_000 });
  await page.goBack();
  await page.waitForSelector("[data-testid=session-list]", { state: "visible" });
  assert.equal(await page.$$eval("[data-testid=session-list] [data-session-path]", (e) => e.length), rows.length);
  assert.deepEqual(problems, []);
  await page.close();
});
