// `serve` restarted under an open page: the list's EventSource reconnects by itself and
// gets every row again, but no `remove` for a session deleted while the server was down.
// Such a row stayed in the list (docs/hunt-leftovers2.md). The server runs in this process,
// so it can come back on the same port.
//
//   node --test tests/serve/reconnect.test.mjs   (after `make build`)

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { startServer } from "../../pkg/cli/serve/server.js";
import { launchChromium } from "../browser/chromium.mjs";

const session = (i) =>
  `{"type":"session","version":3,"id":"s-${i}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n` +
  `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello ${i}","timestamp":1}}\n`;

test("after serve restarts, the list drops the sessions removed meanwhile and shows the new ones", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "st-serve-reconnect-"));
  for (let i = 0; i < 3; i++) writeFileSync(path.join(dir, `s${i}.jsonl`), session(i));
  let server = await startServer({ dir, port: 0 });
  const { port } = server;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(server.url);
    const rows = () => page.$$eval("[data-session-path]", (els) => els.map((e) => e.dataset.sessionPath).sort());
    await page.waitForFunction(() => document.querySelectorAll("[data-session-path]").length === 3);
    assert.deepEqual(await rows(), ["s0.jsonl", "s1.jsonl", "s2.jsonl"]);
    await server.close();
    rmSync(path.join(dir, "s1.jsonl"));
    writeFileSync(path.join(dir, "s9.jsonl"), session(9));
    server = await startServer({ dir, port });
    await page.waitForFunction(
      () => {
        const paths = [...document.querySelectorAll("[data-session-path]")].map((e) => e.dataset.sessionPath);
        return paths.includes("s9.jsonl") && !paths.includes("s1.jsonl");
      },
      null,
      { timeout: 30_000 },
    );
    assert.deepEqual(await rows(), ["s0.jsonl", "s2.jsonl", "s9.jsonl"]);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
