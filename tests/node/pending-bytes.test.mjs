// Session.takePendingBytes: the lines takePendingLines hands out, as UTF-8 bytes each ending in
// "\n" (what session-tree/node's manager writes per append), taken the same way: nothing until
// the first user or assistant message, then the header and everything held, then each new line.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Session } from "session-tree";

const decode = (bytes) => new TextDecoder().decode(bytes);

test("takePendingBytes hands out the pending lines as UTF-8, each ending in a newline", () => {
  const session = Session.create({ cwd: "/p" });
  session.appendModelChange("anthropic", "claude");
  const none = session.takePendingBytes();
  assert.ok(none instanceof Uint8Array);
  assert.equal(none.length, 0, "held back until a conversation");
  session.appendMessage({ role: "user", content: "héllo ✓ 日本", timestamp: 1 });
  const first = decode(session.takePendingBytes());
  assert.equal(first, session.toJsonl(), "the header and everything so far");
  assert.equal(first.split("\n").length, 4);
  assert.equal(session.takePendingBytes().length, 0, "taken once");
  const id = session.appendMessage({ role: "assistant", content: [], timestamp: 2 });
  const second = decode(session.takePendingBytes());
  assert.equal(second, `${session.toJsonl().trimEnd().split("\n").at(-1)}\n`);
  assert.equal(JSON.parse(second).id, id);
  assert.deepEqual(session.takePendingLines(), [], "the lines were taken with the bytes");
});
