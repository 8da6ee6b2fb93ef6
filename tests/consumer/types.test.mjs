// Type checks of the hand-written declarations as consumers see them:
// `tsc --noEmit` for an ESM, a CommonJS and a bundler-resolution project.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function typecheck(project) {
  const result = spawnSync(
    process.execPath,
    [tsc, "--noEmit", "--pretty", "false", "--traceResolution", "-p", path.join(here, project)],
    { encoding: "utf8", timeout: 120_000 },
  );
  const errors = result.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
  assert.equal(result.status, 0, `tsc failed for ${project}:\n${errors.join("\n") || result.stderr}`);
  // Which declaration file did "session-tree" resolve to?
  const match = result.stdout.match(/Module name 'session-tree' was successfully resolved to '([^']+)'/);
  assert.ok(match, `no resolution of session-tree reported for ${project}`);
  return path.basename(match[1]);
}

test("ESM consumer (module nodenext) type-checks against index.d.ts", () => {
  assert.equal(typecheck("types-esm"), "index.d.ts");
});

test("CommonJS consumer (module nodenext) type-checks against index.d.cts", () => {
  assert.equal(typecheck("types-cjs"), "index.d.cts");
});

test("bundler consumer (moduleResolution bundler) type-checks", () => {
  assert.equal(typecheck("types-bundler"), "index.d.ts");
});
