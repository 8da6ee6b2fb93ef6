// `session-tree serve` end to end in headless Chromium, over a generated folder
// of 300 sessions in nested project folders with forks: the list, forks under
// their sources, search and opening a result, live appends cut mid-line and
// mid-character, a rewritten file, a new file.
//
//   node --test tests/serve/        (after `make build` and the tests/ npm install)
//
// The folder's seed is new each run and printed; SERVE_SEED replays one.

import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launchChromium } from "../browser/chromium.mjs";
import { envSeed } from "../shared/rng.mjs";
import { writeFolder } from "./folder.mjs";
import { startServe } from "./helpers.mjs";

const SEED = envSeed("SERVE_SEED");
const PHRASE = "zorblax quindle frumpet";

let dir;
let folder;
let server;
let browser;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "st-serve-"));
  folder = writeFolder(dir, { count: 300, seed: SEED, plant: PHRASE });
  server = await startServe(dir);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openPage(url = server.url) {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("response", (r) => {
    if (!r.url().startsWith(server.url)) problems.push(`foreign request: ${r.url()}`);
  });
  await page.goto(url);
  return { page, problems };
}

/** The list's rows in order: `{ path, depth }`. */
const listRows = (page) =>
  page.$$eval("[data-testid=session-list] [data-session-path]", (els) =>
    els.map((e) => ({ path: e.dataset.sessionPath, depth: Number(e.dataset.depth) })),
  );

async function waitForRows(page, n) {
  await page.waitForFunction(
    (n) => document.querySelectorAll("[data-testid=session-list] [data-session-path]").length >= n,
    n,
    { timeout: 30_000 },
  );
}

test("the list shows every session, each fork under the session it came from", async () => {
  const { page, problems } = await openPage();
  await waitForRows(page, 300);
  const rows = await listRows(page);
  assert.equal(rows.length, 300);
  assert.deepEqual(new Set(rows.map((r) => r.path)), new Set(folder.sessions.map((s) => s.rel)));
  const at = new Map(rows.map((r, i) => [r.path, i]));
  const forks = folder.sessions.filter((s) => s.parentRel);
  assert.ok(forks.length >= 10, `the folder has forks (${forks.length})`);
  for (const fork of forks) {
    const p = at.get(fork.parentRel);
    const f = at.get(fork.rel);
    assert.equal(rows[f].depth, rows[p].depth + 1, `${fork.rel} is one level under its source`);
    // Between the source and the fork, only rows deeper than the source (its other forks).
    assert.ok(f > p, `${fork.rel} comes after its source`);
    for (let i = p + 1; i < f; i++)
      assert.ok(rows[i].depth > rows[p].depth, `${fork.rel} is inside its source's thread`);
  }
  for (const s of folder.sessions.filter((s) => !s.parentRel)) assert.equal(rows[at.get(s.rel)].depth, 0, s.rel);
  // Broken files are listed, with what is wrong.
  for (const s of folder.sessions.filter((s) => s.broken)) {
    const title = await page.textContent(`[data-session-path="${s.rel}"] .session-title`);
    assert.match(title, /not a session file/);
  }
  // Open a session far down the list, then Back: the list as it was left, scroll and filter kept.
  await page.fill("[data-testid=folder-filter]", "project-1");
  const filtered = await listRows(page);
  const pick = filtered[Math.floor(filtered.length * 0.8)].path;
  await page.$eval(`[data-session-path="${pick}"]`, (e) => e.scrollIntoView({ block: "center" }));
  const scroll = await page.$eval("#folder-view", (e) => e.scrollTop);
  assert.ok(scroll > 500, `the list scrolled (${scroll})`);
  await page.click(`[data-session-path="${pick}"]`);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  assert.equal(new URL(page.url()).searchParams.get("session"), pick);
  assert.equal(await page.isVisible("[data-testid=session-list]"), false);
  await page.goBack();
  await page.waitForSelector("[data-testid=session-list]", { state: "visible" });
  assert.equal(await page.inputValue("[data-testid=folder-filter]"), "project-1");
  assert.deepEqual(await listRows(page), filtered);
  assert.equal(await page.$eval("#folder-view", (e) => e.scrollTop), scroll);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a planted phrase is found, and opening the result selects its entry", async () => {
  const target = folder.sessions.find((s) => s.planted);
  assert.ok(target, "a session holds the phrase");
  const { page, problems } = await openPage();
  await page.waitForFunction(
    () => document.querySelector("[data-testid=folder-progress]")?.dataset.ready === "true",
    null,
    {
      timeout: 60_000,
    },
  );
  await page.fill("[data-testid=search]", `"${PHRASE}"`);
  await page.waitForSelector("[data-testid=search-results] [data-entry-id]", { timeout: 20_000 });
  const results = await page.$$eval("[data-testid=search-results] li[data-session-path]", (els) =>
    els.map((e) => ({ path: e.dataset.sessionPath, id: e.dataset.entryId })),
  );
  assert.deepEqual(results, [{ path: target.rel, id: target.planted }]);
  // The words in another order are not the phrase.
  await page.fill("[data-testid=search]", '"frumpet quindle zorblax"');
  await page.waitForSelector("[data-testid=search-results] .results-head", { timeout: 10_000 });
  await page.waitForFunction(() => !document.querySelector("[data-testid=search-results] li[data-session-path]"));
  await page.fill("[data-testid=search]", `"${PHRASE}"`);
  await page.waitForSelector("[data-testid=search-results] li[data-session-path]");
  await page.click("[data-testid=search-results] li[data-session-path] a");
  await page.waitForFunction((id) => window.__viewer?.state.leafId === id, target.planted, { timeout: 20_000 });
  const url = new URL(page.url());
  assert.equal(url.searchParams.get("session"), target.rel);
  assert.equal(url.searchParams.get("leafId"), target.planted);
  assert.equal(url.searchParams.get("targetId"), target.planted);
  // The store takes the leaf at once; the context is drawn when the worker answers.
  await page
    .waitForFunction((id) => document.querySelector("[data-testid=context]")?.dataset.leaf === id, target.planted, {
      timeout: 20_000,
    })
    .catch(() => {});
  assert.equal(await page.getAttribute("[data-testid=context]", "data-leaf"), target.planted);
  // Back: the list again, with the search kept.
  await page.goBack();
  await page.waitForSelector("[data-testid=session-list]", { state: "visible" });
  assert.equal(await page.inputValue("[data-testid=search]"), `"${PHRASE}"`);
  assert.deepEqual(problems, []);
  await page.close();
});

