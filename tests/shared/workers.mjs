// Worker threads with a time limit, so that a hang becomes a clear failure instead of a stuck
// test run. One watch (watchWorker) serves both forms:
//   runTask: one task in a fresh worker; the task may report steps, and each step restarts the
//            clock, so every step of a multi-step task gets the full limit;
//   Pool:    a few long-lived workers (each loads its modules once) running many small tasks,
//            one time limit per task; a worker that runs over is replaced.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

export class TimeLimitError extends Error {}

/**
 * Resolves with the first of: `{ reply }` (a message `classify` calls "reply"), `{ timedOut: true }`
 * (no reply within `limitMs` since the start or the last "progress" message), `{ error }` (the
 * worker threw) or `{ exitCode }` (it exited). Other messages are passed to `onOther`.
 */
export function watchWorker(worker, { limitMs, classify, onProgress = () => {} }) {
  return new Promise((resolve) => {
    let timer;
    const finish = (outcome) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      resolve(outcome);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ timedOut: true }), limitMs);
    };
    const onMessage = (m) => {
      const kind = classify(m);
      if (kind === "reply") finish({ reply: m });
      else if (kind === "progress") {
        onProgress(m);
        arm();
      } else if (kind === "note") onProgress(m);
    };
    const onError = (error) => finish({ error });
    const onExit = (exitCode) => finish({ exitCode });
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    arm();
  });
}

/**
 * Runs `tasks[task](data, step)` of the module at `tasksUrl` in a fresh worker (see
 * task-worker.mjs). Resolves `{ value, steps, ms }`; rejects with a TimeLimitError naming the
 * step that hung, or with an Error carrying the task's failure as `workerError`.
 * `heapMb` caps the worker's heap (undefined: Node's default).
 */
export async function runTask(tasksUrl, task, data = {}, { stepLimitMs = 60_000, heapMb } = {}) {
  const worker = new Worker(new URL("./task-worker.mjs", import.meta.url), {
    workerData: { tasksUrl: String(tasksUrl), task, data },
    ...(heapMb ? { resourceLimits: { maxOldGenerationSizeMb: heapMb } } : {}),
  });
  const steps = [];
  let current = "start";
  const outcome = await watchWorker(worker, {
    limitMs: stepLimitMs,
    classify: (m) =>
      m.kind === "done" ? "reply" : m.kind === "step" ? "progress" : m.kind === "starting" ? "note" : undefined,
    onProgress: (m) => {
      if (m.kind === "starting") current = m.step;
      else {
        steps.push({ step: m.step, ms: Math.round(m.ms) });
        current = m.next ?? "?";
      }
    },
  });
  worker.terminate();
  if (outcome.timedOut) {
    throw new TimeLimitError(
      `${task}: step "${current}" did not finish within ${stepLimitMs} ms (steps done: ${JSON.stringify(steps)})`,
    );
  }
  if (outcome.error)
    throw new Error(`${task}: worker died in step "${current}": ${outcome.error?.stack ?? outcome.error}`);
  if (outcome.exitCode !== undefined)
    throw new Error(`${task}: worker exited with code ${outcome.exitCode} in step "${current}"`);
  const m = outcome.reply;
  if (!m.ok) {
    const e = new Error(`${task} failed in step "${current}": ${m.error}`);
    e.workerError = m;
    throw e;
  }
  return { value: m.value, steps, ms: m.ms };
}

/**
 * A pool of `size` workers running the module at `workerUrl`, which answers each posted task
 * with a message carrying the task's `id` (and posts `{ ready: true }` once loaded).
 */
export class Pool {
  constructor(workerUrl, size = Math.max(1, Math.min(2, availableParallelism()))) {
    this.workerUrl = workerUrl;
    this.slots = Array.from({ length: size }, () => ({ worker: null, ready: null, busy: false }));
    this.queue = [];
    this.nextId = 1;
  }

  /** Runs a task; resolves `{ ok, ...reply }` | `{ timedOut: true, ms }` | `{ ok: false, error }`. */
  run(task, timeoutMs) {
    return new Promise((resolve) => {
      this.queue.push({ task, timeoutMs, resolve });
      this.#pump();
    });
  }

  async close() {
    await Promise.all(this.slots.map((slot) => this.#kill(slot)));
  }

  #start(slot) {
    const worker = new Worker(this.workerUrl);
    slot.worker = worker;
    slot.ready = new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (!m?.ready) return;
        worker.off("message", onMessage);
        worker.off("error", reject);
        resolve();
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
    });
    return slot.ready;
  }

  async #kill(slot) {
    const worker = slot.worker;
    slot.worker = null;
    slot.ready = null;
    if (worker) await worker.terminate();
  }

  #pump() {
    for (const slot of this.slots) {
      if (slot.busy || !this.queue.length) continue;
      const job = this.queue.shift();
      slot.busy = true;
      this.#dispatch(slot, job).finally(() => {
        slot.busy = false;
        this.#pump();
      });
    }
  }

  async #dispatch(slot, { task, timeoutMs, resolve }) {
    try {
      await (slot.worker ? slot.ready : this.#start(slot));
    } catch (e) {
      await this.#kill(slot);
      resolve({ ok: false, error: `worker failed to start: ${e?.message ?? e}` });
      return;
    }
    const id = this.nextId++;
    const worker = slot.worker;
    const t0 = performance.now();
    const outcome = watchWorker(worker, { limitMs: timeoutMs, classify: (m) => (m?.id === id ? "reply" : undefined) });
    worker.postMessage({ ...task, id });
    const { reply, timedOut, error, exitCode } = await outcome;
    if (reply) resolve({ ...reply, ms: reply.ms ?? performance.now() - t0 });
    else if (timedOut) {
      resolve({ timedOut: true, ms: performance.now() - t0 });
      this.#kill(slot);
    } else if (error) {
      resolve({ ok: false, error: `worker error: ${error?.message ?? error}` });
      this.#kill(slot);
    } else {
      resolve({ ok: false, error: `worker exited with code ${exitCode}` });
      slot.worker = null;
    }
  }
}
