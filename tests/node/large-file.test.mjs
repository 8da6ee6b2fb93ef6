// An input over 1 GiB (what the bytes path refuses) opened by getTree, a context,
// Session.open and `session-tree info` through fileSource: generated on the fly in the
// system's temporary folder, a few hundred entries whose tool results are a MiB or more,
// then deleted.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { buildSessionContext, countEntries, fileSource, getTree, Session, sessionInfo } from "session-tree";

const GiB = 1024 ** 3;
const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve("session-tree/package.json")), "bin", "session-tree.js");

/**
 * Writes a v3 session of a little over `bytes`: a chain of user messages, each with a tool
 * result of a MiB on a side branch (so a context at the chain's end stays small). Returns
 * the chain's last id.
 */
function writeLarge(path, bytes) {
  const fd = openSync(path, "w");
  try {
    const stamp = (i) => new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
    writeSync(fd, `${JSON.stringify({ type: "session", version: 3, id: "big", timestamp: stamp(0), cwd: "/big" })}\n`);
    const body = "ü".repeat(1 << 19); // 1 MiB of UTF-8 text
    let written = 0;
    let parent = null;
    for (let i = 0; written < bytes; i++) {
      const id = (2 * i).toString(16).padStart(8, "0");
      const user = { role: "user", content: `step ${i}`, timestamp: i };
      const result = {
        role: "toolResult",
        toolCallId: `c${i}`,
        toolName: "read",
        content: [{ type: "text", text: body }],
      };
      const side = (2 * i + 1).toString(16).padStart(8, "0");
      const lines = [
        { type: "message", id, parentId: parent, timestamp: stamp(2 * i + 1), message: user },
        { type: "message", id: side, parentId: id, timestamp: stamp(2 * i + 2), message: result },
      ];
      for (const line of lines) written += writeSync(fd, `${JSON.stringify(line)}\n`);
      parent = id;
    }
    return parent;
  } finally {
    closeSync(fd);
  }
}

test("a session over 1 GiB opens through fileSource", { timeout: 120_000 }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), "session-tree-large-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "large.jsonl");
  const leaf = writeLarge(path, 1.1 * GiB);
  const source = fileSource(path);
  t.after(() => source.close());
  assert.ok(source.size > 1.1 * GiB);

  const tree = getTree(source);
  // Down the chain: each node has its tool result (a leaf) and the next step.
  let steps = 0;
  let last;
  for (let level = tree; ; ) {
    const next = level.find((n) => n.children.length > 0); // the step, not its tool result
    if (next === undefined) break;
    last = next;
    steps++;
    level = next.children;
  }
  assert.equal(2 * steps, countEntries(source) - 1);
  assert.equal(last.entry.id, leaf);
  const result = last.children[0].entry;
  assert.equal(result.message.content[0].text.length, 1 << 19);

  const context = buildSessionContext(source, leaf);
  assert.deepEqual(
    context.messages.map((m) => m.content),
    Array.from({ length: steps }, (_, i) => `step ${i}`),
  );
  // A session opened on it: its entries stay in the file, read when asked; it appends.
  const session = Session.open(source);
  assert.equal(session.leafId, last.children[0].entry.id);
  assert.equal(session.header.id, "big");
  assert.deepEqual(session.buildSessionContext(leaf), context);
  const id = session.appendMessage({ role: "user", content: "more", timestamp: 1 });
  assert.equal(session.getEntry(id).parentId, last.children[0].entry.id);
  const [line] = session.takePendingLines();
  assert.equal(JSON.parse(line).id, id);
  assert.equal(session.getBranch().length, steps + 2);

  const info = sessionInfo(source);
  assert.equal(info.messageCount, 2 * steps);
  assert.equal(info.firstMessage, "step 0");

  const out = execFileSync(process.execPath, [bin, "info", "--json", path], { encoding: "utf8" });
  const [row] = JSON.parse(out);
  assert.equal(row.info.id, "big");
  assert.equal(row.info.messageCount, 2 * steps);
});
