// inspectSession: one diagnostic per problem, each of the stable kinds, with exact line numbers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { inspectSession } from "session-tree";
import { loadPi } from "../shared/pi.mjs";

const J = JSON.stringify;
const H3 = { type: "session", version: 3, id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" };
const msg = (id, parentId, extra = {}) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content: id },
  ...extra,
});
const text = (...lines) => `${lines.map((l) => (typeof l === "string" ? l : J(l))).join("\n")}\n`;
/** `[kind, line]` pairs, in order. */
const found = (source) => inspectSession(source).map((d) => [d.kind, d.line]);

test("every diagnostic has a kind, a message, and a line or entryId where one exists", () => {
  const ds = inspectSession(text(H3, msg("a", null), "oops", msg("a", "zz")));
  assert.ok(ds.length >= 3);
  for (const d of ds) {
    assert.equal(typeof d.kind, "string");
    assert.equal(typeof d.message, "string");
    assert.ok(d.message.length > 0);
    assert.ok(d.line === undefined || Number.isInteger(d.line));
    for (const k of Object.keys(d)) assert.ok(["kind", "line", "entryId", "message"].includes(k), k);
  }
  const dup = ds.find((d) => d.kind === "duplicate-id");
  assert.equal(dup.entryId, "a");
  assert.equal(dup.line, 4);
});

test("clean files give []", () => {
  assert.deepEqual(inspectSession(""), []);
  assert.deepEqual(inspectSession(new Uint8Array()), []);
  assert.deepEqual(inspectSession(text(H3)), []);
  assert.deepEqual(inspectSession(text(H3, msg("a", null), msg("b", "a"), msg("c", "a"))), []);
  // v1 files have no ids and are clean; so is one without a final newline.
  assert.deepEqual(
    inspectSession(text({ type: "session", id: "s" }, { type: "message", message: { role: "user", content: "x" } })),
    [],
  );
  assert.deepEqual(inspectSession(text(H3, msg("a", null)).trimEnd()), []);
  // CRLF line ends are not problems.
  assert.deepEqual(inspectSession(text(H3, msg("a", null)).replaceAll("\n", "\r\n")), []);
  // A compaction keeping an entry on its path, a label on an entry, a branch summary from root.
  const full = text(
    H3,
    msg("a", null),
    msg("b", "a"),
    { type: "compaction", id: "c", parentId: "b", summary: "s", firstKeptEntryId: "b", tokensBefore: 1 },
    { type: "label", id: "l", parentId: "c", targetId: "a", label: "x" },
    { type: "branch_summary", id: "bs", parentId: "a", fromId: "b", summary: "s" },
    { type: "branch_summary", id: "bs2", parentId: null, fromId: "root", summary: "s" },
    { type: "thinking_level_change", id: "t", parentId: "l", thinkingLevel: "high" },
    { type: "model_change", id: "m", parentId: "t", provider: "p", modelId: "m" },
    { type: "custom", id: "cu", parentId: "m", customType: "x" },
    { type: "custom_message", id: "cm", parentId: "cu", customType: "x", content: "c", display: true },
    { type: "session_info", id: "si", parentId: "cm", name: "n" },
  );
  assert.deepEqual(inspectSession(full), []);
  assert.deepEqual(inspectSession(Buffer.from(full)), []);
});

test("malformed-line and truncated-last-line", () => {
  assert.deepEqual(found(text(H3, msg("a", null), "{not json", msg("b", "a"))), [["malformed-line", 3]]);
  // The last line cut off, no final newline: both kinds, same line.
  const cut = text(H3, msg("a", null)) + J(msg("b", "a")).slice(0, 30);
  assert.deepEqual(found(cut), [
    ["malformed-line", 3],
    ["truncated-last-line", 3],
  ]);
  // With a final newline it is only malformed.
  assert.deepEqual(found(`${cut}\n`), [["malformed-line", 3]]);
  // The message names line and column.
  const [d] = inspectSession(text(H3, '{"id": oops}'));
  assert.match(d.message, /line 2, column 8/);
});

test("not-an-object", () => {
  assert.deepEqual(found(text(H3, "42", '"x"', "[]", "null", "true", msg("a", null))), [
    ["not-an-object", 2],
    ["not-an-object", 3],
    ["not-an-object", 4],
    ["not-an-object", 5],
    ["not-an-object", 6],
  ]);
});

