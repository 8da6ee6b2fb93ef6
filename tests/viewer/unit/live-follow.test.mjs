// Unit tests of www/live.js: the follow protocol's pieces, with a fake
// EventSource and a fake growing file.

import assert from "node:assert/strict";
import { test } from "node:test";
import { headHash as serverHash } from "../../../pkg/cli/serve/protocol.js";
import {
  addedIds,
  FollowSwitch,
  fromBase64,
  HEAD_BYTES,
  headHash,
  NewMarker,
  PollFollower,
  SerialQueue,
  ServerFollower,
} from "../../../www/live.js";
import { Rng } from "../../shared/rng.mjs";
import { FakeEventSource } from "./fakes.mjs";

test("the page and the server hash the first bytes alike", () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  console.log(`seed ${seed}`);
  const rng = new Rng(seed);
  for (const n of [0, 1, 17, HEAD_BYTES - 1, HEAD_BYTES, HEAD_BYTES + 500]) {
    const bytes = Uint8Array.from({ length: n }, () => rng.int(0, 255));
    assert.equal(headHash(bytes), serverHash(bytes), `length ${n}`);
  }
  // FNV-1a 32 of "a", worked out by hand: (0x811c9dc5 ^ 0x61) * 0x01000193 mod 2^32.
  assert.equal(headHash(new TextEncoder().encode("a")), "e40c292c");
  // Bytes past HEAD_BYTES do not count.
  const a = new Uint8Array(HEAD_BYTES + 10);
  const b = a.slice();
  b[HEAD_BYTES + 3] = 1;
  assert.equal(headHash(a), headHash(b));
});

test("ServerFollower asks from its offset, decodes appends in order, and stops on a reset", () => {
  const got = [];
  let resets = 0;
  const f = new ServerFollower({
    path: "p/a b.jsonl",
    offset: 10,
    head: "0000abcd",
    onAppend: (bytes, offset) => got.push([new TextDecoder().decode(bytes), offset]),
    onReset: () => resets++,
    EventSourceImpl: FakeEventSource,
  }).start();
  const es = FakeEventSource.last;
  assert.equal(es.url, "api/follow?path=p%2Fa+b.jsonl&offset=10&head=0000abcd");
  es.emit("append", Buffer.from("héllo").toString("base64"));
  es.emit("append", Buffer.from("\n").toString("base64"));
  assert.deepEqual(got, [
    ["héllo", 16],
    ["\n", 17],
  ]);
  es.emit("reset", {});
  assert.equal(resets, 1);
  assert.equal(es.closed, true);
  assert.equal(f.active, false);
  es.emit("append", Buffer.from("late").toString("base64"));
  assert.equal(got.length, 2, "nothing after the reset");
});

test("fromBase64 gives the bytes back, a cut UTF-8 character included", () => {
  const bytes = Buffer.from("x😀y").subarray(0, 3);
  assert.deepEqual(fromBase64(bytes.toString("base64")), new Uint8Array(bytes));
});

/** A file whose content the test sets; getFile() returns a Blob of it, as FileSystemFileHandle does. */
const fakeFile = (text) => {
  const file = { bytes: new TextEncoder().encode(text) };
  file.getFile = async () => new Blob([file.bytes]);
  return file;
};

test("PollFollower sends what was appended, and resets on a shrink or a changed head", async () => {
  const file = fakeFile("head line\n");
  const got = [];
  let resets = 0;
  const f = new PollFollower({
    getFile: file.getFile,
    offset: file.bytes.length,
    head: headHash(file.bytes),
    onAppend: (bytes) => got.push(new TextDecoder().decode(bytes)),
    onReset: () => resets++,
    interval: 1e9,
  }).start();
  await f.check();
  assert.deepEqual(got, []);
  file.bytes = new TextEncoder().encode("head line\nmore");
  await f.check();
  assert.deepEqual(got, ["more"]);
  assert.equal(f.offset, 14);
  // Same length and more, but the first bytes changed: a rewrite.
  file.bytes = new TextEncoder().encode("HEAD line\nmore and more");
  await f.check();
  assert.equal(resets, 1);
  assert.equal(f.active, false);

  const g = new PollFollower({
    getFile: file.getFile,
    offset: file.bytes.length,
    head: headHash(file.bytes),
    onAppend: () => {},
    onReset: () => resets++,
    interval: 1e9,
  }).start();
  file.bytes = file.bytes.subarray(0, 5);
  await g.check();
  assert.equal(resets, 2, "a shrink is a reset");
  g.stop();
});

test("SerialQueue runs jobs one at a time, in order, past a failing one", async () => {
  const q = new SerialQueue();
  const log = [];
  const slow = (name, ms) => () => new Promise((r) => setTimeout(() => r(log.push(name)), ms));
  q.push(slow("a", 30));
  q.push(() => {
    throw new Error("boom");
  }).catch(() => log.push("caught"));
  await q.push(slow("b", 1));
  assert.deepEqual(log, ["a", "caught", "b"]);
});

test("NewMarker keeps what arrived while the user was not looking, until they look", () => {
  const m = new NewMarker();
  m.arrived(["a", "b"], true);
  assert.equal(m.count, 0);
  m.arrived(["c", "d"], false);
  m.arrived(["d", "e"], false);
  assert.equal(m.count, 3);
  assert.equal(m.first, "c");
  assert.ok(m.has("e") && !m.has("a"));
  m.look();
  assert.equal(m.count, 0);
  assert.equal(m.first, null);
  assert.deepEqual(addedIds(new Set(["a"]), ["a", "b", "c"]), ["b", "c"]);
});

test("FollowSwitch: picks the newest while on; a selection of the user's pauses it", () => {
  const s = new FollowSwitch(true);
  assert.equal(s.pick("n1"), "n1");
  assert.equal(s.selected("n1"), false, "its own pick does not pause it");
  assert.equal(s.selected("other"), true);
  assert.equal(s.on, false);
  assert.equal(s.pick("n2"), null);
  assert.equal(s.toggle(), true);
  assert.equal(s.pick("n3"), "n3");
});
