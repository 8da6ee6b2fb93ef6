// A real Vite production build (no vite config) of a page that imports
// `session-tree`, served statically and run in headless Chromium.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startStaticServer } from "../../tools/static-server.mjs";
import { collectPageResults, launchChromium } from "../browser/chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const appDir = path.join(here, "vite-app");
const distDir = path.join(appDir, "dist");
const viteBin = path.join(path.dirname(createRequire(import.meta.url).resolve("vite/package.json")), "bin/vite.js");

let build;
let server;
let browser;
let page;

before(async () => {
  rmSync(distDir, { recursive: true, force: true });
  build = spawnSync(process.execPath, [viteBin, "build", "--logLevel", "warn"], {
    cwd: appDir,
    encoding: "utf8",
    timeout: 180_000,
  });
  if (build.status !== 0) return;
  server = await startStaticServer({ root: distDir });
  browser = await launchChromium();
  page = await collectPageResults(browser, server.url);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("vite build succeeds without a config and emits the wasm asset", () => {
  assert.equal(build.status, 0, `vite build failed:\n${build.stdout}\n${build.stderr}`);
  const assets = readdirSync(path.join(distDir, "assets"));
  assert.ok(
    assets.some((name) => name.endsWith(".wasm")),
    `no .wasm in ${assets.join(", ")}`,
  );
  assert.ok(
    assets.some((name) => name.endsWith(".js")),
    `no .js in ${assets.join(", ")}`,
  );
});

test("the built page runs in Chromium", () => {
  assert.ok(page, "page did not run (see the build failure)");
  assert.deepEqual(page.problems, []);
  const wasm = page.requests.find((r) => r.url.endsWith(".wasm"));
  assert.ok(wasm, "the wasm asset was fetched");
  assert.equal(wasm.type, "application/wasm");
});

function value(name) {
  const record = page?.results?.[name];
  assert.ok(record, `no result for ${name}`);
  if (!record.ok) assert.fail(`${name} threw ${record.name}: ${record.message}`);
  return record.value;
}

test("buildSessionContext and migrate work in the bundle", () => {
  assert.deepEqual(value("context"), {
    messages: [
      { role: "user", content: "from vite", timestamp: 1746446402000 },
      {
        role: "custom",
        customType: "note",
        content: "injected",
        display: false,
        details: { n: 1 },
        timestamp: new Date("2025-05-05T12:00:03.000Z").getTime(),
      },
    ],
    thinkingLevel: "off",
    model: { provider: "openai", modelId: "gpt-x" },
  });
  assert.equal(value("migrateV3"), true);
});