test("blank-line: whitespace-only lines inside the file", () => {
  assert.deepEqual(found(`${J(H3)}\n\n${J(msg("a", null))}\n  \t\n${J(msg("b", "a"))}\n`), [
    ["blank-line", 2],
    ["blank-line", 4],
  ]);
  assert.deepEqual(found(`${J(H3)}\r\n\r\n${J(msg("a", null))}\r\n`), [["blank-line", 2]]);
});

test("bom: text and bytes", () => {
  const t = `\ufeff${text(H3, msg("a", null))}`;
  assert.deepEqual(found(t), [["bom", 1]]);
  assert.deepEqual(found(Buffer.from(t)), [["bom", 1]]);
});

test("invalid-utf8: bytes only, no line", () => {
  const good = Buffer.from(text(H3, msg("a", null)));
  const bad = Buffer.concat([
    good.subarray(0, good.length - 10),
    Buffer.from([0xff, 0xfe]),
    good.subarray(good.length - 10),
  ]);
  const ds = inspectSession(bad);
  assert.equal(ds[0].kind, "invalid-utf8");
  assert.equal(ds[0].line, undefined);
  // A lone surrogate escape inside a string is valid JSON, not invalid UTF-8.
  assert.deepEqual(found(text(H3, '{"type":"message","id":"a","parentId":null,"x":"\\ud800"}')), []);
});

test("missing-header, misplaced-header, before-header, duplicate-header", () => {
  assert.deepEqual(found(text(msg("a", null), msg("b", "a"))), [["missing-header", 1]]);
  assert.deepEqual(found(text(msg("a", null), H3, msg("b", "a"))), [
    ["before-header", 1],
    ["misplaced-header", 2],
  ]);
  // oh-my-pi's title line: reported once, as a line before the header, not as a broken entry.
  const title = { type: "title", v: 1, title: "T", source: "auto", updatedAt: "2025-01-01T00:00:00Z", pad: "  " };
  assert.deepEqual(found(text(title, H3, msg("a", null))), [
    ["before-header", 1],
    ["misplaced-header", 2],
  ]);
  assert.deepEqual(found(text(H3, msg("a", null), H3)), [["duplicate-header", 3]]);
  // Blank and malformed lines before the header keep their own line numbers.
  assert.deepEqual(found(`\nnope\n${text(H3)}`), [
    ["blank-line", 1],
    ["malformed-line", 2],
  ]);
});

test("unknown-version", () => {
  // A string that JS compares as the number 3 is what pi takes for version 3: not unknown.
  for (const version of [4, 0, 2.5, "three", "3", null]) {
    const ds = found(text({ ...H3, version }, msg("a", null)));
    const expected = version === null || version === "3" ? [] : [["unknown-version", 1]];
    assert.deepEqual(
      ds.filter(([k]) => k === "unknown-version"),
      expected,
      `version ${J(version)}: ${J(ds)}`,
    );
  }
});

test("unknown-entry-type", () => {
  assert.deepEqual(
    found(text(H3, msg("a", null), { type: "wat", id: "w", parentId: "a" }, { id: "x", parentId: "a" })),
    [
      ["unknown-entry-type", 3],
      ["unknown-entry-type", 4],
    ],
  );
});

test("missing-id (v2 and v3 files)", () => {
  for (const version of [2, 3]) {
    assert.deepEqual(
      found(text({ ...H3, version }, msg("a", null), { type: "message", parentId: "a", message: { role: "user" } })),
      [["missing-id", 3]],
    );
  }
  // A number id is not a string id.
  assert.deepEqual(found(text(H3, msg(7, null))), [["missing-id", 2]]);
});

test("duplicate-id", () => {
  assert.deepEqual(
    found(text(H3, msg("a", null), msg("b", "a"), msg("a", "b"))).filter(([k]) => k === "duplicate-id"),
    [["duplicate-id", 4]],
  );
});

test("orphan: parent not found, or no parentId at all", () => {
  assert.deepEqual(found(text(H3, msg("a", null), msg("b", "gone"))), [["orphan", 3]]);
  const noParent = msg("b", null);
  delete noParent.parentId;
  assert.deepEqual(found(text(H3, msg("a", null), noParent)), [["orphan", 3]]);
});

test("self-parent", () => {
  assert.deepEqual(found(text(H3, msg("a", null), msg("s", "s"))), [["self-parent", 3]]);
});

