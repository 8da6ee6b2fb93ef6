import { parentPort, workerData } from "node:worker_threads";
import * as tasks from "./tasks.mjs";

const { task, data } = workerData;
// `step(name, fn)`: runs one timed step, reporting it to the parent.
const step = (name, fn) => {
  parentPort.postMessage({ kind: "starting", step: name });
  const t0 = performance.now();
  const value = fn();
  parentPort.postMessage({ kind: "step", step: name, ms: performance.now() - t0 });
  return value;
};
try {
  const value = await tasks[task](data, step);
  parentPort.postMessage({ kind: "done", ok: true, value });
} catch (e) {
  parentPort.postMessage({ kind: "done", ok: false, error: `${e?.constructor?.name ?? typeof e}: ${e?.message ?? e}`, stack: e?.stack });
}
