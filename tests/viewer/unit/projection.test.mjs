// projectionView and systemView (www/analysis.js) read the package's
// buildSessionProjection and currentSystemMessage for the viewer. Checked here
// against pi 1.6.0 itself: at every entry of the demo's sample and of random
// pi 1.6 sessions (PROJECTION_SEED replays a run), the message sources are
// pi's, the entries marked sent are those pi takes a message from, and an
// edit is reported exactly where pi's projection differs from the entry's own
// messages.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Session } from "session-tree";
import { projectionView, systemView } from "../../../www/analysis.js";
import { PATH } from "../../../www/messages.js";
import { buildSessionProjection, pi, piLoad } from "../../shared/pi.mjs";
import { envSeed, Rng } from "../../shared/rng.mjs";
import { generateSession } from "../../shared/sessions.mjs";

const SAMPLE = readFileSync(new URL("../../../www/sample.jsonl", import.meta.url));

/** Checks projectionView at every entry of `source` against pi 1.6.0; returns how many leaves it checked. */
function checkAgainstPi(source, what) {
  const session = Session.open(source);
  const entries = piLoad(source).filter((e) => e.type !== "session");
  let checked = 0;
  try {
    for (const { id } of session.getEntries()) {
      let expected;
      try {
        expected = buildSessionProjection(entries, id);
      } catch {
        continue; // pi throws on a context edit without a replacement; nothing to compare
      }
      const view = projectionView(session.getBranch(id), session.buildSessionProjection(id));
      const at = `${what}, leaf ${id}`;
      assert.deepEqual(
        view.sources,
        expected.entries.flatMap((e) => e.messages.map(() => e.sourceEntry.id)),
        at,
      );
      const sentIds = new Set(expected.entries.filter((e) => e.messages.length).map((e) => e.sourceEntry.id));
      const path = session.getBranch(id);
      assert.deepEqual(
        [...view.state],
        path.map((e) => (sentIds.has(e.id) ? PATH.sent : PATH.unsent)),
        at,
      );
      // Where pi's projection of an entry differs from the entry's own messages, an edit applies.
      let k = 0;
      for (const { sourceEntry, messages } of expected.entries) {
        const own = pi.sessionEntryToContextMessages(sourceEntry);
        const older = sourceEntry.type === "compaction" && sourceEntry !== expected.entries[0].sourceEntry;
        const edit = view.edits.get(sourceEntry.id);
        if (!older && own.length && messages.length === 0) assert.equal(edit?.kind, "omit", `${at}: ${sourceEntry.id}`);
        if (!older && JSON.stringify(own) !== JSON.stringify(messages) && messages.length)
          assert.equal(edit?.kind, "replace", `${at}: ${sourceEntry.id}`);
        // An edit reported as applied is one pi applied: nothing left, or the edit's content in place.
        if (edit?.kind === "omit") assert.equal(messages.length, 0, `${at}: ${sourceEntry.id} omitted`);
        if (edit?.kind === "replace") {
          const { replacement } = expected.entries.find((e) => e.sourceEntry.id === edit.editId).sourceEntry;
          const editable = messages.filter((m) => ["user", "assistant", "toolResult", "custom"].includes(m.role));
          assert.ok(editable.length, `${at}: ${sourceEntry.id} has an editable message`);
          for (const m of editable) {
            const wrap = typeof replacement.content === "string" && (m.role === "assistant" || m.role === "toolResult");
            assert.equal(
              JSON.stringify(m.content),
              JSON.stringify(wrap ? [{ type: "text", text: replacement.content }] : replacement.content),
              `${at}: ${sourceEntry.id} replaced`,
            );
          }
        }
        for (const m of messages) {
          const replaced = edit?.kind === "replace" && ["user", "assistant", "toolResult", "custom"].includes(m.role);
          assert.equal(view.editedBy[k], replaced ? edit.editId : null, `${at}: message ${k}`);
          k++;
        }
      }
      checked++;
    }
  } finally {
    session.free();
  }
  return checked;
}

test("projectionView matches pi 1.6.0's projection at every entry of the sample", () => {
  const n = checkAgainstPi(SAMPLE, "sample");
  assert.ok(n > 40, `${n} leaves`);
  // The sample applies edits of both kinds somewhere.
  const session = Session.open(SAMPLE);
  const kinds = new Set();
  for (const { id } of session.getEntries())
    for (const { kind } of projectionView(session.getBranch(id), session.buildSessionProjection(id)).edits.values())
      kinds.add(kind);
  session.free();
  assert.deepEqual([...kinds].sort(), ["omit", "replace"]);
});

test("projectionView matches pi 1.6.0's projection on random pi 1.6 sessions", () => {
  const master = envSeed("PROJECTION_SEED");
  const rng = new Rng(master);
  let leaves = 0;
  for (let i = 0; i < 25; i++) {
    const seed = rng.int(0, 2 ** 31);
    const { text, version } = generateSession(seed, { pi16: true, maxEntries: 60 });
    if (version !== 3) continue;
    try {
      leaves += checkAgainstPi(text, `session seed ${seed}`);
    } catch (error) {
      error.message = `PROJECTION_SEED=${master}: ${error.message}`;
      throw error;
    }
  }
  assert.ok(leaves > 100, `PROJECTION_SEED=${master}: only ${leaves} leaves checked`);
});

test("systemView: sections new or changed, tools added and removed since the previous state", () => {
  const read = { name: "read", description: "Read a file" };
  const bash = { name: "bash", description: "Run a command" };
  const grep = { name: "grep" };
  const before = {
    role: "system",
    content: "base",
    sections: { a: "1", b: "2" },
    toolsAdded: [read, bash],
    timestamp: 5,
  };
  const now = {
    role: "system",
    content: "base\n\nmore",
    sections: { a: "1", b: "3", c: "4" },
    toolsAdded: [read, grep],
    timestamp: 5,
  };
  assert.deepEqual(systemView(now, before), {
    content: "base\n\nmore",
    sections: [
      { name: "a", text: "1", status: "same" },
      { name: "b", text: "3", status: "changed" },
      { name: "c", text: "4", status: "new" },
    ],
    tools: [
      { name: "read", description: "Read a file", status: "same" },
      { name: "grep", description: "", status: "added" },
    ],
    removed: ["bash"],
    timestamp: 5,
  });
  // Nothing before: every section is new and every tool added; no prompt: null.
  const first = systemView(before, undefined);
  assert.deepEqual(
    first.sections.map((s) => s.status),
    ["new", "new"],
  );
  assert.deepEqual(
    first.tools.map((t) => t.status),
    ["added", "added"],
  );
  assert.equal(systemView(undefined, before), null);
});