test("cycle: reported once, at the entry where it is cut", () => {
  const ds = inspectSession(text(H3, msg("a", null), msg("x", "y"), msg("y", "z"), msg("z", "x")));
  assert.deepEqual(
    ds.map((d) => d.kind),
    ["cycle"],
  );
  assert.ok([3, 4, 5].includes(ds[0].line), J(ds));
  assert.match(ds[0].message, /x|y|z/);
  // Two separate cycles: two diagnostics.
  assert.deepEqual(
    found(text(H3, msg("p", "q"), msg("q", "p"), msg("r", "t"), msg("t", "r"))).map(([k]) => k),
    ["cycle", "cycle"],
  );
});

test("missing-first-kept-entry (v3 id and v1 index) and kept-entry-off-path", () => {
  const comp = (id, parentId, keep) => ({
    type: "compaction",
    id,
    parentId,
    summary: "s",
    firstKeptEntryId: keep,
    tokensBefore: 1,
  });
  assert.deepEqual(found(text(H3, msg("a", null), comp("c", "a", "nowhere"))), [["missing-first-kept-entry", 3]]);
  // "b" is on another branch: nothing before the compaction is kept.
  assert.deepEqual(found(text(H3, msg("a", null), msg("b", "a"), msg("o", "a"), comp("c", "o", "b"))), [
    ["kept-entry-off-path", 5],
  ]);
  // v1: an index beyond the file, or pointing at the header.
  const v1 = text(
    { type: "session", id: "s" },
    { type: "message", message: { role: "user" } },
    { type: "compaction", summary: "s", firstKeptEntryIndex: 9 },
    { type: "compaction", summary: "s", firstKeptEntryIndex: 0 },
    { type: "compaction", summary: "s", firstKeptEntryIndex: 1 },
  );
  assert.deepEqual(found(v1), [
    ["missing-first-kept-entry", 3],
    ["missing-first-kept-entry", 4],
  ]);
});

test("missing-label-target", () => {
  assert.deepEqual(
    found(text(H3, msg("a", null), { type: "label", id: "l", parentId: "a", targetId: "ghost", label: "x" })),
    [["missing-label-target", 3]],
  );
});

test("missing-branch-source", () => {
  assert.deepEqual(
    found(text(H3, msg("a", null), { type: "branch_summary", id: "b", parentId: "a", fromId: "ghost", summary: "s" })),
    [["missing-branch-source", 3]],
  );
});

test("all kinds in one file, sorted by line", () => {
  const lines = [
    `\ufeff${J(msg("a", null))}`, // 1: bom
    J(H3), // 2: misplaced-header (line 1: before-header)
    "", // 3: blank-line
    "{oops", // 4: malformed-line
    "42", // 5: not-an-object
    J({ ...H3, version: 9 }), // 6: duplicate-header
    J({ type: "wat", id: "w", parentId: "a" }), // 7: unknown-entry-type
    J({ type: "message", parentId: "a", message: { role: "user" } }), // 8: missing-id
    J(msg("a", "a")), // 9: duplicate-id, self-parent
    J(msg("o", "gone")), // 10: orphan
    J(msg("x", "y")), // 11
    J(msg("y", "x")), // 12: cycle (at 11 or 12)
    J({ type: "compaction", id: "c1", parentId: "o", summary: "s", firstKeptEntryId: "nowhere" }), // 13
    J({ type: "compaction", id: "c2", parentId: "o", summary: "s", firstKeptEntryId: "w" }), // 14: off path
    J({ type: "label", id: "l", parentId: "o", targetId: "ghost", label: "x" }), // 15
    J({ type: "branch_summary", id: "b", parentId: "o", fromId: "ghost", summary: "s" }), // 16
    J(msg("t", "o")).slice(0, 20), // 17: malformed, truncated
  ];
  // An invalid byte inside a string value of line 10: the line still parses.
  const bytes = Buffer.from(lines.join("\n"));
  const at = bytes.indexOf('"content":"o"') + 11;
  const withBadByte = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xc3]), bytes.subarray(at)]);
  const ds = inspectSession(withBadByte);
  const kinds = new Set(ds.map((d) => d.kind));
  // All kinds but missing-header (a header is here, misplaced) and unknown-version (the first
  // header, which is the one that counts, is version 3); both are tested on their own above.
  const all = [
    "malformed-line",
    "truncated-last-line",
    "not-an-object",
    "blank-line",
    "bom",
    "invalid-utf8",
    "misplaced-header",
    "before-header",
    "duplicate-header",
    "unknown-entry-type",
    "missing-id",
    "duplicate-id",
    "orphan",
    "self-parent",
    "cycle",
    "missing-first-kept-entry",
    "kept-entry-off-path",
    "missing-label-target",
    "missing-branch-source",
  ];
  for (const k of all) assert.ok(kinds.has(k), `${k} missing from ${J(ds.map((d) => [d.kind, d.line]))}`);
  const lineOf = (k) => ds.filter((d) => d.kind === k).map((d) => d.line);
  assert.deepEqual(lineOf("bom"), [1]);
  assert.deepEqual(lineOf("misplaced-header"), [2]);
  assert.deepEqual(lineOf("before-header"), [1]);
  assert.deepEqual(lineOf("blank-line"), [3]);
  assert.deepEqual(lineOf("malformed-line"), [4, 17]);
  assert.deepEqual(lineOf("not-an-object"), [5]);
  assert.deepEqual(lineOf("duplicate-header"), [6]);
  assert.deepEqual(lineOf("unknown-entry-type"), [7]);
  assert.deepEqual(lineOf("missing-id"), [8]);
  assert.deepEqual(lineOf("duplicate-id"), [9]);
  assert.deepEqual(lineOf("self-parent"), [9]);
  assert.deepEqual(lineOf("orphan"), [10]);
  assert.equal(lineOf("cycle").length, 1);
  assert.deepEqual(lineOf("missing-first-kept-entry"), [13]);
  assert.deepEqual(lineOf("kept-entry-off-path"), [14]);
  assert.deepEqual(lineOf("missing-label-target"), [15]);
  assert.deepEqual(lineOf("missing-branch-source"), [16]);
  assert.deepEqual(lineOf("truncated-last-line"), [17]);
  assert.deepEqual(lineOf("missing-header"), []);
  assert.deepEqual(lineOf("unknown-version"), []);
  // Sorted by line; line-less diagnostics first.
  const numbers = ds.map((d) => d.line ?? 0);
  assert.deepEqual(
    numbers,
    [...numbers].sort((a, b) => a - b),
  );
});

