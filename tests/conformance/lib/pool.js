// A small pool of worker threads with a time limit per task. A task that runs over its
// limit has its worker terminated (and replaced); the task resolves { timedOut: true }.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

const WORKER_URL = new URL("./worker.js", import.meta.url);

class Slot {
	constructor() {
		this.worker = null;
		this.ready = null;
		this.busy = false;
	}
	start() {
		this.worker = new Worker(WORKER_URL);
		this.ready = new Promise((resolve, reject) => {
			const onMsg = (m) => {
				if (m?.ready) {
					this.worker.off("message", onMsg);
					this.worker.off("error", onErr);
					resolve();
				}
			};
			const onErr = (e) => reject(e);
			this.worker.on("message", onMsg);
			this.worker.once("error", onErr);
		});
		return this.ready;
	}
	async kill() {
		const w = this.worker;
		this.worker = null;
		this.ready = null;
		if (w) await w.terminate();
	}
}

export class Pool {
	constructor(size = Math.max(1, Math.min(2, availableParallelism()))) {
		this.slots = Array.from({ length: size }, () => new Slot());
		this.queue = [];
		this.nextId = 1;
	}

	/** Run a task in a worker; resolves { ok, ...result } | { timedOut: true, ms } | { ok: false, error }. */
	run(task, timeoutMs) {
		return new Promise((resolve) => {
			this.queue.push({ task, timeoutMs, resolve });
			this._pump();
		});
	}

	_pump() {
		for (const slot of this.slots) {
			if (slot.busy || !this.queue.length) continue;
			const job = this.queue.shift();
			slot.busy = true;
			this._dispatch(slot, job).finally(() => {
				slot.busy = false;
				this._pump();
			});
		}
	}

	async _dispatch(slot, { task, timeoutMs, resolve }) {
		try {
			if (!slot.worker) await slot.start();
			else await slot.ready;
		} catch (e) {
			await slot.kill();
			resolve({ ok: false, error: `worker failed to start: ${e?.message ?? e}` });
			return;
		}
		const id = this.nextId++;
		const w = slot.worker;
		const t0 = performance.now();
		await new Promise((done) => {
			let finished = false;
			const finish = (value) => {
				if (finished) return;
				finished = true;
				clearTimeout(timer);
				w.off("message", onMsg);
				w.off("error", onErr);
				w.off("exit", onExit);
				resolve(value);
				done();
			};
			const onMsg = (m) => {
				if (m?.id === id) finish({ ...m, ms: m.ms ?? performance.now() - t0 });
			};
			const onErr = (e) => {
				finish({ ok: false, error: `worker error: ${e?.message ?? e}` });
				slot.kill();
			};
			const onExit = (code) => {
				finish({ ok: false, error: `worker exited with code ${code}` });
				slot.worker = null;
			};
			const timer = setTimeout(() => {
				finish({ timedOut: true, ms: performance.now() - t0 });
				slot.kill();
			}, timeoutMs);
			w.on("message", onMsg);
			w.once("error", onErr);
			w.once("exit", onExit);
			w.postMessage({ ...task, id });
		});
	}

	async close() {
		await Promise.all(this.slots.map((s) => s.kill()));
	}
}
