import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("session-tree/package.json"));
const glue = require(join(pkgDir, "node", "session_tree.js"));
function t(f, n = 9) { const xs = []; let r; for (let i = 0; i < n; i++) { const s = performance.now(); r = f(); xs.push(performance.now() - s); } xs.sort((a,b)=>a-b); return xs[n>>1]; }
for (const w of ["linear", "compacted", "branched", "v1"]) {
  const buf = readFileSync(`/tmp/wl/${w}.jsonl`);
  const ms = t(() => glue.countEntries(buf));
  const tree = t(() => glue.getTree(buf), 5);
  const ctx = t(() => glue.buildSessionContext(buf), 5);
  const mig = t(() => glue.migrate(buf), 5);
  console.log(w, "count", ms.toFixed(1), "ms", (buf.length/1e6/ms*1e3).toFixed(0), "MB/s; tree", tree.toFixed(1), "ctx", ctx.toFixed(1), "migrate", mig.toFixed(1));
}
