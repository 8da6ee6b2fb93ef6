// www/live.js on what StrykerJS's mutants showed untested (docs/mutation-log.md, "JavaScript"):
// ServerFollower's reconnect after a dropped connection (from the offset reached, never twice,
// not after stop, old sources ignored), PollFollower's timer, its guard against overlapping
// checks, a shrink past the head, and its head following the first appends.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FollowSwitch, HEAD_BYTES, headHash, PollFollower, ServerFollower } from "../../../www/live.js";
import { FakeEventSource } from "./fakes.mjs";

/** Replaces the global timers with ones the test drives (`advance(ms)`), for the body of `fn`. */
async function withFakeTimers(fn) {
  const saved = ["setTimeout", "clearTimeout", "setInterval", "clearInterval"].map((k) => [k, globalThis[k]]);
  let now = 0;
  let seq = 0;
  const due = new Map();
  const clear = (id) => due.delete(id);
  const add = (timer) => {
    due.set(++seq, timer);
    return seq;
  };
  Object.assign(globalThis, {
    setTimeout: (fn, ms) => add({ at: now + ms, fn }),
    setInterval: (fn, ms) => add({ at: now + ms, fn, every: ms }),
    clearTimeout: clear,
    clearInterval: clear,
  });
  const clock = {
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        const next = [...due].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        const [id, t] = next;
        now = t.at;
        if (t.every) t.at += t.every;
        else due.delete(id);
        await t.fn();
      }
      now = end;
    },
    pending: () => due.size,
  };
  try {
    await fn(clock);
  } finally {
    for (const [k, v] of saved) globalThis[k] = v;
  }
}

const b64 = (text) => Buffer.from(text).toString("base64");

test("ServerFollower reconnects a second after an error, from the offset reached", async () => {
  await withFakeTimers(async (clock) => {
    FakeEventSource.all = [];
    const got = [];
    let resets = 0;
    const f = new ServerFollower({
      path: "a.jsonl",
      offset: 10,
      head: "h",
      onAppend: (_bytes, offset) => got.push(offset),
      onReset: () => resets++,
      EventSourceImpl: FakeEventSource,
    }).start();
    assert.equal(f.active, true);
    const [first] = FakeEventSource.all;
    first.emit("append", b64("12345"));
    first.onerror();
    assert.equal(first.closed, true, "the dropped source is closed, not left to reconnect to its first URL");
    await clock.advance(999);
    assert.equal(FakeEventSource.all.length, 1);
    await clock.advance(1);
    assert.equal(FakeEventSource.all.length, 2);
    const second = FakeEventSource.all[1];
    assert.equal(new URL(second.url, "http://x/").searchParams.get("offset"), "15");
    // The old source's late events and errors change nothing.
    first.emit("append", b64("late"));
    first.emit("reset", {});
    first.onerror();
    assert.deepEqual(got, [15]);
    assert.equal(resets, 0);
    assert.equal(second.closed, false);
    await clock.advance(5000);
    assert.equal(FakeEventSource.all.length, 2, "no reconnect for the old source's error");
    second.emit("append", b64("ab"));
    assert.deepEqual(got, [15, 17]);
    f.stop();
  });
});

test("ServerFollower: stop() during the wait cancels the reconnect; start() again closes the old source", async () => {
  await withFakeTimers(async (clock) => {
    FakeEventSource.all = [];
    const f = new ServerFollower({
      path: "a.jsonl",
      offset: 0,
      head: "h",
      onAppend: () => {},
      onReset: () => {},
      EventSourceImpl: FakeEventSource,
    }).start();
    FakeEventSource.all[0].onerror();
    f.stop();
    assert.equal(f.active, false);
    await clock.advance(5000);
    assert.equal(FakeEventSource.all.length, 1);
    f.start();
    f.start();
    assert.equal(FakeEventSource.all.length, 3);
    assert.equal(FakeEventSource.all[1].closed, true);
    assert.equal(FakeEventSource.all[2].closed, false);
    f.stop();
  });
});

/** A file whose content the test sets; getFile() returns a Blob of it and counts the calls. */
const fakeFile = (text) => {
  const file = { bytes: new TextEncoder().encode(text), reads: 0 };
  file.getFile = async () => {
    file.reads++;
    return new Blob([file.bytes]);
  };
  return file;
};
const grow = (file, text) => {
  const more = new TextEncoder().encode(text);
  const bytes = new Uint8Array(file.bytes.length + more.length);
  bytes.set(file.bytes);
  bytes.set(more, file.bytes.length);
  file.bytes = bytes;
};
const follower = (file, got, resets = { n: 0 }) =>
  new PollFollower({
    getFile: file.getFile,
    offset: file.bytes.length,
    head: headHash(file.bytes),
    onAppend: (bytes) => got.push(new TextDecoder().decode(bytes)),
    onReset: () => resets.n++,
    interval: 1000,
  });

test("PollFollower checks once an interval while started, and not after stop()", async () => {
  await withFakeTimers(async (clock) => {
    const file = fakeFile("line\n");
    const got = [];
    const f = follower(file, got).start();
    assert.equal(f.active, true);
    f.start(); // a restart keeps one timer
    grow(file, "a\n");
    await clock.advance(1000);
    assert.deepEqual(got, ["a\n"]);
    assert.equal(file.reads, 1);
    f.stop();
    assert.equal(f.active, false);
    grow(file, "b\n");
    await clock.advance(5000);
    await f.check();
    assert.deepEqual(got, ["a\n"]);
    assert.equal(clock.pending(), 0, "no timer left behind");
  });
});

test("PollFollower: two checks at once send an append once", async () => {
  const file = fakeFile("line\n");
  const got = [];
  const f = follower(file, got).start();
  grow(file, "more\n");
  await Promise.all([f.check(), f.check()]);
  assert.deepEqual(got, ["more\n"]);
  f.stop();
});

test("PollFollower: appends after appends, the head growing with them, are no rewrite", async () => {
  const file = fakeFile("a");
  const got = [];
  const resets = { n: 0 };
  const f = follower(file, got, resets).start();
  for (const part of ["b", "cd", "e\n"]) {
    grow(file, part);
    await f.check();
  }
  await f.check();
  assert.deepEqual(got, ["b", "cd", "e\n"]);
  assert.equal(resets.n, 0);
  f.stop();
});

test("PollFollower: a file that shrinks but keeps its first HEAD_BYTES is a rewrite", async () => {
  const file = fakeFile("x".repeat(HEAD_BYTES + 100));
  const resets = { n: 0 };
  const f = follower(file, [], resets).start();
  file.bytes = file.bytes.subarray(0, HEAD_BYTES + 50);
  await f.check();
  assert.equal(resets.n, 1);
  assert.equal(f.active, false);
});

test("FollowSwitch starts on", () => {
  assert.equal(new FollowSwitch().pick("n1"), "n1");
});
