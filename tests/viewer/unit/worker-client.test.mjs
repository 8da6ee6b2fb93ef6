// www/worker-client.js over a fake Worker: which unasked notices reach the page.
import assert from "node:assert/strict";
import { test } from "node:test";
import { REPLY, REQUEST } from "../../../www/messages.js";

class FakeWorker {
  constructor() {
    FakeWorker.last = this;
    this.sent = [];
  }
  postMessage(msg) {
    this.sent.push(msg);
  }
  reply(data) {
    this.onmessage({ data });
  }
}
globalThis.Worker = FakeWorker;
const { WorkerClient } = await import("../../../www/worker-client.js");

test("an open that a later open superseded shows neither its progress nor its first rows", async () => {
  // A file of 64 MB or more is opened in one go in the worker, its first rows
  // (a preview) and progress sent on the way: dropped before a second file,
  // those came after the second drop and showed the first file's rows.
  const seen = [];
  const client = new WorkerClient("w.js", {
    onProgress: (stage) => seen.push(`progress ${stage}`),
    onPreview: (msg) => seen.push(`preview ${msg.info.name}`),
    onError: () => {},
  });
  const worker = FakeWorker.last;
  worker.reply({ type: REPLY.ready });
  const first = client.request({ type: REQUEST.open, name: "big.jsonl" });
  await Promise.resolve();
  await Promise.resolve();
  const second = client.request({ type: REQUEST.open, name: "small.jsonl" });
  await new Promise((r) => setTimeout(r, 0));
  const [a, b] = worker.sent;
  assert.deepEqual([a.name, b.name], ["big.jsonl", "small.jsonl"]);
  worker.reply({ type: REPLY.progress, req: a.req, stage: "Reading big", fraction: 0.5 });
  worker.reply({ type: REPLY.preview, req: a.req, info: { name: "big.jsonl" } });
  worker.reply({ type: REPLY.opened, req: a.req, info: { name: "big.jsonl" } });
  worker.reply({ type: REPLY.progress, req: b.req, stage: "Reading small", fraction: 0 });
  worker.reply({ type: REPLY.preview, req: b.req, info: { name: "small.jsonl" } });
  worker.reply({ type: REPLY.opened, req: b.req, info: { name: "small.jsonl" } });
  assert.deepEqual(seen, ["progress Reading small", "preview small.jsonl"]);
  // Each request still gets its own reply (the controller drops the earlier one).
  assert.equal((await first).info.name, "big.jsonl");
  assert.equal((await second).info.name, "small.jsonl");
});
