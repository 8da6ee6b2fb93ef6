// The scenarios of pi's own session-manager tests (build-context, migration, tree
// traversal, labels, save-entry, file operations), re-expressed as session files and
// entry arrays, each run through our package and through pi 1.6.0 for real.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../shared/rng.mjs";
import { compareSession, excerpt, formatDiffs, stringifyOrThrow } from "./lib/compare.js";
import { ours } from "./lib/ours.js";
import { parseSessionEntries, piBuildSessionContextRaw, SessionManager } from "./lib/reference.js";

// ---------------------------------------------------------------- helpers

const TS = "2025-01-01T00:00:00Z";
const HEADER = { type: "session", version: 3, id: "sess-scenario", timestamp: TS, cwd: "/tmp" };

const usage = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const userMsg = (text, timestamp = 1) => ({ role: "user", content: text, timestamp });
const assistantMsg = (text, timestamp = 2) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-test",
  usage,
  stopReason: "stop",
  timestamp,
});

const msg = (id, parentId, role, text) => ({
  type: "message",
  id,
  parentId,
  timestamp: TS,
  message: role === "user" ? userMsg(text) : assistantMsg(text),
});
const compaction = (id, parentId, summary, firstKeptEntryId) => ({
  type: "compaction",
  id,
  parentId,
  timestamp: TS,
  summary,
  firstKeptEntryId,
  tokensBefore: 1000,
});
const branchSummary = (id, parentId, summary, fromId) => ({
  type: "branch_summary",
  id,
  parentId,
  timestamp: TS,
  summary,
  fromId,
});
const thinking = (id, parentId, level) => ({
  type: "thinking_level_change",
  id,
  parentId,
  timestamp: TS,
  thinkingLevel: level,
});
const modelChange = (id, parentId, provider, modelId) => ({
  type: "model_change",
  id,
  parentId,
  timestamp: TS,
  provider,
  modelId,
});

const jsonl = (entries) => `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;

/** Full comparison of a session file (all functions, all forms); fails with the differences. */
function assertConforms(text, extraLeaves = []) {
  const diffs = compareSession(text, { rng: new Rng(7), extraLeaves, leafCount: 4 });
  assert.ok(diffs.length === 0, `differences from pi:\n${formatDiffs(diffs, 8)}`);
}

/** buildSessionContext(entries, leaf) on a bare entry array (no header), as pi's build-context tests call it. */
function assertContext(entries, ...leafArgs) {
  const exp = stringifyOrThrow(() => piBuildSessionContextRaw(structuredClone(entries), ...leafArgs));
  const act = stringifyOrThrow(() => ours.buildSessionContext(structuredClone(entries), ...leafArgs));
  assert.ok(
    exp === act,
    `buildSessionContext(entries${leafArgs.length ? `, ${JSON.stringify(leafArgs[0])}` : ""}):\n  ${excerpt(exp, act)}`,
  );
  // and the same entries as a session file
  assertConforms(jsonl([HEADER, ...entries]), leafArgs.length ? [leafArgs] : []);
}

/** A session built with pi's SessionManager.inMemory(): compare on its file and on its own answers. */
function assertManager(sm) {
  const text = jsonl(sm.fileEntries);
  assertConforms(text, [[sm.getLeafId()]]);
  const expCtx = JSON.stringify(sm.buildSessionContext());
  const actCtx = stringifyOrThrow(() => ours.buildSessionContext(text, sm.getLeafId()));
  assert.ok(expCtx === actCtx, `buildSessionContext at the manager's leaf:\n  ${excerpt(expCtx, actCtx)}`);
  const expTree = JSON.stringify(sm.getTree());
  const actTree = stringifyOrThrow(() => ours.getTree(text));
  assert.ok(expTree === actTree, `getTree vs the manager's own tree:\n  ${excerpt(expTree, actTree)}`);
}

// ---------------------------------------------------------------- build-context

