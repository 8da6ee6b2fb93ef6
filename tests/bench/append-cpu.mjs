// The "10,000 appends" row of manager.mjs in CPU time, which the load of a shared machine
// disturbs less than wall time: pi 1.6.0's manager and ours ("flush") alternated in one process,
// the order swapped every round, each round a new session in a new folder (ours closed at the
// end, as manager.mjs does). Prints the medians per append (CPU: user + system, then each, and
// wall) and the median of the rounds' CPU ratios.
//
//   node --expose-gc bench/append-cpu.mjs      (from tests/; N appends a round, ROUNDS rounds)

import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { SessionManager } from "session-tree/node";
import { SessionManager as PiManager } from "../shared/pi.mjs";

const N = Number(process.env.N ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const root = mkdtempSync(join(os.tmpdir(), "session-tree-append-cpu-"));
let n = 0;
const folder = () => join(root, `a-${n++}`);
const message = (i) => ({
  role: i % 2 ? "assistant" : "user",
  content: `message ${i} ${"x".repeat(200)}`,
  timestamp: i,
});

function run(manager, close) {
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) manager.appendMessage(message(i));
  if (close) manager.close();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / N, user: c.user / N, sys: c.system / N, wall: (wall * 1000) / N };
}
const pi = () => run(PiManager.create("/bench", folder()), false);
const ours = () => run(SessionManager.create("/bench", folder()), true);

const rows = { pi: [], ours: [] };
const ratios = [];
const loads = [];
pi();
ours();
for (let r = 0; r < ROUNDS; r++) {
  const [a, b] = r % 2 ? [ours(), pi()] : [pi(), ours()];
  const [p, o] = r % 2 ? [b, a] : [a, b];
  rows.pi.push(p);
  rows.ours.push(o);
  ratios.push(p.cpu / o.cpu);
  loads.push(os.loadavg()[0]);
  rmSync(root, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const of = (side, k) => median(rows[side].map((x) => x[k]));
console.log(
  `${N} appends a round, ${ROUNDS} rounds, load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
);
for (const k of ["cpu", "user", "sys", "wall"])
  console.log(
    `${k.padEnd(5)} pi ${of("pi", k).toFixed(2)} µs, ours ${of("ours", k).toFixed(2)} µs (×${(of("pi", k) / of("ours", k)).toFixed(2)})`,
  );
console.log(
  `median of the rounds' CPU ratios: ×${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
);
