// `serve` opens a session over the viewer's large-file threshold (large.js's
// LARGE_FROM, 64 MiB) without sending it whole: in Chromium, the page asks
// for its first bytes, then the worker reads it by range (remote-source.js);
// no response carries more than a few MiB. The graph has every entry and a
// leaf's context is the package's in Node. The file grows: following stops
// with a Reload offer, not a re-read. The file is rewritten: the next read
// fails with an error naming it, never a mix. The file (about 70 MiB) is
// generated in the system's temporary folder and deleted.

import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { buildSessionContext, countEntries, fileSource } from "session-tree";
import { LARGE_FROM } from "../../www/large.js";
import { launchChromium } from "../browser/chromium.mjs";
import { startServe, writeLargeSession } from "./helpers.mjs";

const MiB = 1 << 20;

const contextLeaf = (page, leaf) =>
  page.waitForFunction((id) => document.querySelector("[data-testid=context]")?.dataset.leaf === id, leaf, {
    timeout: 60_000,
  });

test("a large session opens by range: no whole-file response, every entry, the package's context", {
  timeout: 180_000,
}, async (t) => {
  // The file first, then the server: its list reads the file once, before the page opens it.
  const dir = mkdtempSync(path.join(tmpdir(), "st-serve-large-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "big.jsonl");
  const { first, last } = writeLargeSession(file, LARGE_FROM + 6 * MiB);
  const server = await startServe(dir);
  t.after(() => server.stop());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const source = fileSource(file);
  const count = countEntries(source) - 1;
  const expected = buildSessionContext(source, last).messages.map((m) => m.role);
  const size = source.size;
  source.close();

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  const fileResponses = [];
  // Chromium reports the worker's requests too.
  page.context().on("response", (r) => {
    if (r.url().includes("/files/")) {
      fileResponses.push({ status: r.status(), length: Number(r.headers()["content-length"] ?? Number.NaN) });
    }
  });
  await page.goto(`${server.url}?session=big.jsonl`);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 120_000 });
  await contextLeaf(page, last);

  assert.equal(await page.evaluate(() => window.__viewer.state.count), count);
  await page.evaluate(() => window.__viewer.setFilter("all"));
  await page.waitForFunction((n) => window.__viewer.state.shown === n, count);
  assert.deepEqual(
    await page.$$eval("[data-testid=context] > [data-role]", (els) => els.map((e) => e.dataset.role)),
    expected.slice(0, 200),
  );
  await page.evaluate((id) => window.__viewer.select(id), first);
  await contextLeaf(page, first);
  assert.match(await page.textContent("[data-testid=context]"), /step 0[\s\S]*üüüü/);

  // Read by range, never whole: many answers, each of a few MiB at most.
  assert.ok(fileResponses.length > 10, `${fileResponses.length} responses for the file`);
  for (const r of fileResponses) {
    assert.equal(r.status, 206, JSON.stringify(r));
    assert.ok(r.length <= 8 * MiB, `a response of ${r.length} bytes out of ${size}`);
  }
  const total = fileResponses.reduce((a, r) => a + r.length, 0);
  console.log(
    `${(size / MiB).toFixed(1)} MiB in ${fileResponses.length} ranges, ${(total / MiB).toFixed(1)} MiB in all`,
  );

  // It grows: following stops and offers to reload, without reading the file again.
  const before = fileResponses.length;
  appendFileSync(
    file,
    `${JSON.stringify({ type: "message", id: "late", parentId: last, message: { role: "user", content: "late" } })}\n`,
  );
  await page.waitForSelector("[data-testid=reload-grown]", { timeout: 20_000 });
  assert.equal(fileResponses.length, before, "nothing of the file was read again");

  // Rewritten under the reader: reading another leaf fails, naming the file.
  writeFileSync(
    file,
    '{"type":"session","version":3,"id":"other","timestamp":"2026-02-01T00:00:00.000Z","cwd":"/x"}\n',
  );
  await page.evaluate((id) => window.__viewer.select(id), last);
  await page.waitForFunction(
    () => /big\.jsonl changed on the server while it was read/.test(document.getElementById("banners").textContent),
    null,
    { timeout: 20_000 },
  );
  assert.deepEqual(problems, []);
  await page.close();
});