test("line numbers count every physical line: blank lines, CRLF, leading whitespace lines", () => {
  const t = `\n\r\n${J(H3)}\r\n   \r\n${J(msg("a", null))}\r\n${J(msg("b", "zz"))}\r\n`;
  assert.deepEqual(found(t), [
    ["blank-line", 1],
    ["blank-line", 2],
    ["blank-line", 4],
    ["orphan", 6],
  ]);
});

test("entry arrays: the same kinds, without line numbers", () => {
  const ds = inspectSession([H3, msg("a", null), msg("a", "gone"), 42]);
  assert.deepEqual(ds.map((d) => d.kind).sort(), ["duplicate-id", "not-an-object", "orphan"]);
  for (const d of ds) assert.equal(d.line, undefined);
});

// pi 1.6 entries: usage, context_edit, system messages, compaction checkpoints.
const edit = (id, parentId, targetId, replacement) => ({
  type: "context_edit",
  id,
  parentId,
  timestamp: "2025-01-01T00:00:02.000Z",
  targetId,
  ...(replacement === undefined ? {} : { replacement }),
});
const role = (id, parentId, r) => msg(id, parentId, { message: { role: r, content: id, timestamp: 1 } });
const compaction = (id, parentId, firstKeptEntryId, extra = {}) => ({
  type: "compaction",
  id,
  parentId,
  timestamp: "2025-01-01T00:00:03.000Z",
  summary: "s",
  firstKeptEntryId,
  tokensBefore: 1,
  ...extra,
});

test("a session pi 1.6.0 writes, with every new entry, is clean", async () => {
  const { SessionManager } = await loadPi("1.6.0");
  const sm = SessionManager.inMemory("/p");
  sm.appendMessage({ role: "system", content: "base", sections: { a: "A" }, toolsAdded: [], timestamp: 1 });
  const u1 = sm.appendMessage({ role: "user", content: "hi", timestamp: 2 });
  sm.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "yo" }],
    provider: "p",
    model: "m",
    timestamp: 3,
  });
  sm.appendMessage({ role: "system", content: "more", sections: { a: null }, timestamp: 4 });
  sm.appendUsage("cache_warm", "p", "m", {
    input: 0,
    output: 0,
    cacheRead: 5,
    cacheWrite: 0,
    totalTokens: 5,
    cost: {},
  });
  sm.appendContextEdit(u1, { content: "edited" });
  sm.appendContextEdit(u1, null);
  sm.appendCompaction("sum", u1, 100);
  sm.appendCompaction("sum2", null, 100);
  sm.branchWithSummary(u1, "left", undefined, false, { input: 1 });
  const jsonl = `${sm.getEntries().length ? [sm.getHeader(), ...sm.getEntries()].map((e) => J(e)).join("\n") : ""}\n`;
  const kinds = new Set(
    jsonl
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).type),
  );
  for (const k of ["usage", "context_edit", "compaction", "branch_summary"]) assert.ok(kinds.has(k), k);
  // The first compaction keeps u1 onwards, whose system message it checkpoints.
  assert.deepEqual(inspectSession(jsonl), []);
  assert.deepEqual(inspectSession(Buffer.from(jsonl)), []);
  assert.deepEqual(inspectSession(JSON.parse(`[${jsonl.trim().split("\n").join(",")}]`)), []);
});

