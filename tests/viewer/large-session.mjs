// Generates a large, valid version 3 pi session for the scale test of the
// viewer: a long conversation (user, assistant with a tool call, tool
// result) that branches every few hundred entries, with labels, model
// changes and a compaction now and then. Deterministic for a given size.

export function generateLargeSession(count = 100_000) {
  const lines = [];
  const start = Date.UTC(2025, 0, 1);
  lines.push(
    JSON.stringify({
      type: "session",
      version: 3,
      id: "large-session-0000",
      timestamp: new Date(start).toISOString(),
      cwd: "/home/dev/large",
    }),
  );
  const ids = [];
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const idOf = (i) => i.toString(16).padStart(8, "0");
  const parentOf = new Map();
  const ancestor = (id, steps) => {
    while (steps-- > 0 && parentOf.get(id)) id = parentOf.get(id);
    return id;
  };
  let parent = null;
  for (let i = 0; i < count; i++) {
    const id = idOf(i + 1);
    const t = start + i * 1000;
    const timestamp = new Date(t).toISOString();
    let entry;
    // Every ~400 entries, branch off an entry a little way back.
    if (i > 0 && i % 397 === 0 && ids.length > 50) parent = ids[ids.length - 1 - Math.floor(random() * 40)];
    const step = i % 4;
    if (i % 1000 === 999) {
      entry = {
        type: "compaction",
        id,
        parentId: parent,
        timestamp,
        summary: `Summary of the work up to step ${i}.`,
        firstKeptEntryId: ancestor(parent, 6),
        tokensBefore: 80_000 + (i % 7000),
      };
    } else if (i % 250 === 125) {
      entry = {
        type: "label",
        id,
        parentId: parent,
        timestamp,
        targetId: ancestor(parent, 2),
        label: `checkpoint-${i}`,
      };
    } else if (i % 500 === 260) {
      entry = {
        type: "model_change",
        id,
        parentId: parent,
        timestamp,
        provider: "anthropic",
        modelId: i % 1000 < 500 ? "claude-sonnet-4-5" : "claude-opus-4-1",
      };
    } else if (step === 0) {
      entry = {
        type: "message",
        id,
        parentId: parent,
        timestamp,
        message: {
          role: "user",
          content: `Step ${i}: please look at module ${i % 97} and fix the failing test.`,
          timestamp: t,
        },
      };
    } else if (step === 1) {
      entry = {
        type: "message",
        id,
        parentId: parent,
        timestamp,
        message: {
          role: "assistant",
          content: [
            { type: "text", text: `Looking at **module ${i % 97}**.` },
            { type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `src/module${i % 97}.rs` } },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: {
            input: 1200,
            output: 80,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 1280,
            cost: { input: 0.0036, output: 0.0012, cacheRead: 0, cacheWrite: 0, total: 0.0048 },
          },
          stopReason: "toolUse",
          timestamp: t,
        },
      };
    } else if (step === 2) {
      entry = {
        type: "message",
        id,
        parentId: parent,
        timestamp,
        message: {
          role: "toolResult",
          toolCallId: `call_${i - 1}`,
          toolName: "read",
          content: [{ type: "text", text: `fn module_${i % 97}() {}\n` }],
          isError: false,
          timestamp: t,
        },
      };
    } else {
      entry = {
        type: "message",
        id,
        parentId: parent,
        timestamp,
        message: {
          role: "assistant",
          content: [{ type: "text", text: `Fixed step ${i}.` }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: {
            input: 1500,
            output: 40,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 1540,
            cost: { input: 0.0045, output: 0.0006, cacheRead: 0, cacheWrite: 0, total: 0.0051 },
          },
          stopReason: "stop",
          timestamp: t,
        },
      };
    }
    lines.push(JSON.stringify(entry));
    ids.push(id);
    parentOf.set(id, parent);
    parent = id;
  }
  return `${lines.join("\n")}\n`;
}
