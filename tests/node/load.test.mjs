// The built package as Node consumers load it: `import` (ESM) and
// `require` (CommonJS) of "session-tree", both usable synchronously.

import assert from "node:assert/strict";
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import * as esm from "session-tree";

const require = createRequire(import.meta.url);
const NAMES = [
  "Session",
  "UsageLedger",
  "buildContextEntries",
  "buildSessionContext",
  "buildSessionProjection",
  "countEntries",
  "currentSystemMessage",
  "fileSource",
  "getTree",
  "inspectSession",
  "migrate",
  "parseSession",
  "previewEntries",
  "sessionInfo",
  "sessionUsage",
];

test("ESM import exposes exactly the fifteen exports (Session, UsageLedger and thirteen functions)", () => {
  assert.deepEqual(Object.keys(esm).sort(), NAMES);
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the test enumerates the exports by name
  for (const name of NAMES) assert.equal(typeof esm[name], "function", name);
});

test("ESM import resolves to the node entry", () => {
  const resolved = realpathSync(new URL(import.meta.resolve("session-tree")));
  assert.match(resolved, /[\\/]pkg[\\/]node\.js$/);
});

test("CommonJS require exposes the same fifteen exports, shared with import (one instance)", () => {
  const cjs = require("session-tree");
  assert.match(realpathSync(require.resolve("session-tree")), /[\\/]pkg[\\/]node\.cjs$/);
  for (const name of NAMES) {
    assert.equal(typeof cjs[name], "function", name);
    // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the test enumerates the exports by name
    assert.equal(cjs[name], esm[name], `${name} is the same function in both module systems`);
  }
});

test("the functions work synchronously right after import", () => {
  assert.deepEqual(esm.parseSession('{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}\n'), [
    { type: "session", version: 3, id: "x", timestamp: "t", cwd: "/" },
  ]);
  assert.deepEqual(esm.buildSessionContext(""), { messages: [], thinkingLevel: "off", model: null });
});

test("package.json of the built package", () => {
  const manifest = JSON.parse(readFileSync(require.resolve("session-tree/package.json"), "utf8"));
  assert.equal(manifest.name, "session-tree");
  assert.equal(manifest.version, "0.1.0");
  assert.equal(manifest.license, "MIT");
  assert.ok(!manifest.dependencies || Object.keys(manifest.dependencies).length === 0, "no runtime dependencies");
});