const header = (id, cwd) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-03-01T10:00:00.000Z", cwd });
const message = (id, parentId, role, text, t) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: new Date(Date.UTC(2026, 2, 1, 10, 0, t)).toISOString(),
    message: { role, content: [{ type: "text", text }], timestamp: Date.UTC(2026, 2, 1, 10, 0, t) },
  });

test("appends cut mid-line and mid-character show up live; a rewrite reloads; a new file is listed", async () => {
  const rel = "--home-dev-live--/2026-03-01T10-00-00-000Z_live.jsonl";
  const file = path.join(dir, ...rel.split("/"));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${header("live-1", "/home/dev/live")}\n${message("m1", null, "user", "start", 1)}\n`);

  const { page, problems } = await openPage(`${server.url}?session=${encodeURIComponent(rel)}`);
  await page.waitForFunction(() => window.__viewer?.opened >= 1 && window.__viewer.state.count === 1, null, {
    timeout: 20_000,
  });
  await page.waitForSelector("[data-testid=live]");
  await page.evaluate(() => {
    window.__noReload = true;
  });

  // Two entries; the bytes are cut inside the second line, in the middle of
  // the 4-byte UTF-8 sequence of an emoji.
  const more = Buffer.from(
    `${message("m2", "m1", "assistant", "reply one", 2)}\n${message("m3", "m2", "user", "next 😀 step", 3)}\n`,
  );
  const emoji = more.indexOf(Buffer.from("😀"));
  const cuts = [0, 40, emoji + 2, more.length];
  for (let i = 0; i + 1 < cuts.length; i++) {
    appendFileSync(file, more.subarray(cuts[i], cuts[i + 1]));
    await new Promise((r) => setTimeout(r, 150));
  }
  // How soon they show is the bench's business; here, that they do (the deadline only ends a hang).
  await page.waitForFunction(() => window.__viewer.state.count === 3, null, { timeout: 20_000 });
  assert.deepEqual(await page.evaluate(() => window.__viewer.visibleIds()), ["m1", "m2", "m3"]);
  assert.equal(await page.evaluate(() => window.__noReload), true, "no page reload");
  // Follow is on: the newest entry is selected, and its text arrived whole.
  await page.waitForFunction(() => window.__viewer.state.leafId === "m3", null, { timeout: 20_000 });
  await page.waitForFunction(
    () => document.querySelector("[data-testid=context]")?.textContent.includes("next 😀 step"),
    null,
    { timeout: 20_000 },
  );

  // Selecting another entry pauses Follow; what arrives then is marked new.
  await page.evaluate(() => window.__viewer.select("m1"));
  await page.waitForFunction(
    () => document.querySelector("[data-testid=follow]")?.getAttribute("aria-pressed") === "false",
  );
  appendFileSync(file, `${message("m4", "m3", "assistant", "while paused", 4)}\n`);
  await page.waitForFunction(() => window.__viewer.state.count === 4, null, { timeout: 20_000 });
  assert.equal(await page.evaluate(() => window.__viewer.state.leafId), "m1");
  await page.waitForSelector("[data-testid=new-marker]");
  assert.equal((await page.textContent("[data-testid=new-marker]")).trim(), "1 new");

  // A rewrite (not an append): the page reloads the file, with none of the old entries.
  writeFileSync(
    file,
    `${header("live-2", "/home/dev/live")}\n${message("n1", null, "user", "rewritten", 1)}\n${message("n2", "n1", "assistant", "ok", 2)}\n`,
  );
  await page.waitForFunction(
    () => window.__viewer.state.count === 2 && window.__viewer.visibleIds().join() === "n1,n2",
    null,
    { timeout: 20_000 },
  );
  assert.equal(await page.evaluate(() => window.__noReload), true, "no page reload");

  // Back to the list; a new session file appears in it.
  await page.click("[data-testid=folder-back]");
  await page.waitForSelector(`[data-session-path="${rel}"]`);
  assert.equal(await page.$("[data-testid=live]"), null, "nothing is followed from the list");
  const fresh = "nested/--home-dev-new--/2026-03-02T00-00-00-000Z_new.jsonl";
  mkdirSync(path.join(dir, "nested", "--home-dev-new--"), { recursive: true });
  writeFileSync(
    path.join(dir, ...fresh.split("/")),
    `${header("new-1", "/home/dev/new")}\n${message("x1", null, "user", "brand new session", 1)}\n`,
  );
  await page.waitForSelector(`[data-session-path="${fresh}"]`, { timeout: 10_000 });
  assert.equal((await page.textContent(`[data-session-path="${fresh}"] .session-title`)).trim(), "brand new session");
  assert.deepEqual(problems, []);
  await page.close();
});
