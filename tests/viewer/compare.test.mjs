// End-to-end test of the compare view (www/panels/compare.js) in headless
// Chromium: `#compare=<a>,<b>` on a randomly generated tree shows the true
// fork point and each side's entries after it, worked out here by walking
// parentIds; swapping, Back and Forward, closing and Alt-click work.
//
//   node --test tests/viewer/compare.test.mjs    (COMPARE_SEED=<n> replays a run)

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { envSeed, Rng } from "../shared/rng.mjs";
import { dropFile, rowOf, serveViewer, watchProblems } from "./page.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
mkdirSync(OUT, { recursive: true });

const viewer = serveViewer();

/**
 * A version 3 session of `count` message entries, each hung under a random
 * earlier one (mostly a recent one, so branches run deep), with usage on the
 * assistant turns and read/edit tool calls now and then.
 */
function generateTree(rng, count) {
  const lines = [
    { type: "session", version: 3, id: "compare-test", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp/x" },
  ];
  const ids = [];
  for (let i = 0; i < count; i++) {
    const id = `e${i.toString(16).padStart(4, "0")}`;
    const parentId =
      i === 0 ? null : ids[Math.max(0, ids.length - 1 - (rng.next() < 0.8 ? 0 : rng.int(0, ids.length)))];
    const timestamp = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const role = i % 2 === 0 ? "user" : "assistant";
    const message =
      role === "user"
        ? { role, content: `question ${i}`, timestamp: i * 1000 }
        : {
            role,
            content: [
              { type: "text", text: `answer ${i}` },
              ...(i % 3 === 0
                ? [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `src/f${i}.rs` } }]
                : []),
            ],
            provider: "p",
            model: "m",
            usage: { input: 10, output: i, totalTokens: 10 + i, cost: { total: i / 1000 } },
            stopReason: "stop",
            timestamp: i * 1000,
          };
    lines.push({ type: "message", id, parentId, timestamp, message });
    ids.push(id);
  }
  return lines;
}

/** Root-first ids from `leaf` up, following parentId. */
function pathTo(byId, leaf) {
  const path = [];
  for (let id = leaf; id; id = byId.get(id)?.parentId) path.unshift(id);
  return path;
}

/** The fork point and each side after it, the long way: the nearest of b's ancestors that is also a's. */
function expectedComparison(entries, a, b) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const ofA = new Set(pathTo(byId, a));
  let fork = b;
  while (fork && !ofA.has(fork)) fork = byId.get(fork).parentId;
  const after = (leaf) => {
    const path = pathTo(byId, leaf);
    return path.slice(path.indexOf(fork) + 1);
  };
  return { fork, a: after(a), b: after(b) };
}

const leavesOf = (entries) => {
  const parents = new Set(entries.map((e) => e.parentId));
  return entries.filter((e) => e.type !== "session" && !parents.has(e.id)).map((e) => e.id);
};

async function openViewer(hash = "") {
  const page = await viewer.browser.newPage({ viewport: { width: 1440, height: 900 } });
  const problems = watchProblems(page);
  await page.goto(viewer.server.url + hash);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  return { page, problems };
}

/** What the compare view shows, once it shows leaves `a` and `b`. */
async function shown(page, a, b) {
  await page.waitForFunction(
    ([a, b]) => {
      const box = document.querySelector("[data-testid=compare]");
      return box && !box.hidden && box.dataset.a === a && box.dataset.b === b;
    },
    [a, b],
    { timeout: 20_000 },
  );
  return page.evaluate(() => {
    const ids = (sel) => [...document.querySelectorAll(`${sel} [data-entry-id]`)].map((e) => e.dataset.entryId);
    return {
      fork: document.querySelector("[data-testid=fork-point]").dataset.entryId,
      a: ids("[data-testid=side-a]"),
      b: ids("[data-testid=side-b]"),
    };
  });
}

const setHash = (page, hash) =>
  page.evaluate((h) => {
    location.hash = h;
  }, hash);

