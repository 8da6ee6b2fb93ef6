// pi 1.6 behaviours, one small check each: PI-CURRENT.md's worked example and the rules it
// adds, on the package. session.test.js asserts every one by name, so a package that lacks
// one fails with the behaviour's name beside the wider comparisons that also catch it. They
// are tests, never switches: no suite leaves anything out because one of them fails.
import { ours } from "./ours.js";
import { piBuildSessionContextRaw, piCurrentSystemMessage } from "./reference.js";

const { Session, sessionInfo } = ours;

const userMsg = (content, timestamp = 1) => ({ role: "user", content, timestamp });
const ENTRY_TS = "2026-11-20T10:00:00.000Z";
const e = (type, id, parentId, extra) => ({ type, id, parentId, timestamp: ENTRY_TS, ...extra });

/** PI-CURRENT.md §2.7, the worked example: checkpoint, kept-range system message, three edits, usage. */
export const WORKED_EXAMPLE = [
  { type: "session", version: 3, id: "s", timestamp: ENTRY_TS, cwd: "/p" },
  e("message", "s1", null, {
    message: {
      role: "system",
      content: "base",
      sections: { a: "A", b: "B" },
      toolsAdded: [{ name: "read", description: "r", parameters: {} }],
      timestamp: 100,
    },
  }),
  e("message", "u1", "s1", { message: userMsg("hi", 200) }),
  e("message", "a1", "u1", {
    message: { role: "assistant", content: [{ type: "text", text: "yo" }], provider: "p", model: "m", timestamp: 300 },
  }),
  e("message", "s2", "a1", {
    message: {
      role: "system",
      content: "more",
      sections: { a: null, c: "C" },
      toolsRemoved: [{ name: "read" }],
      toolsAdded: [{ name: "write", description: "w", parameters: {} }],
      timestamp: 400,
    },
  }),
  e("message", "u2", "s2", { message: userMsg("again", 500) }),
  e("compaction", "c1", "u2", {
    summary: "sum1",
    firstKeptEntryId: "u1",
    tokensBefore: 10,
    systemMessage: { role: "system", content: "CKPT", timestamp: 600 },
  }),
  e("message", "u3", "c1", { message: userMsg("after", 700) }),
  e("context_edit", "e1", "u3", { targetId: "u1", replacement: { content: "EDITED" } }),
  e("context_edit", "e2", "e1", { targetId: "a1", replacement: { content: "a-edit" } }),
  e("context_edit", "e3", "e2", { targetId: "u2", replacement: null }),
  e("usage", "g1", "e3", { kind: "cache_warm", provider: "p", model: "m2", usage: {} }),
];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** name -> a check that returns true when the package behaves as pi 1.6 (the comment says how). */
export const PI16_BEHAVIOURS = {
  /** buildSessionContext as 1.6 builds it: checkpoint first, kept-range system messages dropped, edits applied. */
  context: () =>
    same(
      ours.buildSessionContext(structuredClone(WORKED_EXAMPLE)),
      piBuildSessionContextRaw(structuredClone(WORKED_EXAMPLE)),
    ),
  /** null or missing content normalized per role. */
  nullContent: () => {
    const entries = [
      WORKED_EXAMPLE[0],
      e("message", "n1", null, { message: { role: "user", timestamp: 1 } }),
      e("message", "n2", "n1", { message: { role: "assistant", content: null, timestamp: 2 } }),
      e("custom_message", "n3", "n2", { customType: "x", display: true }),
    ];
    return same(ours.buildSessionContext(structuredClone(entries)), piBuildSessionContextRaw(structuredClone(entries)));
  },
  currentSystemMessage: () =>
    typeof ours.currentSystemMessage === "function" &&
    same(
      ours.currentSystemMessage(structuredClone(WORKED_EXAMPLE)),
      piCurrentSystemMessage(structuredClone(WORKED_EXAMPLE)),
    ),
  appendUsage: () => typeof Session?.prototype.appendUsage === "function",
  appendContextEdit: () => typeof Session?.prototype.appendContextEdit === "function",
  getEntryCount: () => typeof Session?.prototype.getEntryCount === "function",
  sessionContextEntries: () =>
    typeof Session?.prototype.buildContextEntries === "function" &&
    typeof Session?.prototype.buildSessionProjection === "function",
  /** branchWithSummary's fromId names the leaf before the call. */
  branchSummaryFromId: () => {
    const s = Session.create({ cwd: "/p" });
    const u0 = s.appendMessage(userMsg("a"));
    const u1 = s.appendMessage(userMsg("b"));
    const id = s.branchWithSummary(u0, "sum");
    return s.getEntry(id).fromId === u1;
  },
  /** appendCompaction(summary, null, …): retain-none, firstKeptEntryId is the entry's own id. */
  compactionRetainNone: () => {
    const s = Session.create({ cwd: "/p" });
    s.appendMessage(userMsg("a"));
    const id = s.appendCompaction("sum", null, 1);
    return s.getEntry(id).firstKeptEntryId === id;
  },
  /** appendCompaction stores the system checkpoint. */
  compactionCheckpoint: () => {
    const s = Session.create({ cwd: "/p" });
    s.appendMessage({ role: "system", content: "base", timestamp: 5 });
    const id = s.appendCompaction("sum", null, 1);
    return s.getEntry(id).systemMessage?.content === "base";
  },
  /** appendSessionInfo folds runs of line breaks into one space. */
  sessionInfoFolding: () => {
    const s = Session.create({ cwd: "/p" });
    s.appendSessionInfo(" a\r\nb ");
    return s.getSessionName() === "a b";
  },
  /** createBranchedSession re-chains the kept entries around dropped labels. */
  branchedRechain: () => {
    const s = Session.create({ cwd: "/p" });
    const u0 = s.appendMessage(userMsg("a"));
    s.appendLabelChange(u0, "x");
    const u1 = s.appendMessage(userMsg("b"));
    const text = s.createBranchedSession(u1, {});
    const entry = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((x) => x.id === u1);
    return entry?.parentId === u0;
  },
  /** Pending lines start at the first user or assistant message. */
  pendingAtUser: () => {
    const s = Session.create({ cwd: "/p" });
    s.appendMessage(userMsg("a"));
    return s.takePendingLines().length === 2;
  },
  /** sessionInfo skips falsy JSON lines (null, false, 0, "") as pi 1.6's listing does. */
  sessionInfoFalsyLines: () => {
    const text = `null\n${JSON.stringify(WORKED_EXAMPLE[0])}\n${JSON.stringify(WORKED_EXAMPLE[2])}\n`;
    return sessionInfo(text)?.messageCount === 1;
  },
};
