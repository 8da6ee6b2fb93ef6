// The page's side of the worker: requests as promises, matched to their
// replies by number.

import { REPLY, REPLY_TO, REQUEST } from "./messages.js";

export class WorkerClient {
  /**
   * `onProgress(stage, fraction)` while opening; `onPreview(reply)` with the
   * first rows of a file read by piece; `onError(message)` if the worker itself fails.
   */
  constructor(url, { onProgress, onPreview = () => {}, onError }) {
    this.worker = new Worker(url, { type: "module" });
    this.next = 1;
    this.pending = new Map();
    this.latestOpen = 0; // the number of the latest open request
    // A module worker may drop messages that arrive while its imports (the
    // wasm) are still loading, so requests wait for its "ready".
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
    this.worker.onmessage = (event) => this.receive(event.data, onProgress, onPreview);
    this.worker.onerror = (event) => onError(`The worker failed: ${event.message ?? "unknown error"}`);
  }

  /** Sends a request (see messages.js); resolves with its reply, rejects with the worker's error. */
  async request(msg, transfer = []) {
    await this.ready;
    const req = this.next++;
    if (msg.type === REQUEST.open) this.latestOpen = req;
    return new Promise((resolve, reject) => {
      this.pending.set(req, { resolve, reject, expect: REPLY_TO[msg.type] });
      this.worker.postMessage({ ...msg, req }, transfer);
    });
  }

  receive(msg, onProgress, onPreview) {
    // Only the latest open's: an earlier one the worker is still finishing must not show its
    // progress, nor its first rows under the file opened after it.
    if (msg.type === REPLY.progress || msg.type === REPLY.preview) {
      if (msg.req !== this.latestOpen) return;
      return msg.type === REPLY.progress ? onProgress(msg.stage, msg.fraction) : onPreview(msg);
    }
    if (msg.type === REPLY.ready) return this.markReady();
    const p = this.pending.get(msg.req);
    if (!p) return;
    this.pending.delete(msg.req);
    if (msg.type === REPLY.error) p.reject(new Error(msg.message));
    else if (msg.type !== p.expect) p.reject(new Error(`expected a ${p.expect} reply, got ${msg.type}`));
    else p.resolve(msg);
  }
}
