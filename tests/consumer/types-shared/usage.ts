// Shared type-level checks of the declarations (compiled as part of the ESM
// consumer). Nothing here runs.
import type * as SessionTree from "session-tree";
import type {
  AgentMessage,
  AssistantMessage,
  BranchSummaryEntry,
  CompactionEntry,
  ContextEditEntry,
  CustomEntry,
  CustomMessageEntry,
  FileEntry,
  LabelEntry,
  ModelChangeEntry,
  SessionContext,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
  SessionMessageEntry,
  SessionTreeNode,
  ThinkingLevelChangeEntry,
  UsageEntry,
} from "session-tree";

type Api = typeof SessionTree;

// Narrowing a FileEntry by `type` reaches each interface.
export function describe(entry: FileEntry): string {
  switch (entry.type) {
    case "session": {
      const header: SessionHeader = entry;
      return `${header.id} v${header.version ?? 1} in ${header.cwd} ${header.parentSession ?? ""}`;
    }
    case "message": {
      const e: SessionMessageEntry = entry;
      const message: AgentMessage = e.message;
      if (message.role === "assistant") {
        const assistant = message as AssistantMessage;
        return `${assistant.provider}/${assistant.model}: ${assistant.content.length}`;
      }
      return message.role;
    }
    case "thinking_level_change": {
      const e: ThinkingLevelChangeEntry = entry;
      return e.thinkingLevel;
    }
    case "model_change": {
      const e: ModelChangeEntry = entry;
      return `${e.provider}/${e.modelId}`;
    }
    case "compaction": {
      const e: CompactionEntry = entry;
      return `${e.summary} ${e.firstKeptEntryId} ${e.tokensBefore} ${e.fromHook ?? false} ${String(e.details)}`;
    }
    case "branch_summary": {
      const e: BranchSummaryEntry = entry;
      return `${e.fromId} ${e.summary}`;
    }
    case "custom": {
      const e: CustomEntry = entry;
      return `${e.customType} ${String(e.data)}`;
    }
    case "custom_message": {
      const e: CustomMessageEntry = entry;
      const content = typeof e.content === "string" ? e.content : e.content.map((c) => c.type).join();
      return `${e.customType} ${content} ${e.display}`;
    }
    case "label": {
      const e: LabelEntry = entry;
      return `${e.targetId} ${e.label ?? "(cleared)"}`;
    }
    case "session_info": {
      const e: SessionInfoEntry = entry;
      return e.name ?? "";
    }
    case "usage": {
      const e: UsageEntry = entry;
      return `${e.kind} ${e.provider}/${e.model} ${e.usage.totalTokens} ${e.note ?? ""}`;
    }
    case "context_edit": {
      const e: ContextEditEntry = entry;
      return `${e.targetId} ${e.replacement === null ? "omit" : "replace"}`;
    }
    default: {
      // All eleven types are handled: nothing is left for the default.
      const none: never = entry;
      return none;
    }
  }
}

// Every entry has the tree fields.
export function parentOf(entry: SessionEntry): string | null {
  return entry.parentId ?? entry.id;
}

export function depthFirst(nodes: SessionTreeNode[], visit: (n: SessionTreeNode) => void): void {
  const stack = [...nodes];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    visit(node);
    if (node.label !== undefined) void node.labelTimestamp?.length;
    stack.push(...node.children);
  }
}

// Messages as pi writes them are accepted as they are (extra fields included).
export const written: SessionMessageEntry = {
  type: "message",
  id: "a1b2c3d4",
  parentId: null,
  timestamp: "2025-01-01T00:00:00.000Z",
  message: {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
      { type: "text", text: "hi" },
      { type: "toolCall", id: "t", name: "bash", arguments: { command: "ls" } },
    ],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude",
    usage: {
      input: 1,
      output: 2,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 3,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 1735689600000,
    responseId: "extra-field",
  },
};

export const bash: AgentMessage = {
  role: "bashExecution",
  command: "ls",
  output: "",
  exitCode: undefined,
  cancelled: false,
  truncated: false,
  timestamp: 0,
};
export const unknownRole: AgentMessage = { role: "somethingNew", payload: [1, 2, 3] };

export function exercise(api: Pick<Api, "buildSessionContext" | "getTree" | "migrate" | "parseSession">): void {
  const entries: FileEntry[] = api.parseSession([written]);
  const readonlyEntries: readonly FileEntry[] = entries;
  const tree: SessionTreeNode[] = api.getTree(readonlyEntries);
  const context: SessionContext = api.buildSessionContext(readonlyEntries, undefined);
  const model: { provider: string; modelId: string } | null = context.model;
  const changed: boolean = api.migrate(entries);
  const migrated: string = api.migrate("{}");
  const migratedBytes: Uint8Array = api.migrate(new TextEncoder().encode("{}"));
  const either: string | Uint8Array = api.migrate(Math.random() > 0.5 ? "{}" : new Uint8Array());
  void [tree, model, changed, migrated, migratedBytes, either];

  // @ts-expect-error numbers are not a session source
  api.parseSession(42);
  // @ts-expect-error strict is a boolean
  api.parseSession("", { strict: "yes" });
  // @ts-expect-error migrate of an array returns a boolean, not a string
  const wrong: string = api.migrate(entries);
  // @ts-expect-error migrate of bytes returns bytes, not a string
  const notText: string = api.migrate(new Uint8Array());
  void notText;
  // @ts-expect-error maxBytes is a number
  api.getTree("", { maxBytes: "1" });
  void wrong;
}