describe("build-context scenarios", () => {
  it("empty entries", () => assertContext([]));
  it("single user message", () => assertContext([msg("1", null, "user", "hello")]));
  it("simple conversation", () =>
    assertContext([
      msg("1", null, "user", "hello"),
      msg("2", "1", "assistant", "hi there"),
      msg("3", "2", "user", "how are you"),
      msg("4", "3", "assistant", "great"),
    ]));
  it("tracks thinking level changes", () =>
    assertContext([
      msg("1", null, "user", "hello"),
      thinking("2", "1", "high"),
      msg("3", "2", "assistant", "thinking hard"),
    ]));
  it("tracks model from assistant message", () =>
    assertContext([msg("1", null, "user", "hello"), msg("2", "1", "assistant", "hi")]));
  it("assistant message overrides an earlier model change", () =>
    assertContext([
      msg("1", null, "user", "hello"),
      modelChange("2", "1", "openai", "gpt-4"),
      msg("3", "2", "assistant", "hi"),
    ]));
  it("model change after the assistant wins", () =>
    assertContext([
      msg("1", null, "user", "hello"),
      msg("2", "1", "assistant", "hi"),
      modelChange("3", "2", "openai", "gpt-4"),
    ]));
  it("compaction: summary before kept messages", () =>
    assertContext([
      msg("1", null, "user", "first"),
      msg("2", "1", "assistant", "response1"),
      msg("3", "2", "user", "second"),
      msg("4", "3", "assistant", "response2"),
      compaction("5", "4", "Summary of first two turns", "3"),
      msg("6", "5", "user", "third"),
      msg("7", "6", "assistant", "response3"),
    ]));
  it("compaction keeping from the first message", () =>
    assertContext([
      msg("1", null, "user", "first"),
      msg("2", "1", "assistant", "response"),
      compaction("3", "2", "Empty summary", "1"),
      msg("4", "3", "user", "second"),
    ]));
  it("multiple compactions: the latest wins", () =>
    assertContext([
      msg("1", null, "user", "a"),
      msg("2", "1", "assistant", "b"),
      compaction("3", "2", "First summary", "1"),
      msg("4", "3", "user", "c"),
      msg("5", "4", "assistant", "d"),
      compaction("6", "5", "Second summary", "4"),
      msg("7", "6", "user", "e"),
    ]));
  it("compaction whose firstKeptEntryId is not on the path", () =>
    assertContext([
      msg("1", null, "user", "a"),
      msg("2", "1", "assistant", "b"),
      msg("x", "1", "user", "other branch"),
      compaction("3", "2", "S", "x"),
      msg("4", "3", "user", "c"),
    ]));
  const branched = [
    msg("1", null, "user", "start"),
    msg("2", "1", "assistant", "response"),
    msg("3", "2", "user", "branch A"),
    msg("4", "2", "user", "branch B"),
  ];
  it("follows the path to leaf 3", () => assertContext(branched, "3"));
  it("follows the path to leaf 4", () => assertContext(branched, "4"));
  it("branch summary in the path", () =>
    assertContext(
      [
        msg("1", null, "user", "start"),
        msg("2", "1", "assistant", "response"),
        msg("3", "2", "user", "abandoned path"),
        branchSummary("4", "2", "Summary of abandoned work", "3"),
        msg("5", "4", "user", "new direction"),
      ],
      "5",
    ));
  it("empty branch summary is not emitted", () =>
    assertContext(
      [msg("1", null, "user", "start"), branchSummary("2", "1", "", "1"), msg("3", "2", "user", "go")],
      "3",
    ));
  const complex = [
    msg("1", null, "user", "start"),
    msg("2", "1", "assistant", "r1"),
    msg("3", "2", "user", "q2"),
    msg("4", "3", "assistant", "r2"),
    compaction("5", "4", "Compacted history", "3"),
    msg("6", "5", "user", "q3"),
    msg("7", "6", "assistant", "r3"),
    msg("8", "3", "user", "wrong path"),
    msg("9", "8", "assistant", "wrong response"),
    branchSummary("10", "3", "Tried wrong approach", "9"),
    msg("11", "10", "user", "better approach"),
  ];
  it("complex tree: main path", () => assertContext(complex, "7"));
  it("complex tree: branch path", () => assertContext(complex, "11"));
  it("complex tree: abandoned branch", () => assertContext(complex, "9"));
  it("complex tree: leaf omitted", () => assertContext(complex));
  it("complex tree: leaf null", () => assertContext(complex, null));
  it("uses the last entry when the leaf is not found", () =>
    assertContext([msg("1", null, "user", "hello"), msg("2", "1", "assistant", "hi")], "nonexistent"));
  it("orphaned entries", () =>
    assertContext([msg("1", null, "user", "hello"), msg("2", "missing", "assistant", "orphan")], "2"));
  it("custom_message entries and custom roles", () =>
    assertContext([
      msg("1", null, "user", "hello"),
      {
        type: "custom_message",
        customType: "ext",
        content: "injected",
        display: true,
        id: "2",
        parentId: "1",
        timestamp: TS,
      },
      {
        type: "custom_message",
        customType: "ext",
        content: [
          { type: "text", text: "t" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        display: false,
        details: { a: 1 },
        id: "3",
        parentId: "2",
        timestamp: "2025-01-01T00:00:01.000Z",
      },
      { type: "custom", customType: "state", data: { x: 1 }, id: "4", parentId: "3", timestamp: TS },
      {
        type: "message",
        id: "5",
        parentId: "4",
        timestamp: TS,
        message: { role: "custom", customType: "hook", content: "c", display: true, timestamp: 5 },
      },
    ]));
});

// ---------------------------------------------------------------- migration

describe("migration scenarios", () => {
  const v1 = [
    { type: "session", id: "sess-1", timestamp: TS, cwd: "/tmp" },
    { type: "message", timestamp: "2025-01-01T00:00:01Z", message: { role: "user", content: "hi", timestamp: 1 } },
    {
      type: "message",
      timestamp: "2025-01-01T00:00:02Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "hello" }],
        api: "test",
        provider: "test",
        model: "test",
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        stopReason: "stop",
        timestamp: 2,
      },
    },
  ];
  it("adds id/parentId to v1 entries", () => {
    assertConforms(jsonl(v1));
    const entries = structuredClone(v1);
    assert.equal(ours.migrate(entries), true);
    assert.equal(entries[0].version, 3);
    assert.match(entries[1].id, /^[0-9a-f]{8}$/);
    assert.equal(entries[1].parentId, null);
    assert.equal(entries[2].parentId, entries[1].id);
  });
  it("v1 with compactions (firstKeptEntryIndex: valid, header, out of range, later entry)", () => {
    const lines = [
      { type: "session", version: 1, id: "s", timestamp: TS, cwd: "/tmp" },
      { type: "message", timestamp: TS, message: userMsg("a") },
      { type: "message", timestamp: TS, message: assistantMsg("b") },
      { type: "compaction", timestamp: TS, summary: "S1", firstKeptEntryIndex: 2, tokensBefore: 10 },
      { type: "compaction", timestamp: TS, summary: "S2", firstKeptEntryIndex: 0, tokensBefore: 10 },
      { type: "compaction", timestamp: TS, summary: "S3", firstKeptEntryIndex: 99, tokensBefore: 10 },
      { type: "compaction", timestamp: TS, summary: "S4", firstKeptEntryIndex: 7, tokensBefore: 10 },
      { type: "message", timestamp: TS, message: userMsg("c") },
    ];
    assertConforms(jsonl(lines));
    // a malformed line before the target shifts nothing: indices count parsed entries
    const text = jsonl(lines).replace("\n", "\nnot json\n");
    assertConforms(text);
  });
  it("v2 → v3 renames hookMessage to custom", () => {
    assertConforms(
      jsonl([
        { type: "session", id: "s", version: 2, timestamp: TS, cwd: "/tmp" },
        {
          type: "message",
          id: "a",
          parentId: null,
          timestamp: TS,
          message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 1 },
        },
        { type: "message", id: "b", parentId: "a", timestamp: TS, message: userMsg("y") },
      ]),
    );
  });
  it("v2 with one trailing entry without id/parentId (pi adds no ids to v2)", () => {
    assertConforms(
      jsonl([
        { type: "session", id: "sess-1", version: 2, timestamp: TS, cwd: "/tmp" },
        { type: "message", id: "abc12345", parentId: null, timestamp: "2025-01-01T00:00:01Z", message: userMsg("hi") },
        { type: "message", timestamp: "2025-01-01T00:00:02Z", message: assistantMsg("hello") },
      ]),
    );
  });
  it("is idempotent on v2 with ids", () => {
    const text = jsonl([
      { type: "session", id: "sess-1", version: 2, timestamp: TS, cwd: "/tmp" },
      { type: "message", id: "abc12345", parentId: null, timestamp: "2025-01-01T00:00:01Z", message: userMsg("hi") },
      {
        type: "message",
        id: "def67890",
        parentId: "abc12345",
        timestamp: "2025-01-01T00:00:02Z",
        message: assistantMsg("hello"),
      },
    ]);
    assertConforms(text);
    const once = ours.migrate(text);
    assert.equal(ours.migrate(once), once, "migrating a migrated file changes nothing");
  });
  it("v3 comes back byte for byte, and migrate(entries) returns false", () => {
    const text = `${jsonl([HEADER, msg("1", null, "user", "x")])}garbage\n\n`;
    assert.equal(ours.migrate(text), text);
    const bytes = new TextEncoder().encode(text);
    assert.deepStrictEqual(ours.migrate(bytes), bytes, "bytes come back as bytes, unchanged");
    assert.equal(ours.migrate(JSON.parse(`[${jsonl([HEADER]).trim()}]`)), false);
  });
  it('version given as a string "3" counts as current (JS comparison)', () =>
    assertConforms(jsonl([{ ...HEADER, version: "3" }, msg("1", null, "user", "x")])));
  it("the header is the first session entry anywhere", () =>
    assertConforms(
      jsonl([
        { type: "session", id: "h1", timestamp: TS, cwd: "/" },
        { type: "message", timestamp: TS, message: userMsg("a") },
        { type: "session", id: "h2", version: 3, timestamp: TS, cwd: "/" },
        { type: "message", timestamp: TS, message: userMsg("b") },
      ]),
    ));
});

