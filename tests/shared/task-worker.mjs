// Worker side of runTask (workers.mjs): runs one exported task of a module, reporting its steps.
import { parentPort, workerData } from "node:worker_threads";

const { tasksUrl, task, data } = workerData;
// `step(name, fn)`: runs one timed step; each reported step restarts the parent's clock.
const step = (name, fn) => {
  parentPort.postMessage({ kind: "starting", step: name });
  const t0 = performance.now();
  const value = fn();
  parentPort.postMessage({ kind: "step", step: name, ms: performance.now() - t0 });
  return value;
};
const t0 = performance.now();
try {
  const tasks = await import(tasksUrl);
  if (typeof tasks[task] !== "function") throw new Error(`no task ${task} in ${tasksUrl}`);
  const value = await tasks[task](data, step);
  parentPort.postMessage({ kind: "done", ok: true, value, ms: performance.now() - t0 });
} catch (e) {
  parentPort.postMessage({
    kind: "done",
    ok: false,
    name: e?.name,
    message: String(e?.message ?? e),
    error: `${e?.constructor?.name ?? typeof e}: ${e?.message ?? e}`,
    stack: e?.stack,
    ms: performance.now() - t0,
  });
}
