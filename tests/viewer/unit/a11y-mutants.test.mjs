// www/a11y.js on what StrykerJS's mutants showed untested (docs/mutation-log.md, "JavaScript"):
// every role's spoken name, an arrival of nothing during a burst, a burst after an early flush
// or a cancel (no stale timer may announce it early), and an empty roving group.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BurstAnnouncer, messageLabel, rovingIndex } from "../../../www/a11y.js";
import { fakeTimers } from "./fakes.mjs";

test("each role pi writes has a spoken name of its own, not the fallback", () => {
  for (const role of [
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "hookMessage",
    "branchSummary",
    "compactionSummary",
    "system",
  ]) {
    const label = messageLabel(role, 0, 1, "");
    const name = label.slice(0, label.indexOf(" message, 1 of 1"));
    assert.ok(/^[A-Z][a-z]+( [a-z]+)?$/.test(name), `${role}: "${label}"`);
    assert.notEqual(label, `Message (${role}) message, 1 of 1`);
  }
});

const A = { kindName: "User", text: "a" };
const B = { kindName: "Assistant", text: "b" };

test("an arrival of nothing neither replaces the latest entry nor puts the announcement off", () => {
  const timers = fakeTimers();
  const said = [];
  const a = new BurstAnnouncer((t) => said.push(t), { quietMs: 500, timers });
  a.arrived(2, A);
  timers.advance(400);
  a.arrived(0, B);
  timers.advance(100); // 500 ms after the last real arrival
  assert.deepEqual(said, ["2 new entries; latest: User: a"]);
});

for (const stop of ["flush", "cancel"]) {
  test(`after ${stop}(), the next burst waits its own quiet time`, () => {
    const timers = fakeTimers();
    const said = [];
    const a = new BurstAnnouncer((t) => said.push(t), { quietMs: 500, timers });
    a.arrived(1, A);
    timers.advance(100);
    a[stop]();
    timers.advance(200);
    a.arrived(1, B); // due at 800; the first burst's timer (500) must be gone
    const before = said.length;
    timers.advance(200);
    assert.equal(said.length, before, "nothing said 200 ms into the second burst");
    timers.advance(300);
    assert.equal(said.at(-1), "1 new entry; latest: Assistant: b");
  });
}

test("an empty roving group moves nowhere", () => {
  for (const key of ["ArrowRight", "ArrowLeft", "Home", "End"]) assert.equal(rovingIndex(key, 0, 0), -1, key);
});