// ---------------------------------------------------------------- tree traversal (SessionManager)

describe("tree traversal scenarios (SessionManager.inMemory)", () => {
  it("appendMessage chain", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("first"));
    s.appendMessage(assistantMsg("second"));
    s.appendMessage(userMsg("third"));
    assertManager(s);
  });
  it("thinking level, model change, compaction, custom entries integrate into the tree", () => {
    const s = SessionManager.inMemory("/tmp");
    const id1 = s.appendMessage(userMsg("hello"));
    s.appendThinkingLevelChange("high");
    s.appendModelChange("openai", "gpt-4");
    s.appendMessage(assistantMsg("response"));
    s.appendCompaction("summary", id1, 1000);
    s.appendCustomEntry("my_data", { key: "value" });
    s.appendMessage(userMsg("3"));
    assertManager(s);
  });
  it("compaction with details and fromHook", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("a"));
    const id2 = s.appendMessage(assistantMsg("b"));
    s.appendCompaction("sum", id2, 5, { readFiles: ["/x"], modifiedFiles: [] }, true);
    s.appendMessage(userMsg("c"));
    assertManager(s);
  });
  it("branch: siblings under the branch point", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("1"));
    const id2 = s.appendMessage(assistantMsg("2"));
    s.appendMessage(userMsg("3"));
    s.branch(id2);
    s.appendMessage(userMsg("4-branch"));
    assertManager(s);
  });
  it("multiple branches at the same point", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("root"));
    const id2 = s.appendMessage(assistantMsg("response"));
    for (const b of ["A", "B", "C"]) {
      s.branch(id2);
      s.appendMessage(userMsg(`branch-${b}`));
    }
    assertManager(s);
  });
  it("deep branching", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("1"));
    const id2 = s.appendMessage(assistantMsg("2"));
    s.appendMessage(userMsg("3"));
    s.appendMessage(assistantMsg("4"));
    s.branch(id2);
    const id5 = s.appendMessage(userMsg("5"));
    s.appendMessage(assistantMsg("6"));
    s.branch(id5);
    s.appendMessage(userMsg("7"));
    assertManager(s);
  });
  it("branchWithSummary (and from the root)", () => {
    const s = SessionManager.inMemory("/tmp");
    const id1 = s.appendMessage(userMsg("1"));
    s.appendMessage(assistantMsg("2"));
    s.appendMessage(userMsg("3"));
    s.branchWithSummary(id1, "Summary of abandoned work");
    s.appendMessage(userMsg("after"));
    s.branchWithSummary(null, "from the very start");
    s.appendMessage(userMsg("new root line"));
    assertManager(s);
  });
  it("resetLeaf makes a second root", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("a"));
    s.appendMessage(assistantMsg("b"));
    s.resetLeaf();
    s.appendMessage(userMsg("c"));
    assertManager(s);
  });
  it("createBranchedSession keeps only the path (in memory)", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("1"));
    const id2 = s.appendMessage(assistantMsg("2"));
    s.appendMessage(userMsg("3"));
    s.branch(id2);
    s.appendMessage(userMsg("4"));
    const id5 = s.appendMessage(assistantMsg("5"));
    s.createBranchedSession(id5);
    assertManager(s);
  });
  it("custom messages and session info", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("hi"));
    s.appendCustomMessageEntry("ext", "shown", true);
    s.appendCustomMessageEntry("ext", [{ type: "text", text: "hidden" }], false, { d: 1 });
    s.appendSessionInfo("  My session  ");
    s.appendSessionInfo("");
    s.appendMessage(assistantMsg("ok"));
    assertManager(s);
  });
});

