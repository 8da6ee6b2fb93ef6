// What the viewer knows about entries, shared by the worker and the page:
// kinds, one-line summaries, searchable text and pi's `/tree` filters.

export const KIND = {
  user: 0,
  assistant: 1,
  toolResult: 2,
  bash: 3,
  customMessage: 4,
  compaction: 5,
  branchSummary: 6,
  model: 7,
  thinking: 8,
  label: 9,
  sessionInfo: 10,
  custom: 11,
  system: 12,
  contextEdit: 13,
  usage: 14,
  other: 15,
};

export const KINDS = [
  { key: "user", name: "User" },
  { key: "assistant", name: "Assistant" },
  { key: "tool", name: "Tool result" },
  { key: "bash", name: "Bash" },
  { key: "custom-message", name: "Custom message" },
  { key: "compaction", name: "Compaction" },
  { key: "branch-summary", name: "Branch summary" },
  { key: "model", name: "Model change" },
  { key: "thinking", name: "Thinking level" },
  { key: "label", name: "Label" },
  { key: "session-info", name: "Session info" },
  { key: "custom", name: "Extension state" },
  { key: "system", name: "System prompt" },
  { key: "context-edit", name: "Context edit" },
  { key: "usage", name: "Usage" },
  { key: "other", name: "Other" },
];

export const FILTERS = [
  {
    key: "default",
    name: "Default",
    title: "Hides labels, context edits, extension state, model and thinking changes, session info",
  },
  { key: "no-tools", name: "No tools", title: "Default, without tool results" },
  { key: "user-only", name: "User", title: "User messages only" },
  { key: "labeled-only", name: "Labeled", title: "Labeled entries only" },
  { key: "all", name: "All", title: "Every entry" },
];

const isObject = (v) => typeof v === "object" && v !== null;

/**
 * Every field of an entry that the functions below (kinds, rows, search,
 * filters) and analysis.js's `refOf` and `statsCounter` read, as paths for
 * the package's `getTree(source, { preview })`. A file read by piece keeps
 * only these of each entry (strings cut after 512 characters that are not
 * whitespace, more than any row shows), and the same functions run on them:
 * a field read here and missing there makes a row differ, which
 * tests/viewer/unit/large.test.mjs catches.
 */
export const ROW_FIELDS = [
  "type",
  "id",
  "parentId",
  "timestamp",
  "customType",
  "content",
  "tokensBefore",
  "summary",
  "provider",
  "modelId",
  "model",
  "thinkingLevel",
  "label",
  "targetId",
  "firstKeptEntryId",
  "fromId",
  "name",
  "kind",
  // A context edit's rows ask only whether it omits (null) or replaces.
  "replacement.role",
  "message.role",
  "message.content",
  "message.toolCallId",
  "message.toolName",
  "message.isError",
  "message.command",
  "message.exitCode",
  "message.output",
  "message.customType",
  "message.stopReason",
  "message.errorMessage",
  "message.sections",
  "message.toolsAdded.name",
  "message.toolsRemoved.name",
  "message.provider",
  "message.model",
];

export function kindOf(entry) {
  switch (entry?.type) {
    case "message": {
      const role = entry.message?.role;
      if (role === "user") return KIND.user;
      if (role === "assistant") return KIND.assistant;
      if (role === "toolResult") return KIND.toolResult;
      if (role === "bashExecution") return KIND.bash;
      if (role === "custom" || role === "hookMessage") return KIND.customMessage;
      if (role === "branchSummary") return KIND.branchSummary;
      if (role === "compactionSummary") return KIND.compaction;
      if (role === "system") return KIND.system;
      return KIND.other;
    }
    case "custom_message":
      return KIND.customMessage;
    case "compaction":
      return KIND.compaction;
    case "branch_summary":
      return KIND.branchSummary;
    case "model_change":
      return KIND.model;
    case "thinking_level_change":
      return KIND.thinking;
    case "label":
      return KIND.label;
    case "session_info":
      return KIND.sessionInfo;
    case "custom":
      return KIND.custom;
    case "context_edit":
      return KIND.contextEdit;
    case "usage":
      return KIND.usage;
    default:
      return KIND.other;
  }
}

/** Text blocks of a content value, joined (at most `max` characters). */
export function contentText(content, max = Infinity) {
  if (typeof content === "string") return content.slice(0, max);
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") {
      out += block.text;
      if (out.length >= max) return out.slice(0, max);
    }
  }
  return out;
}

function hasText(content) {
  if (typeof content === "string") return content.trim().length > 0;
  if (!Array.isArray(content)) return false;
  return content.some(
    (b) => isObject(b) && b.type === "text" && typeof b.text === "string" && b.text.trim().length > 0,
  );
}

/** pi's tree selector hides assistant turns made only of tool calls, unless they ended badly. */
export function isToolOnlyAssistant(entry) {
  if (entry?.type !== "message" || entry.message?.role !== "assistant") return false;
  const msg = entry.message;
  const badStop = msg.stopReason && msg.stopReason !== "stop" && msg.stopReason !== "toolUse";
  return !hasText(msg.content) && !badStop;
}

