// The usage ledger on shapes no session has but a folder can: a day of a huge number of
// models, a chain of thousands of forks. Timings are not asserted; the sizes are such that
// quadratic (or cubic) work would run far past the per-step limit of 60 s.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runTask } from "../shared/workers.mjs";

const TASKS = new URL("./helpers/usage-tasks.mjs", import.meta.url);
const run = (task, data) => runTask(TASKS, task, data, { stepLimitMs: 60_000, heapMb: 4096 });
const opts = { timeout: 600_000 };

test("a day of 200,000 replies, each by its own model", opts, async () => {
  const { value } = await run("manyModels", { n: 200_000 });
  assert.deepEqual(value, { rows: 1, models: 200_000, modelRows: 200_000, cost: 200_000 });
});

test("a chain of 20,000 forks, each naming the one before", opts, async () => {
  const { value } = await run("forkChain", { n: 20_000 });
  // Each file holds one entry of its own: nothing is a copy.
  assert.deepEqual(value, { rows: 20_000, records: 20_000, copies: 0 });
});
