// Browser smoke test: the built package imported by a plain
// `<script type="module">` from a static server, run in headless Chromium.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startStaticServer } from "../../tools/static-server.mjs";
import { collectPageResults, launchChromium } from "./chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.resolve(here, "../../pkg");

let server;
let browser;
let page;

before(async () => {
  server = await startStaticServer({ root: path.join(here, "page"), mounts: { "/pkg": pkgDir } });
  browser = await launchChromium();
  page = await collectPageResults(browser, server.url);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

function value(name) {
  const record = page.results[name];
  assert.ok(record, `no result for ${name}`);
  if (!record.ok) assert.fail(`${name} threw ${record.name}: ${record.message}`);
  return record.value;
}

const ms = (iso) => new Date(iso).getTime();

test("the package loads in Chromium: no errors, wasm as application/wasm, one module via the import map", () => {
  assert.deepEqual(page.problems, []);
  const wasm = page.requests.find((r) => r.url.endsWith(".wasm"));
  assert.ok(wasm, "the wasm file was fetched");
  assert.equal(wasm.status, 200);
  assert.equal(wasm.type, "application/wasm");
  assert.deepEqual(value("exports"), {
    types: ["function", "function", "function", "function"],
    importMapSameModule: true,
  });
});

test("buildSessionContext follows the last entry's branch", () => {
  const context = value("context");
  assert.deepEqual(context.model, { provider: "anthropic", modelId: "claude-x" });
  assert.equal(context.thinkingLevel, "off");
  assert.deepEqual(
    context.messages.map((m) => m.role),
    ["user", "assistant", "branchSummary", "user"],
  );
  assert.equal(context.messages[0].content, "first question");
  assert.deepEqual(context.messages[2], {
    role: "branchSummary",
    summary: "tried the other way",
    fromId: "u2",
    timestamp: ms("2025-03-01T09:00:05.000Z"),
  });
  assert.equal(context.messages[3].content, "second branch");
});

test("buildSessionContext from bytes with an explicit leaf", () => {
  const context = value("contextOtherLeaf");
  assert.equal(context.thinkingLevel, "high");
  assert.deepEqual(
    context.messages.map((m) => m.content),
    ["first question", [{ type: "text", text: "first answer" }], "abandoned branch"],
  );
  assert.deepEqual(value("stillWorks"), { messages: [], thinkingLevel: "off", model: null });
});

test("getTree and parseSession", () => {
  assert.deepEqual(value("treeRoots"), [
    {
      id: "u1",
      children: [
        {
          id: "a1",
          children: [
            { id: "t1", children: [{ id: "u2", children: [] }] },
            { id: "s1", children: [{ id: "u3", children: [] }] },
          ],
        },
      ],
    },
  ]);
  assert.equal(value("parseCount"), 7);
});

test("migrate turns a v1 string into v3 text", () => {
  const text = value("migrateV1");
  assert.equal(typeof text, "string");
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  assert.equal(lines.length, 3);
  const [header, first, second] = lines.map((line) => JSON.parse(line));
  assert.deepEqual(header, {
    type: "session",
    version: 3,
    id: "sess-v1",
    timestamp: "2024-06-01T00:00:00.000Z",
    cwd: "/old",
  });
  assert.match(first.id, /^[0-9a-f]{8}$/);
  assert.match(second.id, /^[0-9a-f]{8}$/);
  assert.notEqual(first.id, second.id);
  assert.equal(first.parentId, null);
  assert.equal(second.parentId, first.id);
  assert.equal(first.message.content, "hello");
  assert.equal(second.message.role, "custom");
});

test("the demo page in www/ loads the package and counts its sample", async () => {
  // The viewer itself is tested in tests/viewer/; here: it loads from a plain static server.
  const demo = await startStaticServer({ root: path.resolve(here, "../../www"), mounts: { "/pkg": pkgDir } });
  const tab = await browser.newPage();
  const errors = [];
  tab.on("pageerror", (error) => errors.push(error.message));
  try {
    await tab.goto(demo.url, { waitUntil: "load" });
    await tab.waitForFunction(
      () => /\d+ entries/.test(document.querySelector('[data-testid="status"]')?.textContent ?? ""),
      null,
      { timeout: 20_000 },
    );
    const status = await tab.textContent('[data-testid="status"]');
    assert.deepEqual(errors, []);
    // Every line of the sample but the header is an entry.
    const lines = readFileSync(path.resolve(here, "../../www/sample.jsonl"), "utf8").trim().split("\n").length;
    assert.match(status, new RegExp(`^${lines - 1} entries`));
    assert.ok((await tab.locator('[data-testid="context"] [data-role]').count()) > 0);
  } finally {
    await tab.close();
    await demo.close();
  }
});
