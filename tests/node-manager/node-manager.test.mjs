// session-tree/node's SessionManager under Node (node:test), and the same
// checks under Bun 1.4.4 and Deno 2.9.6 (run.mjs in a child process).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { checks, cleanup } from "./cases.mjs";

after(cleanup);
for (const { name, fn } of checks) test(name, fn);

const tests = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

function runUnder(command, args, version) {
  const r = spawnSync(command, [...args, "node-manager/run.mjs"], {
    cwd: tests,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    maxBuffer: 1 << 24,
  });
  assert.equal(r.status, 0, `${command} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, new RegExp(`^${version}: ${checks.length} passed, 0 failed$`, "m"), r.stdout);
}

test("Bun 1.4.4 passes the same checks", () => runUnder(bin("bun"), [], "bun 1\\.4\\.4"));
test("Deno 2.9.6 passes the same checks", () => runUnder(bin("deno"), ["run", "-A", "--no-lock"], "deno 2\\.9\\.6"));
