// `session-tree context FILE`: what the model sees at a leaf.

import { buildSessionContext, currentSystemMessage } from "../../node.js";
import {
  colours,
  jsonText,
  line,
  printable,
  printableText,
  printJson,
  readOptions,
  UsageError,
  withInput,
} from "../io.js";
import { textOr } from "../tree-view.js";
import { openAt } from "./tree.js";

// What a file holds is printed through these, so it cannot send escape sequences.
const text = (value) => printableText(String(value));
const line1 = (value) => printable(String(value));

function blocksText(content, c) {
  if (typeof content === "string") return text(content);
  if (!Array.isArray(content)) return content === undefined || content === null ? "" : text(jsonText(content));
  const parts = [];
  for (const block of content) {
    if (block === null || typeof block !== "object") parts.push(text(jsonText(block)));
    else if (block.type === "text") parts.push(text(block.text ?? ""));
    else if (block.type === "thinking") parts.push(c.dim(text(`[thinking] ${block.thinking ?? ""}`)));
    else if (block.type === "image") parts.push(c.dim(text(`[image${block.mimeType ? `: ${block.mimeType}` : ""}]`)));
    else if (block.type === "toolCall")
      parts.push(c.yellow(text(`[tool call] ${block.name}(${jsonText(block.arguments ?? {})})`)));
    else parts.push(c.dim(text(`[${block.type}] ${jsonText(block)}`)));
  }
  return parts.join("\n");
}

function toolNames(tools) {
  return text(
    Array.isArray(tools) ? tools.map((t) => (t && typeof t === "object" ? t.name : String(t))).join(", ") : "",
  );
}

/**
 * One message of the context as a heading and a body. A field that has no
 * text (an object whose own `toString` is no function, arrays nested too deep
 * to join) cannot be shown as the role shows it: the message is shown as JSON.
 */
export function describeMessage(m, c) {
  try {
    return describeAs(m, c);
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    const role = m.role === null || typeof m.role !== "object" ? String(m.role) : "?";
    return { heading: line1(`[${role}]`), body: text(jsonText(m)) };
  }
}

function describeAs(m, c) {
  if (m === null || typeof m !== "object") return { heading: "(not a message)", body: text(jsonText(m) ?? "") };
  switch (m.role) {
    case "user":
      return { heading: c.cyan("user"), body: blocksText(m.content, c) };
    case "assistant": {
      const notes = [];
      if (m.stopReason === "aborted") notes.push(c.red("[aborted]"));
      if (m.errorMessage) notes.push(c.red(text(`[error] ${m.errorMessage}`)));
      const body = [blocksText(m.content, c), ...notes].filter((s) => s !== "").join("\n");
      return { heading: c.green("assistant"), body };
    }
    case "toolResult":
      return {
        heading: c.yellow(line1(`tool result: ${m.toolName ?? "?"}${m.isError ? " (error)" : ""}`)),
        body: blocksText(m.content, c),
      };
    case "bashExecution": {
      const exit = m.exitCode === undefined || m.exitCode === null ? "" : `\n[exit code ${m.exitCode}]`;
      return { heading: c.yellow("bash"), body: text(`$ ${m.command ?? ""}\n${m.output ?? ""}${exit}`) };
    }
    case "custom":
      return { heading: c.magenta(line1(`custom: ${m.customType}`)), body: blocksText(m.content, c) };
    case "branchSummary":
      return { heading: c.blue("branch summary"), body: text(m.summary ?? "") };
    case "compactionSummary":
      return {
        heading: c.blue(line1(`compaction summary (${m.tokensBefore} tokens before)`)),
        body: text(m.summary ?? ""),
      };
    case "system": {
      const tools = [];
      if (m.toolsRemoved !== undefined) tools.push(`tools removed: ${toolNames(m.toolsRemoved)}`);
      if (m.toolsAdded !== undefined) tools.push(`tools added: ${toolNames(m.toolsAdded)}`);
      const body = [blocksText(m.content, c), ...tools.map((t) => c.dim(t))].filter((s) => s !== "").join("\n");
      return { heading: c.magenta("system"), body };
    }
    default:
      return { heading: line1(`[${m.role}]`), body: blocksText(m.content, c) };
  }
}

export default {
  name: "context",
  summary: "what the model sees at a leaf, as a transcript or JSON",
  usage: `usage: session-tree context FILE [--leaf ID] [--text | --json] [--system]

The messages the model receives at a leaf (buildSessionContext): the path from
the root to the leaf, with compactions, branch summaries and context edits
applied, and the model and thinking level in force there.

  --leaf ID   the leaf (default: the file's last entry)
  --text      a readable transcript: one section per message, with its role,
              tool calls and tool results (the default)
  --json      buildSessionContext's result as JSON: { messages, thinkingLevel, model }
  --system    also the system prompt and tools in force at the leaf, replayed
              from the system messages (currentSystemMessage): first in the
              transcript; as "system" (null when none) in the JSON

FILE \`-\` reads standard input. Exit codes: 0 ok; 2 bad usage, an unknown leaf
or a file that cannot be read.`,
  options: {
    leaf: { type: "string" },
    text: { type: "boolean" },
    json: { type: "boolean" },
    system: { type: "boolean" },
  },
  allowPositionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1)
      throw new UsageError(positionals.length === 0 ? "no FILE given" : "one FILE at a time");
    if (values.text && values.json) throw new UsageError("--text and --json do not go together");
    const [context, system] = await withInput(io, positionals[0], (input) => {
      if (values.leaf !== undefined) openAt(io, input, values.leaf).free();
      const options = readOptions(io);
      return [
        buildSessionContext(input, values.leaf, options),
        values.system ? currentSystemMessage(input, values.leaf, options) : undefined,
      ];
    });
    if (values.json) {
      printJson(io, values.system ? { ...context, system: system ?? null } : context);
      return 0;
    }
    const c = colours(io);
    const model = context.model
      ? printable(`${textOr(context.model.provider)}/${textOr(context.model.modelId)}`)
      : "none";
    const count = context.messages.length;
    const thinking = printable(context.thinkingLevel);
    const out = [c.dim(`model: ${model} · thinking: ${thinking} · ${count} message${count === 1 ? "" : "s"}`)];
    if (values.system) {
      const { body } = system ? describeMessage(system, c) : { body: c.dim("(none)") };
      out.push("", c.bold(c.magenta("── system prompt ──")), body);
    }
    for (const message of context.messages) {
      const { heading, body } = describeMessage(message, c);
      out.push("", c.bold(`── ${heading} ──`));
      if (body !== "") out.push(body);
    }
    line(io.stdout, out.join("\n"));
    return 0;
  },
};
