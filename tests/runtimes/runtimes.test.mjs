// Runs smoke.mjs under Bun and under Deno, both installed from npm at exact
// versions (tests/package.json), on the built package (tests/node_modules/
// session-tree, linked from pkg/).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const tests = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const CHECKS = 9;

function smoke(command, args, expectVersion) {
  const r = spawnSync(command, [...args, "runtimes/smoke.mjs"], {
    cwd: tests,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  assert.equal(r.status, 0, `${command} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, new RegExp(`^${expectVersion}: ${CHECKS} passed, 0 failed$`, "m"), r.stdout);
}

test("Bun 1.4.4 runs the smoke suite", () => {
  smoke(bin("bun"), [], "bun 1\\.4\\.4");
});

test("Deno 2.9.6 runs the smoke suite (reading the .wasm needs --allow-read)", () => {
  smoke(bin("deno"), ["run", "--no-lock", "--allow-read"], "deno 2\\.9\\.6");
});
