// Unit tests of www/store.js and www/messages.js.

import assert from "node:assert/strict";
import { test } from "node:test";
import { openRequest, REPLY, REPLY_TO, REQUEST } from "../../../www/messages.js";
import { createStore, initialState } from "../../../www/store.js";

test("the store starts from the initial state and cannot be written from outside", () => {
  const store = createStore();
  assert.deepEqual(store.get(), initialState());
  assert.equal(store.get().filter, "default");
  assert.throws(() => {
    store.get().filter = "all";
  }, TypeError);
});

test("set merges a patch and tells subscribers only the keys that changed", () => {
  const store = createStore();
  const heard = [];
  const stop = store.subscribe((state, changed) => heard.push([state.filter, state.query, changed]));
  store.set({ filter: "all" });
  store.set({ filter: "all", query: "npm" });
  store.set({ filter: "all" }); // no change: nobody hears of it
  stop();
  store.set({ filter: "user-only" }); // unsubscribed
  assert.deepEqual(heard, [
    ["all", "", ["filter"]],
    ["all", "npm", ["query"]],
  ]);
  assert.equal(store.get().filter, "user-only");
  assert.equal(store.get().tab, "context", "untouched keys stay");
});

test("every request type has its reply type", () => {
  assert.deepEqual(Object.keys(REPLY_TO).sort(), Object.values(REQUEST).sort());
  for (const reply of Object.values(REPLY_TO)) assert.ok(Object.values(REPLY).includes(reply), reply);
  assert.equal(REPLY_TO[REQUEST.select], REPLY.selected);
});

test("openRequest: a Blob is read by the worker, an ArrayBuffer moves, a string is copied", () => {
  const blob = new Blob(["{}"]);
  assert.deepEqual(openRequest(blob, "a.jsonl", "all", "q"), {
    message: { type: "open", file: blob, name: "a.jsonl", filter: "all", query: "q" },
    transfer: [],
  });
  const buffer = new ArrayBuffer(4);
  const bytes = openRequest(buffer, "b.jsonl", "default", "");
  assert.equal(bytes.message.bytes, buffer);
  assert.deepEqual(bytes.transfer, [buffer]);
  const text = openRequest("{}", "pasted.jsonl", "default", "");
  assert.equal(text.message.text, "{}");
  assert.deepEqual(text.transfer, []);
  // A large file on `serve` stays there: the worker reads it by range.
  const remote = { url: "http://127.0.0.1:1/files/c.jsonl", size: 9, head: "0badf00d" };
  const served = openRequest({ remote }, "c.jsonl", "default", "");
  assert.deepEqual(served.message.remote, remote);
  assert.equal(served.message.bytes, undefined);
});