test("#compare=<a>,<b> shows the true fork point and each side's entries after it", async () => {
  const seed = envSeed("COMPARE_SEED");
  const rng = new Rng(seed);
  const entries = generateTree(rng, rng.range(40, 160));
  const leaves = leavesOf(entries);
  const { page, problems } = await openViewer();
  await dropFile(page, `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`, "generated.jsonl");
  const pairs = [];
  for (let k = 0; k < 4; k++) pairs.push([rng.pick(leaves), rng.pick(leaves)]);
  // An inner entry against a leaf under it: a fork point at the first one itself.
  const deep = leaves[0];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const inner = pathTo(byId, deep);
  pairs.push([inner[Math.floor(inner.length / 2)], deep]);
  for (const [a, b] of pairs) {
    await setHash(page, `#compare=${a},${b}`);
    const got = await shown(page, a, b);
    assert.deepEqual(got, expectedComparison(entries, a, b), `seed ${seed}, ${a} vs ${b}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("swapping sides, Back and Forward, closing and Alt-click", async () => {
  const seed = envSeed("COMPARE_SEED");
  const rng = new Rng(seed);
  const entries = generateTree(rng, 60);
  const leaves = leavesOf(entries);
  // Two leaves on different branches, if the tree has them.
  const a = leaves[0];
  const b = leaves.at(-1);
  const { page, problems } = await openViewer();
  await dropFile(page, `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`, "generated.jsonl");
  const want = expectedComparison(entries, a, b);
  await setHash(page, `#compare=${a},${b}`);
  assert.deepEqual(await shown(page, a, b), want);
  await page.screenshot({ path: `${OUT}compare.png` });
  // The README's picture is refreshed on request only (UPDATE_SCREENSHOT=1).
  if (process.env.UPDATE_SCREENSHOT === "1")
    copyFileSync(`${OUT}compare.png`, here("../../www/screenshot-compare.png"));
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: `${OUT}compare-dark.png` });
  await page.emulateMedia({ colorScheme: "light" });

  await page.click("[data-testid=compare-swap]");
  assert.deepEqual(await shown(page, b, a), { fork: want.fork, a: want.b, b: want.a });
  assert.equal(await page.evaluate(() => location.hash), `#compare=${b},${a}`);
  await page.goBack();
  assert.deepEqual(await shown(page, a, b), want);
  await page.goForward();
  await shown(page, b, a);
  await page.goBack();
  await shown(page, a, b);

  // Close: the graph is back with side A's leaf selected; Back reopens the comparison.
  await page.click("[data-testid=compare-close]");
  await page.waitForFunction(() => document.querySelector("[data-testid=compare]").hidden);
  await page.waitForFunction((a) => document.querySelector("[data-testid=context]").dataset.leaf === a, a);
  await page.goBack();
  await shown(page, a, b);
  await page.click("[data-testid=compare-close]");
  await page.waitForFunction(() => document.querySelector("[data-testid=compare]").hidden);
  // The selected leaf is A's again before the Alt-click compares it (under load, the
  // close's selection may land after the click otherwise: CI saw a comparison never shown).
  await page.waitForFunction((a) => document.querySelector("[data-testid=context]").dataset.leaf === a, a);

  // Alt-click on another entry compares the selected leaf with it.
  await page.click(".filter[data-filter=all]");
  await (await rowOf(page, b)).click({ modifiers: ["Alt"] });
  assert.deepEqual(await shown(page, a, b), want);
  // "Compare with…" and then a click does the same.
  await page.click("[data-testid=compare-close]");
  await page.waitForFunction(() => document.querySelector("[data-testid=compare]").hidden);
  await page.click("[data-testid=compare-button]");
  await (await rowOf(page, b)).click();
  assert.deepEqual(await shown(page, a, b), want);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the page opened at #compare=<a>,<b> shows the comparison (the sample's two longest branches)", async () => {
  const entries = readFileSync(here("../../www/sample.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const byId = new Map(entries.map((e) => [e.id, e]));
  const leaves = leavesOf(entries).sort((x, y) => pathTo(byId, y).length - pathTo(byId, x).length);
  const [a, b] = leaves;
  const { page, problems } = await openViewer(`#compare=${a},${b}`);
  assert.deepEqual(await shown(page, a, b), expectedComparison(entries, a, b));
  await page.screenshot({ path: `${OUT}compare-sample.png` });
  // The README's picture is refreshed on request only (UPDATE_SCREENSHOT=1).
  if (process.env.UPDATE_SCREENSHOT === "1")
    copyFileSync(`${OUT}compare-sample.png`, here("../../www/screenshot-compare.png"));
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: `${OUT}compare-sample-dark.png` });
  if (process.env.UPDATE_SCREENSHOT === "1")
    copyFileSync(`${OUT}compare-sample-dark.png`, here("../../www/screenshot-compare-dark.png"));
  assert.deepEqual(problems, []);
  await page.close();
});

test("an unknown id in #compare= says so", async () => {
  const { page, problems } = await openViewer();
  await setHash(page, "#compare=nope,also-nope");
  await page.waitForFunction(() => !document.querySelector("[data-testid=compare]").hidden);
  assert.match(await page.textContent("[data-testid=compare]"), /No entry with id "nope"/);
  assert.deepEqual(problems, []);
  await page.close();
});
