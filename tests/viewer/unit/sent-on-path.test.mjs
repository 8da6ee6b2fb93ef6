// sentOnPath (www/analysis.js) keeps the one rule of buildSessionContext the
// package does not expose: which entries on a path the model sees. Checked
// here against the package itself: at every entry of the demo's sample (a
// compaction, branch summaries, custom messages, four leaves), as many
// entries are marked sent as the context has messages.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Session } from "session-tree";
import { sentOnPath } from "../../../www/analysis.js";
import { PATH } from "../../../www/messages.js";

test("sentOnPath marks as many entries sent as buildSessionContext returns messages", () => {
  const session = Session.open(readFileSync(new URL("../../../www/sample.jsonl", import.meta.url)));
  const entries = session.getEntries();
  assert.ok(entries.some((e) => e.type === "compaction"));
  for (const { id } of entries) {
    const sent = sentOnPath(session.getBranch(id)).filter((s) => s === PATH.sent).length;
    assert.equal(sent, session.buildSessionContext(id).messages.length, id);
  }
  session.free();
});
