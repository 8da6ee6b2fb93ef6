// Type-level checks of what pi 1.6 added to the format: usage and context_edit
// entries, system messages, compaction checkpoints, the newer message and
// usage fields, and the new diagnostic kinds. Compiled by the ESM, CommonJS
// and bundler consumers. Nothing here runs.
import type {
  AgentMessage,
  AssistantMessage,
  BranchSummaryEntry,
  CompactionEntry,
  ContextEditEntry,
  DiagnosticKind,
  FileEntry,
  SessionEntry,
  SystemMessage,
  ToolResultMessage,
  Usage,
  UsageEntry,
} from "session-tree";

const usage: Usage = {
  input: 10,
  output: 20,
  cacheRead: 30,
  cacheWrite: 40,
  cacheWrite1h: 15,
  reasoning: 5,
  totalTokens: 100,
  cost: { input: 0.1, output: 0.2, cacheRead: 0.3, cacheWrite: 0.4, total: 1, totalFromProvider: true },
};

// The examples of the format, as pi 1.6 writes them.
export const usageEntry: UsageEntry = {
  type: "usage",
  id: "f6g7h8i9",
  parentId: "e5f6g7h8",
  timestamp: "2026-11-20T10:00:00.000Z",
  kind: "cache_warm",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage,
  note: "extension override",
};

export const omit: ContextEditEntry = {
  type: "context_edit",
  id: "g6h7i8j9",
  parentId: "f6g7h8i9",
  timestamp: "2026-11-20T10:00:01.000Z",
  targetId: "c3d4e5f6",
  replacement: null,
};
export const replace: ContextEditEntry = {
  ...omit,
  replacement: { content: [{ type: "text", text: "shorter" }] },
};
export const replaceWithText: ContextEditEntry = { ...omit, replacement: { content: "shorter" } };

export const system: SystemMessage = {
  role: "system",
  content: "",
  sections: { preamble: "You are…", cwd: null },
  toolsAdded: [{ name: "read", description: "Read a file", parameters: {} }],
  toolsRemoved: [{ name: "write" }],
  timestamp: 1733234400000,
};
export const systemBlocks: SystemMessage = { role: "system", content: [{ type: "text", text: "more" }], timestamp: 0 };

export const compaction: CompactionEntry = {
  type: "compaction",
  id: "c1",
  parentId: "u2",
  timestamp: "2026-11-20T10:00:00.000Z",
  summary: "…",
  firstKeptEntryId: "c1",
  tokensBefore: 50000,
  usage,
  fromHook: false,
  systemMessage: system,
};

export const branchSummary: BranchSummaryEntry = {
  type: "branch_summary",
  id: "b1",
  parentId: "u1",
  timestamp: "2026-11-20T10:00:00.000Z",
  fromId: "root",
  summary: "left behind",
  usage,
};

export const assistant: AssistantMessage = {
  role: "assistant",
  content: [],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude",
  thinkingLevel: "high",
  providerThinkingLevel: "max",
  usage,
  stopReason: "deferred",
  deferred: { provider: "anthropic", modelId: "claude", api: "anthropic-messages", id: "batch-1" },
  rawStopReason: "end_turn",
  endTurn: true,
  timestamp: 1,
  durationMs: 1200,
};
export const pending: AssistantMessage["stopReason"] = "pending";

export const toolResult: ToolResultMessage = {
  role: "toolResult",
  toolCallId: "t1",
  toolName: "bash",
  content: [{ type: "text", text: "ok" }],
  usage,
  nestedCalls: { calls: [{ id: "n1", name: "read", status: "ok", durationMs: 3 }], complete: true },
  isError: false,
  timestamp: 2,
  durationMs: 40,
};

// A system message is a message of its own role: narrowing by role reaches it.
export function promptOf(message: AgentMessage): string | undefined {
  if (message.role !== "system") return undefined;
  const m = message as SystemMessage;
  const text = typeof m.content === "string" ? m.content : m.content.map((b) => b.text).join("\n");
  return `${text} ${Object.keys(m.sections ?? {}).join()} ${(m.toolsAdded ?? []).map((t) => t.name).join()}`;
}

// The new entries are members of the unions.
export const entries: FileEntry[] = [usageEntry, omit, replace, compaction];
export function editTarget(entry: SessionEntry): string | undefined {
  return entry.type === "context_edit" ? entry.targetId : undefined;
}

export const kinds: DiagnosticKind[] = [
  "missing-edit-target",
  "uneditable-edit-target",
  "edit-target-off-path",
  "invalid-edit-replacement",
  "lost-system-messages",
];

// @ts-expect-error a replacement holds content, not a bare string
export const bad: ContextEditEntry = { ...omit, replacement: "shorter" };
// @ts-expect-error a usage entry needs its usage
export const noUsage: UsageEntry = { ...usageEntry, usage: undefined };
// @ts-expect-error section values are strings or null
export const badSection: SystemMessage = { ...system, sections: { a: 1 } };
// @ts-expect-error not a diagnostic kind
export const badKind: DiagnosticKind = "unknown-context-edit";
