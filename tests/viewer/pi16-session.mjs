// A session written by pi 1.6.0's own SessionManager, for the viewer's pi 1.6
// tests: system messages (a prompt, then a change of sections and tools), a
// `cache_warm` usage entry, context edits that replace and omit, a branch with
// a summary that carries usage, and a compaction whose checkpoint pi computes
// itself. Ids and times are pi's (random, the clock's); `ids` names the
// entries the tests look at.

import { SessionManager } from "../shared/pi.mjs";

const usage = (input, output, cacheRead = 0, cacheWrite = 0) => {
  const cost = {
    input: input * 3e-6,
    output: output * 15e-6,
    cacheRead: cacheRead * 3e-7,
    cacheWrite: cacheWrite * 3.75e-6,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
};
const tool = (name, description) => ({ name, description, parameters: { type: "object", properties: {} } });

/** `{ text, ids }`: the JSONL file and the ids of its notable entries. */
export function pi16Session() {
  const sm = SessionManager.inMemory("/home/dev/notes-app");
  let t = Date.parse("2026-11-30T09:00:00.000Z");
  const now = () => (t += 7000);
  const text = (s) => ({ type: "text", text: s });
  const user = (content) => sm.appendMessage({ role: "user", content, timestamp: now() });
  const assistant = (content, u = usage(1200, 80, 4000), stopReason = "stop") =>
    sm.appendMessage({
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: u,
      stopReason,
      timestamp: now(),
    });
  const result = (toolCallId, toolName, output, extra = {}) =>
    sm.appendMessage({
      role: "toolResult",
      toolCallId,
      toolName,
      content: [text(output)],
      isError: false,
      ...extra,
      timestamp: now(),
    });
  const ids = {};
  ids.sys1 = sm.appendMessage({
    role: "system",
    content: "You are a careful coding assistant.",
    sections: { cwd: "Working directory: /home/dev/notes-app", date: "Date: 2026-11-30" },
    toolsAdded: [tool("read", "Read a file"), tool("bash", "Run a shell command")],
    timestamp: now(),
  });
  ids.u1 = user("List the files in the project.");
  ids.a1 = assistant(
    [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls -R" } }],
    usage(900, 30, 0, 2000),
    "toolUse",
  );
  ids.t1 = result("call_1", "bash", `LONG-LISTING-ORIGINAL\n${"src/notes/file.ts\n".repeat(40)}`);
  ids.a2 = assistant([text("There are forty files under src/notes.")]);
  ids.warm = sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage(0, 1, 5200)).id;
  ids.u2 = user("OMITTED-QUESTION: and what does the first one contain?");
  ids.a3 = assistant(
    [{ type: "toolCall", id: "call_2", name: "read", arguments: { path: "src/notes/file.ts" } }],
    undefined,
    "toolUse",
  );
  ids.t2 = result("call_2", "read", "export const notes = [];", { usage: usage(50, 10) });
  ids.a4 = assistant([text("It exports an empty `notes` array.")]);
  ids.replace = sm.appendContextEdit(ids.t1, { content: "REPLACED-LISTING: 40 files, all in src/notes" });
  ids.omit = sm.appendContextEdit(ids.u2, null);
  ids.sys2 = sm.appendMessage({
    role: "system",
    content: "Prefer small, reviewed changes.",
    sections: { date: "Date: 2026-12-01", skills: "<skills><skill>changelog</skill></skills>" },
    toolsAdded: [tool("edit", "Edit a file")],
    toolsRemoved: [{ name: "bash" }],
    timestamp: now(),
  });
  ids.u3 = user("Add a test for the notes array.");
  ids.a5 = assistant([text("ORIGINAL-REPLY: I will add test/notes.test.ts.")]);
  ids.c1 = sm.appendCompaction(
    "Listed the project, read src/notes/file.ts, planned a test.",
    ids.u3,
    18000,
    undefined,
    false,
    usage(9000, 300),
  );
  ids.u4 = user("Go ahead.");
  ids.a6 = assistant([text("Added test/notes.test.ts; it passes.")], usage(3000, 200, 6000));
  ids.edit2 = sm.appendContextEdit(ids.a5, { content: "EDITED-REPLY: plan for the test." });
  ids.u5 = user("Thanks, that is all.");
  // A second branch from a2, left with a summary of the main line.
  sm.branchWithSummary(ids.a2, "Went on to read a file and add a test.", undefined, false, usage(2500, 120));
  ids.summary = sm.getLeafId();
  ids.u6 = user("Actually, count the lines instead.");
  ids.a7 = assistant([text("There are 40 lines.")]);
  const lines = [sm.getHeader(), ...sm.getEntries()];
  return { text: `${lines.map((e) => JSON.stringify(e)).join("\n")}\n`, ids };
}