// ---------------------------------------------------------------- labels

describe("label scenarios", () => {
  const withTwo = () => {
    const s = SessionManager.inMemory("/tmp");
    const a = s.appendMessage(userMsg("hello"));
    const b = s.appendMessage(assistantMsg("hi"));
    return { s, a, b };
  };
  it("sets a label", () => {
    const { s, a } = withTwo();
    s.appendLabelChange(a, "checkpoint");
    assertManager(s);
  });
  it("clears a label with undefined and with an empty string", () => {
    const { s, a, b } = withTwo();
    s.appendLabelChange(a, "checkpoint");
    s.appendLabelChange(a, undefined);
    s.appendLabelChange(b, "x");
    s.appendLabelChange(b, "");
    assertManager(s);
  });
  it("last label wins (label timestamp of the last label entry)", () => {
    const { s, a } = withTwo();
    s.appendLabelChange(a, "first");
    s.appendLabelChange(a, "second");
    s.appendLabelChange(a, "third");
    assertManager(s);
  });
  it("labels on several nodes, label on a label entry", () => {
    const { s, a, b } = withTwo();
    const l = s.appendLabelChange(a, "start");
    s.appendLabelChange(b, "response");
    s.appendLabelChange(l, "meta");
    assertManager(s);
  });
  it("labels preserved by createBranchedSession, not those off the path", () => {
    const { s, a, b } = withTwo();
    const c = s.appendMessage(userMsg("followup"));
    s.appendLabelChange(a, "first");
    s.appendLabelChange(b, "second");
    s.appendLabelChange(c, "third");
    s.createBranchedSession(b);
    assertManager(s);
  });
  it("label entries in the file with distinct timestamps, retargeting", () => {
    const e = [
      HEADER,
      msg("m1", null, "user", "a"),
      msg("m2", "m1", "assistant", "b"),
      { type: "label", id: "l1", parentId: "m2", timestamp: "2025-01-01T00:00:05.000Z", targetId: "m1", label: "one" },
      { type: "label", id: "l2", parentId: "l1", timestamp: "2025-01-01T00:00:06.000Z", targetId: "m2", label: "two" },
      { type: "label", id: "l3", parentId: "l2", timestamp: "2025-01-01T00:00:07.000Z", targetId: "m1" },
      {
        type: "label",
        id: "l4",
        parentId: "l3",
        timestamp: "2025-01-01T00:00:08.000Z",
        targetId: "nowhere",
        label: "ghost",
      },
      {
        type: "label",
        id: "l5",
        parentId: "l4",
        timestamp: "2025-01-01T00:00:09.000Z",
        targetId: "m2",
        label: "two again",
      },
    ];
    assertConforms(jsonl(e));
  });
});