const oneLine = (s) =>
  String(s ?? "")
    .replace(/\s+/g, " ")
    .trim();

export function formatToolCall(name, args) {
  const a = isObject(args) ? args : {};
  const path = String(a.path ?? a.file_path ?? "");
  switch (name) {
    case "read": {
      let shown = path;
      if (a.offset !== undefined || a.limit !== undefined) {
        const from = Number(a.offset ?? 1);
        shown += `:${from}${a.limit !== undefined ? `-${from + Number(a.limit) - 1}` : ""}`;
      }
      return `read ${shown}`;
    }
    case "write":
    case "edit":
      return `${name} ${path}`;
    case "bash": {
      const cmd = oneLine(a.command);
      return `bash ${cmd.length > 60 ? `${cmd.slice(0, 60)}…` : cmd}`;
    }
    case "grep":
      return `grep /${a.pattern ?? ""}/ in ${a.path ?? "."}`;
    case "find":
      return `find ${a.pattern ?? ""} in ${a.path ?? "."}`;
    case "ls":
      return `ls ${a.path ?? "."}`;
    default: {
      let json = "";
      try {
        json = JSON.stringify(args) ?? "";
      } catch {
        json = "…";
      }
      return `${name} ${json.length > 50 ? `${json.slice(0, 50)}…` : json}`;
    }
  }
}

/** The one-line text shown in a graph row. `toolCalls` maps tool call ids to `{name, arguments}`. */
export function summarize(entry, toolCalls) {
  const cut = (s, n = 160) => {
    s = oneLine(s);
    return s.length > n ? `${s.slice(0, n)}…` : s;
  };
  switch (entry?.type) {
    case "message": {
      const msg = entry.message ?? {};
      switch (msg.role) {
        case "user": {
          const t = cut(contentText(msg.content, 400));
          const images = Array.isArray(msg.content)
            ? msg.content.filter((b) => isObject(b) && b.type === "image").length
            : 0;
          return (t || "(no text)") + (images ? `  [${images} image${images > 1 ? "s" : ""}]` : "");
        }
        case "assistant": {
          const t = cut(contentText(msg.content, 400));
          if (t) return t;
          const calls = Array.isArray(msg.content)
            ? msg.content.filter((b) => isObject(b) && b.type === "toolCall")
            : [];
          if (calls.length) return `→ ${calls.map((c) => formatToolCall(c.name, c.arguments)).join(", ")}`;
          if (msg.stopReason === "aborted") return "(aborted)";
          if (msg.errorMessage) return `error: ${cut(msg.errorMessage, 100)}`;
          return "(no content)";
        }
        case "toolResult": {
          const call = toolCalls?.get(msg.toolCallId);
          const head = call ? formatToolCall(call.name, call.arguments) : (msg.toolName ?? "tool");
          return (msg.isError ? "✗ " : "") + head;
        }
        case "bashExecution":
          return (
            "$ " +
            cut(msg.command, 120) +
            (msg.exitCode !== undefined && msg.exitCode !== null && msg.exitCode !== 0
              ? `  (exit ${msg.exitCode})`
              : "")
          );
        case "custom":
        case "hookMessage":
          return `[${msg.customType ?? "custom"}] ${cut(contentText(msg.content, 400))}`;
        case "system":
          return systemSummary(msg);
        default:
          return `[${String(msg.role)}]`;
      }
    }
    case "custom_message":
      return `[${entry.customType}] ${cut(contentText(entry.content, 400))}`;
    case "compaction":
      return `compaction · ${Math.round(Number(entry.tokensBefore) / 1000)}k tokens before`;
    case "branch_summary":
      return `branch summary: ${cut(entry.summary)}`;
    case "model_change":
      return `model → ${entry.provider}/${entry.modelId}`;
    case "thinking_level_change":
      return `thinking → ${entry.thinkingLevel}`;
    case "label":
      return entry.label ? `label “${entry.label}” → ${entry.targetId}` : `label cleared → ${entry.targetId}`;
    case "session_info":
      return entry.name ? `title: ${cut(entry.name)}` : "title: (empty)";
    case "custom":
      return `extension state: ${entry.customType}`;
    case "context_edit":
      return editLine(entry);
    case "usage":
      return `usage: ${entry.kind ?? "?"} · ${entry.provider ?? ""}/${entry.model ?? ""}`;
    default:
      if (typeof entry !== "object" || entry === null || Array.isArray(entry))
        return `(not an entry: ${safeJson(entry).slice(0, 80)})`;
      return entry.type === undefined ? "(entry without a type)" : `[unknown type ${String(entry.type)}]`;
  }
}

