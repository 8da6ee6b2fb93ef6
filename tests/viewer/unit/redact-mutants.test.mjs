// www/redact.js on what StrykerJS's mutants showed untested (docs/mutation-log.md, "JavaScript"):
// each detector's kind and label (what the Share review names), the structural fields kept
// at the top level only, `role` kept under `.message` only, a ticked string with regex
// characters taken literally, and leaks found in each HTML-escaped form.
import assert from "node:assert/strict";
import { test } from "node:test";
import { customFinding, DETECTORS, eachString, labelOf, leaks, redactEntry, redactor } from "../../../www/redact.js";

test("each detector has a kind and a label of its own, and labelOf gives it", () => {
  const kinds = DETECTORS.map((d) => d.kind);
  const labels = DETECTORS.map((d) => d.label);
  assert.ok(
    kinds.every((k) => /^[a-z][a-z-]*$/.test(k)),
    kinds.join(),
  );
  assert.ok(
    labels.every((l) => /^[A-Za-z]/.test(l)),
    labels.join(),
  );
  assert.equal(new Set(kinds).size, kinds.length);
  assert.equal(new Set(labels).size, labels.length);
  for (const d of DETECTORS) assert.equal(labelOf(d.kind), d.label);
  assert.ok(customFinding("x").label.length > 0);
  assert.ok(!labels.includes(customFinding("x").label));
});

const S = "s3cr3t-value";
const redact = redactor([{ kind: "custom", text: S, replacement: "[X]" }]);

test("ids, types and a message's role are kept; the same names deeper down are redacted", () => {
  const structural = ["type", "id", "parentId", "targetId", "firstKeptEntryId", "fromId"];
  const entry = Object.fromEntries(structural.map((k) => [k, S]));
  entry.message = { role: S, content: S, id: S };
  entry.data = [{ message: { role: S } }, { type: S }];
  const { value, changed } = redactEntry(entry, redact);
  assert.equal(changed, true);
  for (const k of structural) assert.equal(value[k], S, k);
  assert.deepEqual(value.message, { role: S, content: "[X]", id: "[X]" });
  assert.deepEqual(value.data, [{ message: { role: "[X]" } }, { type: "[X]" }]);
  // The scanner skips the same fields.
  const seen = [];
  eachString(entry, (_text, path) => seen.push(path));
  assert.deepEqual(seen.sort(), [".data[0].message.role", ".data[1].type", ".message.content", ".message.id"]);
});

test("a ticked string with regex characters is replaced only where it stands as written", () => {
  const r = redactor([{ kind: "custom", text: "a.b*(c)", replacement: "[X]" }]);
  assert.equal(r("aXbbb(c) a.b*(c)"), "aXbbb(c) [X]");
});

test("leaks finds a string in each HTML-escaped form", () => {
  for (const [text, escaped] of [
    ["a&b", "a&amp;b"],
    ["a<b", "a&lt;b"],
    ["a>b", "a&gt;b"],
    ['a"b', "a&quot;b"],
    ["a'b", "a&#39;b"],
  ]) {
    assert.deepEqual(leaks(`<p title="${escaped}">`, [text]), [text], text);
  }
});
