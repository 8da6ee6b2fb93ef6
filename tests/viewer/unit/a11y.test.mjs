// Unit tests of www/a11y.js: what a screen reader hears of a row, of a
// message, and of a followed session's arrivals.

import assert from "node:assert/strict";
import { test } from "node:test";
import { arrivalText, BurstAnnouncer, messageLabel, plainKey, rovingIndex, rowMarks } from "../../../www/a11y.js";
import { PATH } from "../../../www/messages.js";
import { fakeTimers } from "./fakes.mjs";

test("a row says whether it is the leaf or on the path to it", () => {
  assert.equal(rowMarks({}), "");
  assert.equal(rowMarks({ state: PATH.off }), "");
  assert.equal(rowMarks({ state: PATH.sent }), ", on the path");
  assert.equal(rowMarks({ state: PATH.unsent }), ", on the path");
  assert.equal(rowMarks({ isLeaf: true, state: PATH.sent }), ", selected leaf");
  // A leaf the filter hides marks its nearest visible ancestor, which has no path state of its own.
  assert.equal(rowMarks({ isLeaf: true }), ", selected leaf");
});

test("a message names its role, its place and its entry", () => {
  assert.equal(messageLabel("toolResult", 2, 9, "a1b2"), "Tool result message, 3 of 9, from entry a1b2");
  assert.equal(messageLabel("weird", 0, 1, ""), "Message (weird) message, 1 of 1");
});

test("arrivals: the count and the newest entry", () => {
  assert.equal(arrivalText(0, null), "");
  assert.equal(arrivalText(1, { kindName: "Assistant", text: "Done." }), "1 new entry; latest: Assistant: Done.");
  assert.equal(arrivalText(3, null), "3 new entries");
});

test("a burst of arrivals is announced once, after it goes quiet", () => {
  const timers = fakeTimers();
  const said = [];
  const a = new BurstAnnouncer((t) => said.push(t), { quietMs: 1000, timers });
  for (let i = 0; i < 10; i++) {
    a.arrived(2, { kindName: "Tool result", text: `out ${i}` });
    timers.advance(200); // arrivals 200 ms apart: one burst
  }
  assert.deepEqual(said, []);
  timers.advance(1000);
  assert.deepEqual(said, ["20 new entries; latest: Tool result: out 9"]);
  assert.equal(timers.pending(), 0);
  // The next burst starts from zero.
  a.arrived(1, { kindName: "User", text: "thanks" });
  timers.advance(1000);
  assert.deepEqual(said.at(-1), "1 new entry; latest: User: thanks");
  assert.equal(said.length, 2);
});

test("nothing arrived, nothing said; a cancelled burst is never said", () => {
  const timers = fakeTimers();
  const said = [];
  const a = new BurstAnnouncer((t) => said.push(t), { quietMs: 500, timers });
  a.arrived(0, null);
  a.flush();
  a.arrived(4, { kindName: "User", text: "x" });
  a.cancel();
  timers.advance(5000);
  assert.deepEqual(said, []);
});

test("the arrows move within a group with one tab stop, wrapping; Home and End go to the ends", () => {
  assert.equal(rovingIndex("ArrowRight", 0, 6), 1);
  assert.equal(rovingIndex("ArrowRight", 5, 6), 0);
  assert.equal(rovingIndex("ArrowLeft", 0, 6), 5);
  assert.equal(rovingIndex("Home", 3, 6), 0);
  assert.equal(rovingIndex("End", 3, 6), 5);
  assert.equal(rovingIndex("ArrowDown", 1, 6), -1, "tabs leave ↑ ↓ to the page");
  assert.equal(rovingIndex("ArrowDown", 1, 5, { upDown: true }), 2);
  assert.equal(rovingIndex("ArrowUp", 0, 5, { upDown: true }), 4);
  assert.equal(rovingIndex("Enter", 1, 5), -1);
  assert.equal(rovingIndex("ArrowRight", -1, 5), -1, "focus outside the group");
});

test("a widget's keys leave Alt, Ctrl and ⌘ combinations to the browser", () => {
  // The graph, the tabs and the filters took Alt+← (Back), Ctrl+L, Ctrl+K,
  // Ctrl+H and Ctrl+J as their own plain keys and swallowed them.
  const key = (k, mods = {}) => ({ key: k, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, ...mods });
  assert.equal(plainKey(key("ArrowLeft")), "ArrowLeft");
  assert.equal(plainKey(key("j", { shiftKey: true })), "j");
  for (const mod of ["altKey", "ctrlKey", "metaKey"]) {
    for (const k of ["ArrowLeft", "ArrowRight", "l", "k", "h", "j", "Home", "End", "Enter"]) {
      assert.equal(plainKey(key(k, { [mod]: true })), null, `${mod} ${k}`);
    }
  }
  assert.equal(rovingIndex(plainKey(key("ArrowLeft", { altKey: true })), 1, 3), -1);
});
