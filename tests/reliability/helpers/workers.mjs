// Runs a task of tasks.mjs in a worker thread, with a time limit per step: a task may post
// progress ("step done") messages, and each resets the clock, so every step of a multi-step
// task gets the full limit. A hang is reported as a clear failure, never as a stuck test run.
import { Worker } from "node:worker_threads";

export class TimeLimitError extends Error {}

export function runTask(task, data = {}, { stepLimitMs = 60_000, heapMb = 6144 } = {}) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./task-worker.mjs", import.meta.url), {
      workerData: { task, data },
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    const steps = [];
    let timer;
    let current = "start";
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        worker.terminate();
        reject(new TimeLimitError(`${task}: step "${current}" did not finish within ${stepLimitMs} ms (steps done: ${JSON.stringify(steps)})`));
      }, stepLimitMs);
    };
    arm();
    worker.on("message", (m) => {
      if (m.kind === "step") {
        steps.push({ step: m.step, ms: Math.round(m.ms) });
        current = m.next ?? "?";
        arm();
      } else if (m.kind === "starting") {
        current = m.step;
      } else if (m.kind === "done") {
        clearTimeout(timer);
        worker.terminate();
        if (m.ok) resolve({ value: m.value, steps });
        else {
          const e = new Error(`${task} failed in step "${current}": ${m.error}`);
          e.workerError = m;
          reject(e);
        }
      }
    });
    worker.on("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`${task}: worker died in step "${current}": ${e?.stack ?? e}`));
    });
    worker.on("exit", (code) => {
      clearTimeout(timer);
      if (code !== 0 && code !== 1) reject(new Error(`${task}: worker exited with code ${code} in step "${current}"`));
    });
  });
}
