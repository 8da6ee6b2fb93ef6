// The values an append takes cross into wasm as JSON.stringify's text, written as UTF-8 straight
// into wasm memory: in one call when the text surely fits the room the bindings give (three
// bytes a UTF-16 unit), in a second one for the text kept from the first otherwise. The line
// written must hold exactly JSON.stringify's text at every size around that room, for every kind
// of character (lone surrogates come out of JSON.stringify escaped); toJSON and getters must run
// once; an error thrown while stringifying must come out as it was thrown, with nothing
// appended; and a toJSON that calls into the module (and may grow its memory) must not disturb
// the text.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Session } from "session-tree";

const lastLine = (session) => session.toJsonl().trimEnd().split("\n").at(-1);
const messageText = (line) => {
  // The line is {"type":"message","id":..,"parentId":..,"timestamp":..,"message":<text>}
  const at = line.indexOf(',"message":');
  return line.slice(at + ',"message":'.length, -1);
};

test("every size around the room, every kind of character, is JSON.stringify's text", () => {
  const session = Session.create({ cwd: "/p" });
  const pieces = ["a", "é", "漢", "😀", "\ud800", "\udfff", '"', "\\", "\n", "\u0000", "\u2028"];
  // 2048 bytes of room: texts of about 680 units fit surely; larger ones take the second call.
  for (const size of [0, 1, 100, 600, 670, 680, 681, 682, 683, 700, 1000, 2040, 2050, 3000, 70000]) {
    for (const piece of pieces) {
      const content = piece.repeat(Math.ceil(size / piece.length)).slice(0, size);
      const message = { role: "user", content, timestamp: size };
      session.appendMessage(message);
      const line = lastLine(session);
      assert.equal(messageText(line), JSON.stringify(message), `size ${size}, ${JSON.stringify(piece)}`);
      assert.deepEqual(JSON.parse(line).message, JSON.parse(JSON.stringify(message)));
      assert.deepEqual(session.getLeafEntry().message, JSON.parse(JSON.stringify(message)));
    }
  }
  session.free();
});

test("toJSON runs once, for a text that fits and for one that takes the second call", () => {
  for (const size of [10, 5000]) {
    const session = Session.create({ cwd: "/p" });
    let calls = 0;
    const message = {
      role: "user",
      timestamp: 1,
      toJSON() {
        calls++;
        return { role: "user", content: "x".repeat(size), timestamp: 1 };
      },
    };
    session.appendMessage(message);
    assert.equal(calls, 1, `size ${size}`);
    assert.equal(JSON.parse(lastLine(session)).message.content.length, size);
    session.free();
  }
});

test("what JSON.stringify throws comes out as thrown, and nothing is appended", () => {
  const session = Session.create({ cwd: "/p" });
  session.appendMessage({ role: "user", content: "first", timestamp: 1 });
  const before = session.toJsonl();
  const leaf = session.leafId;
  const cycle = { role: "user", content: "x", timestamp: 2 };
  cycle.self = cycle;
  assert.throws(() => session.appendMessage(cycle), TypeError);
  const mine = new Error("from toJSON");
  assert.throws(
    () =>
      session.appendMessage({
        toJSON: () => {
          throw mine;
        },
      }),
    (error) => error === mine,
  );
  assert.throws(() => session.appendMessage({ role: "user", content: 1n, timestamp: 3 }), TypeError);
  assert.equal(session.toJsonl(), before);
  assert.equal(session.leafId, leaf);
  // A value JSON has no text for is written as pi writes it: the key left out.
  session.appendMessage(() => {});
  assert.equal(JSON.parse(lastLine(session)).message, undefined);
  session.free();
});

test("a toJSON that calls into the module and grows its memory leaves the text whole", () => {
  const session = Session.create({ cwd: "/p" });
  const other = Session.create({ cwd: "/q" });
  const big = "y".repeat(4 << 20);
  for (const size of [10, 5000]) {
    const content = "z".repeat(size);
    const message = {
      toJSON() {
        // Several MB through another session: the module's memory grows meanwhile.
        for (let i = 0; i < 4; i++) other.appendMessage({ role: "user", content: big, timestamp: i });
        return { role: "user", content, timestamp: 1 };
      },
    };
    session.appendMessage(message);
    assert.equal(JSON.parse(lastLine(session)).message.content, content, `size ${size}`);
  }
  other.free();
  session.free();
});