/** pi's `/tree` text of a context edit: `[context omit: <id>]` or `[context replace: <id>]`. */
export const editLine = (entry) => `[context ${entry.replacement === null ? "omit" : "replace"}: ${entry.targetId}]`;

const toolNames = (list) =>
  Array.isArray(list) ? list.map((t) => (isObject(t) ? String(t.name) : "?")).filter(Boolean) : [];

/** A system message's row: `[system]` (pi's text), then what it sets: text, sections, tools. */
function systemSummary(msg) {
  const parts = [];
  const text = oneLine(contentText(msg.content, 200));
  if (text) parts.push(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  const sections = isObject(msg.sections) ? Object.keys(msg.sections) : [];
  if (sections.length) parts.push(`sections: ${sections.join(", ")}`);
  const tools = [...toolNames(msg.toolsAdded).map((n) => `+${n}`), ...toolNames(msg.toolsRemoved).map((n) => `−${n}`)];
  if (tools.length) parts.push(`tools: ${tools.join(" ")}`);
  return parts.length ? `[system] ${parts.join(" · ")}` : "[system]";
}

/** pi's `getSearchableText`, for the search box. */
export function searchText(entry, label) {
  const parts = [];
  if (label) parts.push(label);
  switch (entry?.type) {
    case "message": {
      const msg = entry.message ?? {};
      parts.push(String(msg.role));
      if (msg.content) parts.push(contentText(msg.content, msg.role === "system" ? 200 : Infinity));
      if (msg.role === "bashExecution" && msg.command) parts.push(msg.command);
      if (msg.role === "assistant" && Array.isArray(msg.content)) {
        for (const b of msg.content) {
          if (isObject(b) && b.type === "toolCall") parts.push(String(b.name), safeJson(b.arguments));
          if (isObject(b) && b.type === "thinking") parts.push(String(b.thinking ?? ""));
        }
      }
      if (msg.role === "bashExecution" && msg.output) parts.push(String(msg.output));
      break;
    }
    case "custom_message":
      parts.push(String(entry.customType), contentText(entry.content));
      break;
    case "compaction":
      parts.push("compaction", String(entry.summary ?? ""));
      break;
    case "branch_summary":
      parts.push("branch summary", String(entry.summary ?? ""));
      break;
    case "session_info":
      parts.push("title", String(entry.name ?? ""));
      break;
    case "model_change":
      parts.push("model", String(entry.modelId));
      break;
    case "thinking_level_change":
      parts.push("thinking", String(entry.thinkingLevel));
      break;
    case "custom":
      parts.push("custom", String(entry.customType));
      break;
    case "label":
      parts.push("label", String(entry.label ?? ""));
      break;
    case "context_edit":
      parts.push("context edit", entry.replacement === null ? "omit" : "replace", String(entry.targetId));
      break;
    case "usage":
      // pi's selector never shows usage entries, so they have no search text.
      return "";
  }
  return parts.join(" ").toLowerCase();
}

function safeJson(v) {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return "";
  }
}

const SETTINGS = new Set(["label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"]);

/** Entry types that are never a row of the graph, under any filter: pi's /tree shows no usage entry. */
export const NEVER_A_ROW = new Set(["usage"]);

/**
 * Whether an entry passes one of pi's `/tree` filter modes (before the
 * search). `usage` entries pass none, not even `all`: pi never shows them.
 */
export function passesFilter(mode, entry, label) {
  const type = entry?.type;
  if (NEVER_A_ROW.has(type)) return false;
  const role = type === "message" ? entry.message?.role : undefined;
  switch (mode) {
    case "user-only":
      return role === "user";
    case "no-tools":
      return !SETTINGS.has(type) && role !== "toolResult";
    case "labeled-only":
      return label !== undefined && label !== null;
    case "all":
      return true;
    default:
      return !SETTINGS.has(type);
  }
}

/** The colour themes, in the order the toggle cycles through them: the system's, then light, then dark. */
export const THEMES = ["auto", "light", "dark"];

/** The theme after `theme` (anything unknown counts as "auto"). */
export const nextTheme = (theme) => THEMES[(Math.max(0, THEMES.indexOf(theme)) + 1) % THEMES.length];

/** A stored theme choice read back: one of THEMES, "auto" for anything else. */
export const storedTheme = (value) => (THEMES.includes(value) ? value : "auto");

/**
 * How much of one text the page lays out at first: the browser takes seconds
 * over megabytes (a 20 MB tool result took 7 s), so longer text is shown cut,
 * with a button for the rest.
 */
export const SHOWN_CHARS = 100_000;

/** The first `max` characters of `text` (a surrogate pair kept whole) and how many are left out. */
export function clipText(text, max = SHOWN_CHARS) {
  const s = String(text ?? "");
  if (s.length <= max) return { shown: s, hidden: 0 };
  const c = s.charCodeAt(max - 1);
  const end = c >= 0xd800 && c <= 0xdbff ? max - 1 : max;
  return { shown: s.slice(0, end), hidden: s.length - end };
}
