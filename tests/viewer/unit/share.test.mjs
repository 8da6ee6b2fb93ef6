// Unit tests of www/share.js: the data of a small hand-made branch, and the
// file built around it (what is in it, and that nothing can break out of it).

import assert from "node:assert/strict";
import { test } from "node:test";
import { SHARE_CSP, scriptJson, shareData, shareDocument } from "../../../www/share.js";

const user = (id, parentId, text) => ({ type: "message", id, parentId, message: { role: "user", content: text } });
const nodes = [
  { type: "model_change", id: "m", parentId: null, provider: "p", modelId: "x" },
  user("u", "m", "hello"),
  {
    type: "message",
    id: "a",
    parentId: "u",
    message: {
      role: "assistant",
      content: [{ type: "toolCall", id: "c", name: "ls", arguments: {} }],
      stopReason: "toolUse",
    },
  },
  {
    type: "message",
    id: "r",
    parentId: "a",
    message: { role: "toolResult", toolCallId: "c", toolName: "ls", content: [], isError: false },
  },
  user("v", "r", "bye"),
];
const labels = [undefined, "start", undefined, undefined, undefined];

test("shareData: each entry's row and the filters that show it; the context with its sources", () => {
  const projection = {
    entries: [
      { sourceEntry: nodes[1], messages: [nodes[1].message] },
      { sourceEntry: nodes[0], messages: [] },
      { sourceEntry: nodes[4], messages: [nodes[4].message] },
    ],
    thinkingLevel: "off",
    model: { provider: "p", modelId: "x" },
  };
  const data = shareData({ title: "T", nodes, labels, leafId: "v", projection, redacted: 3 });
  assert.equal(data.title, "T");
  assert.equal(data.leafId, "v");
  assert.equal(data.redacted, 3);
  assert.deepEqual(
    data.rows.map((r) => [r.id, r.kind, r.label, r.filters.join(" ")]),
    [
      // pi's filters: a model change shows in "all" only; the labeled user message in every filter
      // but the others' exclusions; the tool-only assistant turn (not the leaf) nowhere; the tool
      // result everywhere but "no tools" and "user".
      ["m", "model", null, "all"],
      ["u", "user", "start", "default no-tools user-only labeled-only all"],
      ["a", "assistant", null, ""],
      ["r", "tool", null, "default all"],
      ["v", "user", null, "default no-tools user-only all"],
    ],
  );
  assert.equal(data.rows[1].summary, "hello");
  assert.equal(data.rows[3].summary, "ls .");
  assert.deepEqual(
    data.context.messages.map((m) => [m.sourceId, m.message.content]),
    [
      ["u", "hello"],
      ["v", "bye"],
    ],
  );
  assert.deepEqual(data.context.model, { provider: "p", modelId: "x" });
  // The tool-only turn is shown when it is the leaf.
  const atA = shareData({ title: "T", nodes, labels, leafId: "a", projection, redacted: 0 });
  assert.deepEqual(atA.rows[2].filters, ["default", "no-tools", "all"]);
});

test("shareDocument: the JSONL as text, the data as JSON, nothing that can end its element early", () => {
  const jsonl = '{"type":"session","id":"h"}\n{"x":"</textarea><script>alert(1)</script> & <!--"}\n';
  const data = { title: "</script><b>", rows: [], note: "<!-- </script>" };
  const html = shareDocument({ title: 'a<b>&"c', jsonl, data, script: "window.ok = 1;" });
  assert.ok(html.startsWith("<!doctype html>"));
  assert.ok(html.includes(`content="${SHARE_CSP}"`));
  assert.match(SHARE_CSP, /default-src 'none'/);
  assert.ok(html.includes('<title>a&lt;b&gt;&amp;"c · shared branch</title>'));
  // One textarea, one data script, one script: nothing in the content closes them.
  assert.equal(html.match(/<\/textarea>/g).length, 1);
  assert.equal(html.match(/<\/script>/g).length, 2);
  assert.equal(html.match(/<script/g).length, 2);
  // The text area gives back the JSONL (an HTML parser drops the newline right after the tag).
  const area = /<textarea[^>]*>\n([\s\S]*?)<\/textarea>/.exec(html)[1];
  const unescaped = area.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  assert.equal(unescaped, jsonl);
  const json = /<script type="application\/json" id="share-data">([\s\S]*?)<\/script>/.exec(html)[1];
  assert.deepEqual(JSON.parse(json), data);
  assert.equal(scriptJson("<"), '"\\u003c"');
  assert.throws(() => shareDocument({ title: "", jsonl: "", data: {}, script: "'</script>'" }), /cannot be inlined/);
});
