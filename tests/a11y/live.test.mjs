// The live region while `session-tree serve` follows a session: a burst of
// appended entries is announced once, politely, when it goes quiet (its
// count and the newest entry), and the next burst once more.
//
//   node --test tests/a11y/live.test.mjs

import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { launchChromium } from "../browser/chromium.mjs";
import { startServe } from "../serve/helpers.mjs";

const t = (i) => new Date(Date.UTC(2026, 2, 1, 12, 0, i)).toISOString();
const line = (o) => `${JSON.stringify(o)}\n`;
const user = (i, text) =>
  line({
    type: "message",
    id: `u${i}`,
    parentId: i === 0 ? null : `u${i - 1}`,
    timestamp: t(i),
    message: { role: "user", content: text, timestamp: i * 1000 },
  });

let dir;
let server;
let browser;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "st-a11y-live-"));
  mkdirSync(path.join(dir, "p"));
  writeFileSync(
    path.join(dir, "p", "s.jsonl"),
    line({ type: "session", version: 3, id: "live", timestamp: t(0), cwd: "/tmp/live" }) + user(0, "first"),
  );
  server = await startServe(dir);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a burst of new entries is announced once, then the next burst once", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}?session=${encodeURIComponent("p/s.jsonl")}`);
  await page.waitForFunction(() => document.querySelector("[data-testid=context]")?.dataset.leaf === "u0", null, {
    timeout: 20_000,
  });
  assert.equal(await page.getAttribute("#live", "aria-live"), "polite");
  // Every text the live region is given, in order.
  await page.evaluate(() => {
    window.__said = [];
    const live = document.getElementById("live");
    new MutationObserver(() => {
      if (live.textContent) window.__said.push(live.textContent);
    }).observe(live, { childList: true, characterData: true, subtree: true });
  });

  const file = path.join(dir, "p", "s.jsonl");
  for (let i = 1; i <= 6; i++) {
    appendFileSync(file, user(i, `entry ${i}`));
    await new Promise((r) => setTimeout(r, 150));
  }
  await page.waitForFunction(() => window.__said.length > 0, null, { timeout: 15_000 });
  await page.waitForTimeout(2500); // longer than the quiet time: a second announcement would be in
  assert.deepEqual(await page.evaluate(() => window.__said), ["6 new entries; latest: User: entry 6"]);

  appendFileSync(file, user(7, "entry 7"));
  await page.waitForFunction(() => window.__said.length > 1, null, { timeout: 15_000 });
  await page.waitForTimeout(2500);
  assert.deepEqual(await page.evaluate(() => window.__said), [
    "6 new entries; latest: User: entry 6",
    "1 new entry; latest: User: entry 7",
  ]);
  await page.close();
});