// ---------------------------------------------------------------- save-entry & file operations

describe("save-entry and file scenarios", () => {
  it("custom entries are in the tree and skipped in the context", () => {
    const s = SessionManager.inMemory("/tmp");
    s.appendMessage(userMsg("hello"));
    s.appendCustomEntry("my_data", { foo: "bar" });
    s.appendMessage(assistantMsg("hi"));
    assertManager(s);
  });
  // pi's fixtures use a header without a version (so version 1) above an
  // entry that already has an id. pi re-identifies it on migration; ours keeps
  // it (a documented difference, see broken.test.js). Compared as written for
  // parsing, and as version 3 files for everything else.
  const validFile =
    '{"type":"session","id":"abc","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}\n{"type":"message","id":"1","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}\n';
  const withMalformed = validFile.replace("\n", "\nnot valid json\n");
  const asV3 = (text) => text.replace('"type":"session",', '"type":"session","version":3,');
  for (const [name, text] of [
    ["valid file", validFile],
    ["malformed lines are skipped", withMalformed],
  ]) {
    it(name, () => {
      assert.equal(JSON.stringify(ours.parseSession(text)), JSON.stringify(parseSessionEntries(text)));
      assertConforms(asV3(text));
      const migrated = ours.parseSession(ours.migrate(text));
      assert.deepEqual(
        migrated.map((e) => e.id),
        ["abc", "1"],
      );
    });
  }
  it("empty file", () => assertConforms(""));
  it("a malformed line before the header (pi still finds the header first)", () =>
    assertConforms(
      `garbage content\n${jsonl([HEADER, msg("1", null, "user", "a"), msg("2", "1", "assistant", "b")])}`,
    ));
  it("CRLF line endings", () =>
    assertConforms(
      jsonl([HEADER, msg("1", null, "user", "a"), msg("2", "1", "assistant", "b")]).replace(/\n/g, "\r\n"),
    ));
  it("siblings sorted by timestamp, ties in file order", () => {
    const e = [
      HEADER,
      msg("r", null, "user", "root"),
      { ...msg("c1", "r", "user", "late"), timestamp: "2025-01-01T00:00:09.000Z" },
      { ...msg("c2", "r", "user", "early"), timestamp: "2025-01-01T00:00:01.000Z" },
      { ...msg("c3", "r", "user", "tie-a"), timestamp: "2025-01-01T00:00:05.000Z" },
      { ...msg("c4", "r", "user", "tie-b"), timestamp: "2025-01-01T00:00:05.000Z" },
      { ...msg("c5", "r", "user", "offset"), timestamp: "2025-01-01T02:00:04.000+02:00" },
    ];
    assertConforms(jsonl(e));
  });
  it("unicode, escapes and numbers survive parse and context", () => {
    const m = {
      role: "user",
      content: [{ type: "text", text: "emoji 👩‍💻 CJK 漢字 RTL مرحبا e\u0301 \u2028\u2029 lone \ud800 nul \u0000" }],
      timestamp: 1.5e300,
      extra: { big: 1e21, small: 5e-324, neg: -0.0, ints: 2 ** 53 + 2 },
    };
    assertConforms(jsonl([HEADER, { type: "message", id: "u", parentId: null, timestamp: TS, message: m }]));
  });
  it("JSON.parse-only values: 1e400 and escaped lone surrogates", () => {
    const text = `${JSON.stringify(HEADER)}\n{"type":"message","id":"u","parentId":null,"timestamp":"${TS}","message":{"role":"user","content":"\\udc00\\ud83d","timestamp":1e400,"dup":1,"dup":2}}\n`;
    assertConforms(text);
  });
});
