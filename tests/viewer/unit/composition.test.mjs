// www/composition.js: what fills a context, and usage with pi's accounting.
// The per-message estimate is checked against pi 1.6.0's own `estimateTokens`
// (its compaction heuristic) on every context of the sample and of random pi
// 1.6 sessions (COMPOSITION_SEED replays a run); the rest on hand-built values
// worked out in the comments.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Session } from "session-tree";
import { composition, ESTIMATE_NOTE, estimateTokens, messageSize, usageView } from "../../../www/composition.js";
import { envSeed, Rng } from "../../shared/rng.mjs";
import { generateSession } from "../../shared/sessions.mjs";

const pi = await import("../../node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js");
const SAMPLE = readFileSync(new URL("../../../www/sample.jsonl", import.meta.url));

function checkEstimates(source, what) {
  const session = Session.open(source);
  let n = 0;
  try {
    for (const { id } of session.getEntries()) {
      for (const m of session.buildSessionContext(id).messages) {
        let expected;
        try {
          expected = pi.estimateTokens(m);
        } catch {
          continue; // pi's estimate throws on null content; ours counts it as empty
        }
        const { chars, images } = messageSize(m);
        assert.equal(
          estimateTokens(chars, images),
          expected,
          `${what}, leaf ${id}: ${JSON.stringify(m).slice(0, 200)}`,
        );
        n++;
      }
    }
  } finally {
    session.free();
  }
  return n;
}

test("each message's estimate equals pi 1.6.0's estimateTokens, on the sample and random sessions", () => {
  assert.ok(checkEstimates(SAMPLE, "sample") > 300);
  const master = envSeed("COMPOSITION_SEED");
  const rng = new Rng(master);
  let n = 0;
  for (let i = 0; i < 15; i++) {
    const seed = rng.int(0, 2 ** 31);
    const { text, version } = generateSession(seed, { pi16: true, maxEntries: 50 });
    if (version !== 3) continue;
    try {
      n += checkEstimates(text, `session seed ${seed}`);
    } catch (error) {
      error.message = `COMPOSITION_SEED=${master}: ${error.message}`;
      throw error;
    }
  }
  assert.ok(n > 100, `COMPOSITION_SEED=${master}: ${n} messages`);
});

test("composition: by role and by tool, largest first, images apart, the last reported input", () => {
  const messages = [
    // system: 4 (content) + 5 (section) + JSON of toolsAdded
    { role: "system", content: "base", sections: { a: "hello", b: null }, toolsAdded: [{ name: "read" }] },
    // user: 10 + 2 text characters, one image
    {
      role: "user",
      content: [
        { type: "text", text: "0123456789" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "ab" },
      ],
    },
    // assistant: 3 (text) + 6 (thinking) + "read" 4 + '{"path":"x"}' 12 = 25; usage input 100 + cacheRead 50
    {
      role: "assistant",
      content: [
        { type: "text", text: "abc" },
        { type: "thinking", thinking: "ponder" },
        { type: "toolCall", id: "t1", name: "read", arguments: { path: "x" } },
      ],
      usage: { input: 100, output: 7, cacheRead: 50, cacheWrite: 0 },
    },
    // tool result of read: 40 characters
    { role: "toolResult", toolName: "read", toolCallId: "t1", content: [{ type: "text", text: "x".repeat(40) }] },
    // bash: 4 + 6
    { role: "bashExecution", command: "ls -l", output: "a\nb\nc" },
    // summaries
    { role: "compactionSummary", summary: "s".repeat(9) },
    // an assistant without usage leaves the last reported input where it was
    { role: "assistant", content: [{ type: "text", text: "done" }] },
  ];
  const toolsJson = JSON.stringify([{ name: "read" }]).length; // 17
  const c = composition(messages);
  const systemChars = 4 + 5 + toolsJson;
  const byRole = Object.fromEntries(c.byRole.map((r) => [r.name, r]));
  assert.deepEqual(byRole.system, {
    name: "system",
    messages: 1,
    chars: systemChars,
    images: 0,
    tokens: Math.ceil(systemChars / 4),
  });
  assert.deepEqual(byRole.user, { name: "user", messages: 1, chars: 12, images: 1, tokens: 3 + 1200 });
  assert.deepEqual(byRole.assistant, { name: "assistant", messages: 2, chars: 29, images: 0, tokens: 8 });
  assert.deepEqual(byRole.toolResult, { name: "toolResult", messages: 1, chars: 40, images: 0, tokens: 10 });
  assert.deepEqual(byRole.bashExecution, { name: "bashExecution", messages: 1, chars: 10, images: 0, tokens: 3 });
  assert.deepEqual(byRole.compactionSummary, {
    name: "compactionSummary",
    messages: 1,
    chars: 9,
    images: 0,
    tokens: 3,
  });
  // Largest first (by estimated tokens): the user's image outweighs the rest.
  assert.deepEqual(
    c.byRole.map((r) => r.name),
    ["user", "toolResult", "assistant", "system", "bashExecution", "compactionSummary"],
  );
  const total = systemChars + 12 + 29 + 40 + 10 + 9;
  assert.deepEqual(c.total, {
    name: "total",
    messages: 7,
    chars: total,
    images: 1,
    tokens: Math.ceil(total / 4) + 1200,
  });
  assert.equal(
    c.byRole.reduce((a, r) => a + r.chars, 0),
    c.total.chars,
  );
  // The read tool: one call of 4 + 12 characters and one result of 40.
  assert.deepEqual(c.byTool, [{ name: "read", calls: 1, results: 1, chars: 56, images: 0, tokens: 14 }]);
  assert.deepEqual(c.lastInput, { index: 2, input: 100, cacheRead: 50, cacheWrite: 0, total: 150 });
  assert.deepEqual(composition([]), {
    total: { name: "total", messages: 0, chars: 0, images: 0, tokens: 0 },
    byRole: [],
    byTool: [],
    lastInput: null,
  });
  assert.match(ESTIMATE_NOTE, /characters ÷ 4/);
});

