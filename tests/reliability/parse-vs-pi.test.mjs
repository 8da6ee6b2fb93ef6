// Mutated realistic sessions (seeded; FUZZ_SEED replays a run, FUZZ_COUNT sets its size):
// parseSession equals pi 1.6.0's parseSessionEntries (the string API, which still trims the
// whole text and keeps falsy lines; the README's "Differences from pi" says where pi 1.6's
// file loader reads differently), and migrate, getTree, buildSessionContext, inspectSession
// and Session never hang (worker, time limit per input) and never throw
// anything but an Error (no wasm trap, no non-Error value).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fuzzSettings } from "../shared/rng.mjs";
import { runTask } from "../shared/workers.mjs";

const TASKS = new URL("./helpers/tasks.mjs", import.meta.url);
// The tasks build inputs of tens of MB inside the worker: room for them.
const run = (task, data, limits) => runTask(TASKS, task, data, { heapMb: 6144, ...limits });

const { count, seed } = fuzzSettings(500);

test("mutated sessions: parse equals pi, nothing hangs or traps", {
  timeout: Math.max(600_000, count * 100),
}, async (t) => {
  const replay = `replay: FUZZ_SEED=${seed} FUZZ_COUNT=${count}`;
  const { value: r } = await run("mutatedVsPi", { seed, count }, { stepLimitMs: 20_000 });
  t.diagnostic(`${count} inputs (${r.lines} lines), seed ${seed}; ${r.errorCount} clean Errors thrown`);
  assert.deepEqual(r.bad, [], `non-Error throws or traps (${replay})`);
  assert.deepEqual(r.mismatches, [], `${r.mismatchCount} parse differences from pi (${replay})`);
  // The functions document that broken lines never make them throw.
  assert.deepEqual(r.errors, [], `${r.errorCount} Errors thrown on broken input (${replay})`);
});