test("missing-edit-target, uneditable-edit-target, edit-target-off-path", () => {
  const t = text(
    H3,
    role("s1", null, "system"), // 2
    role("u1", "s1", "user"), // 3
    role("a1", "u1", "assistant"), // 4
    role("b1", "u1", "bashExecution"), // 5: another branch
    role("t1", "a1", "toolResult"), // 6
    { type: "custom_message", id: "cm", parentId: "t1", customType: "x", content: "c", display: true }, // 7
    edit("e1", "cm", "nowhere", null), // 8
    edit("e2", "e1", "s1", null), // 9: a system message
    edit("e3", "e2", "b1", null), // 10: a bashExecution message, on another branch
    edit("e4", "e3", "cm", { content: "ok" }), // 11: clean
    edit("e5", "e4", "t1", { content: [{ type: "text", text: "ok" }] }), // 12: clean
    edit("e6", "u1", "m1", null), // 13: before its target, on its path: it applies there
    role("m1", "e6", "user"), // 14
    edit("e7", "m1", "e6", null), // 15: an edit of an edit
  );
  assert.deepEqual(found(t), [
    ["missing-edit-target", 8],
    ["uneditable-edit-target", 9],
    ["uneditable-edit-target", 10],
    ["edit-target-off-path", 10],
    ["uneditable-edit-target", 15],
  ]);
  const [missing] = inspectSession(t);
  assert.equal(missing.entryId, "e1");
  assert.match(missing.message, /"nowhere" not found/);
});

test("invalid-edit-replacement: missing, or neither null nor {content: string | array}", () => {
  const bad = [undefined, "x", 5, [], {}, { content: 5 }, { content: null }, { content: { text: "x" } }];
  const t = text(H3, role("u1", null, "user"), ...bad.map((r, i) => edit(`e${i}`, i ? `e${i - 1}` : "u1", "u1", r)));
  assert.deepEqual(
    found(t),
    bad.map((_, i) => ["invalid-edit-replacement", i + 3]),
  );
  assert.match(inspectSession(t)[0].message, /no replacement/);
  // What pi itself writes is valid: null, a string, an array, extra keys.
  const good = [null, { content: "x" }, { content: [] }, { content: "x", extra: 1 }];
  assert.deepEqual(
    found(text(H3, role("u1", null, "user"), ...good.map((r, i) => edit(`e${i}`, i ? `e${i - 1}` : "u1", "u1", r)))),
    [],
  );
});

test("lost-system-messages: a compaction without a checkpoint over system messages it keeps", () => {
  const t = text(
    H3,
    role("s0", null, "system"), // 2: summarized away, not in a kept range
    role("u1", "s0", "user"), // 3
    role("s1", "u1", "system"), // 4
    role("s2", "s1", "system"), // 5
    compaction("c1", "s2", "u1"), // 6: drops s1 and s2
    compaction("c2", "s2", "u1", { systemMessage: { role: "system", content: "CKPT", timestamp: 9 } }), // 7
    compaction("c3", "s2", "c3"), // 8: retains nothing
    compaction("c4", "u1", "u1"), // 9: no system message in range
    role("s3", "c1", "system"), // 10: after c1, kept
  );
  assert.deepEqual(found(t), [["lost-system-messages", 6]]);
  const [d] = inspectSession(t);
  assert.equal(d.entryId, "c1");
  assert.match(d.message, /2 system messages/);
  // The same from an entry array, without lines.
  const entries = JSON.parse(`[${t.trim().split("\n").join(",")}]`);
  assert.deepEqual(
    inspectSession(entries).map((x) => [x.kind, x.entryId]),
    [["lost-system-messages", "c1"]],
  );
});

test("usage and context_edit are known entry types", () => {
  const usage = { type: "usage", id: "g", parentId: "a", timestamp: "2025-01-01T00:00:02.000Z", kind: "x" };
  assert.deepEqual(found(text(H3, msg("a", null), usage, edit("e", "g", "a", null))), []);
});