test("usageView shows the package's usage, pi's session stats: assistant, usage entries, compactions, branch summaries, tool results", () => {
  const u = (input, output, cacheRead, cacheWrite, cost) => ({
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: 999_999, // pi does not read it
    cost: { total: cost },
  });
  const chain = (entry, i, all) => ({ ...entry, parentId: i > 1 ? all[i - 1].id : null });
  const entries = [
    { type: "session", version: 3, id: "s" },
    { type: "message", id: "a", message: { role: "assistant", usage: u(10, 2, 100, 0, 0.5) } },
    { type: "message", id: "t", message: { role: "toolResult", usage: u(5, 1, 0, 0, 0.25) } },
    { type: "message", id: "t2", message: { role: "toolResult" } },
    { type: "message", id: "us", message: { role: "user", usage: u(1000, 0, 0, 0, 9) } }, // not counted
    { type: "usage", id: "w", kind: "cache_warm", usage: u(0, 1, 50, 0, 0.125) },
    { type: "compaction", id: "c", usage: u(200, 20, 0, 10, 1) },
    { type: "branch_summary", id: "b", usage: u(30, 3, 0, 0, 0.0625) },
    { type: "branch_summary", id: "b2" },
    { type: "custom", id: "x", usage: u(1, 1, 1, 1, 1) }, // not counted
  ].map(chain);
  const session = Session.open(entries);
  const t = usageView(session.usage(null, { records: false }), "total");
  // input 10+5+0+200+30 = 245; output 2+1+1+20+3 = 27; cache read 100+50 = 150; cache write 10
  assert.equal(t.input, 245);
  assert.equal(t.output, 27);
  assert.equal(t.cacheRead, 150);
  assert.equal(t.cacheWrite, 10);
  assert.equal(t.total, 245 + 27 + 150 + 10);
  assert.equal(t.cost, 0.5 + 0.25 + 0.125 + 1 + 0.0625);
  assert.equal(t.records, 5);
  assert.equal(t.incomplete, 0);
  assert.deepEqual(Object.keys(t.by).sort(), ["assistant", "branchSummary", "compaction", "toolResult", "usage"]);
  assert.equal(t.by.assistant.total, 112);
  assert.equal(t.by.usage.total, 51);
  assert.equal(t.by.compaction.cost, 1);
  // The path to the tool result t: a and t only.
  const path = usageView(session.usage("t", { records: false }), "path");
  assert.deepEqual([path.total, path.cost, Object.keys(path.by).sort()], [118, 0.75, ["assistant", "toolResult"]]);
  assert.deepEqual(usageView(Session.open("").usage(null), "total"), {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    total: 0,
    cost: 0,
    records: 0,
    incomplete: 0,
    by: {},
  });
});
