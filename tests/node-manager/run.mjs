// Runs cases.mjs under the runtime that runs this file (Bun or Deno; Node
// uses node-manager.test.mjs): one "ok"/"not ok" line per check, then
// "<runtime>: N passed, M failed"; exits 1 on a failure.
import { checks, cleanup } from "./cases.mjs";

const runtime =
  typeof Bun !== "undefined"
    ? `bun ${Bun.version}`
    : typeof Deno !== "undefined"
      ? `deno ${Deno.version.deno}`
      : `node ${process.version}`;
let failed = 0;
for (const { name, fn } of checks) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (error) {
    failed++;
    console.log(`not ok ${name}\n${error?.stack ?? error}`);
  }
}
cleanup();
console.log(`${runtime}: ${checks.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
