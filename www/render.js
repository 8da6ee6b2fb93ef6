// Renders messages (what buildSessionContext returns) and raw entries as DOM
// nodes. Session content only ever reaches the page through textContent,
// attribute values set as properties, and data: URLs of checked images.

import { formatTokens } from "./analysis.js";
import { codeBlock, fillClipped, renderMarkdown } from "./markdown.js";

export const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

const isObject = (v) => typeof v === "object" && v !== null;
const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|bmp|avif)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function json(value) {
  try {
    return (
      JSON.stringify(value, (_key, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v), 2) ??
      String(value)
    );
  } catch {
    return String(value);
  }
}

export function formatTime(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

function image(block) {
  const mime = String(block.mimeType ?? "");
  const data = typeof block.data === "string" ? block.data.replace(/\s+/g, "") : "";
  if (!IMAGE_TYPES.test(mime) || !BASE64.test(data) || data.length === 0) {
    return el("div", "image-missing", `[image${mime ? ` ${mime}` : ""}, not shown]`);
  }
  const a = el("button", "thumb");
  a.type = "button";
  a.title = "Show full size";
  const img = el("img");
  img.alt = "image from the session";
  img.loading = "lazy";
  img.src = `data:${mime};base64,${data}`;
  a.append(img);
  a.addEventListener("click", () => a.classList.toggle("zoomed"));
  return a;
}

/** Text and image blocks (or a plain string) of user, custom and tool result messages. */
function content(value, { markdown = true } = {}) {
  const box = el("div", "content");
  const blocks = typeof value === "string" ? [{ type: "text", text: value }] : Array.isArray(value) ? value : [];
  const images = el("div", "images");
  for (const b of blocks) {
    if (!isObject(b)) continue;
    if (b.type === "text") box.append(markdown ? renderMarkdown(b.text) : output(b.text));
    else if (b.type === "image") images.append(image(b));
    else box.append(codeBlock(json(b), "json"));
  }
  if (images.childNodes.length) box.append(images);
  if (!Array.isArray(value) && typeof value !== "string" && value !== undefined)
    box.append(codeBlock(json(value), "json"));
  return box;
}

function output(text, className = "output") {
  const pre = el("pre", className);
  pre.tabIndex = 0; // it may scroll (a long output): the keyboard must reach it
  const body = document.createTextNode("");
  pre.append(body);
  fillClipped(pre, String(text ?? ""), (t) => {
    body.data = t;
  });
  return pre;
}

function header(role, title, extra) {
  const h = el("header", "msg-head");
  h.append(el("span", `role role-${role}`, title));
  if (extra) for (const x of [].concat(extra)) if (x) h.append(x);
  return h;
}

export const chip = (text, className = "") => el("span", `chip ${className}`, text);

/** An entry id as a button that calls `onJump(id)`. */
export function jumpLink(id, onJump) {
  const b = el("button", "link-button mono", id);
  b.type = "button";
  b.addEventListener("click", () => onJump(id));
  return b;
}

function toolCall(block) {
  const box = el("div", "tool-call");
  const head = el("div", "tool-call-head");
  head.append(el("span", "tool-name", String(block.name ?? "tool")), chip(String(block.id ?? ""), "muted mono"));
  box.append(head);
  const args = isObject(block.arguments) ? block.arguments : {};
  if (block.name === "bash" && typeof args.command === "string") {
    box.append(output(`$ ${args.command}`, "output cmd"));
  } else if (block.name === "edit" && (typeof args.oldText === "string" || typeof args.newText === "string")) {
    box.append(el("div", "arg-name", String(args.path ?? args.file_path ?? "")));
    box.append(output(String(args.oldText ?? ""), "output diff-old"));
    box.append(output(String(args.newText ?? ""), "output diff-new"));
  } else {
    const entries = Object.entries(args);
    const simple = entries.every(([, v]) => typeof v !== "object" || v === null);
    if (simple && entries.length && entries.every(([, v]) => String(v).length < 200 && !String(v).includes("\n"))) {
      const dl = el("dl", "args");
      for (const [k, v] of entries) dl.append(el("dt", "", k), el("dd", "mono", String(v)));
      box.append(dl);
    } else {
      box.append(codeBlock(json(block.arguments), "json"));
    }
  }
  return box;
}

/** What a `message` entry whose `message` is `undefined` (not there) or `null` says instead. */
export function missingMessageText(msg) {
  const what = msg === null ? "is null" : "is missing";
  return `This message entry's "message" ${what}: a broken line. The context keeps an empty place for it; pi 1.6.0 cannot build a context through it (it throws).`;
}

/** One message of a context, as an `<article data-role=...>`. */
export function renderMessage(msg, { index, onJump } = {}) {
  const role = isObject(msg) ? String(msg.role) : msg === undefined || msg === null ? "missing" : "unknown";
  const art = el("article", `msg msg-${role.replace(/[^\w-]/g, "")}`);
  art.dataset.role = role;
  if (role === "missing") {
    // A broken line that kept its id and type: pi 1.6.0's buildSessionContext throws on it.
    art.append(header("other", "No message"), el("p", "msg-note muted", missingMessageText(msg)));
    return art;
  }
  if (!isObject(msg)) {
    art.append(header("other", "value"), codeBlock(json(msg), "json"));
    return art;
  }
  const time = el("time", "msg-time", formatTime(msg.timestamp));
  const num = index !== undefined ? el("span", "msg-index", `#${index + 1}`) : null;
  switch (role) {
    case "user":
      art.append(header("user", "User", [time, num]), content(msg.content));
      break;
    case "assistant": {
      const meta = [];
      if (msg.model) meta.push(chip(`${msg.provider ?? ""}/${msg.model}`, "muted"));
      art.append(header("assistant", "Assistant", [...meta, time, num]));
      const body = el("div", "content");
      for (const b of Array.isArray(msg.content) ? msg.content : []) {
        if (!isObject(b)) continue;
        if (b.type === "text") body.append(renderMarkdown(b.text));
        else if (b.type === "thinking") {
          const d = el("details", "thinking");
          d.append(el("summary", "", "Thinking"));
          d.append(renderMarkdown(b.thinking ?? ""));
          body.append(d);
        } else if (b.type === "toolCall") body.append(toolCall(b));
        else body.append(codeBlock(json(b), "json"));
      }
      art.append(body);
      const foot = el("footer", "msg-foot");
      if (msg.stopReason && msg.stopReason !== "stop")
        foot.append(chip(`stop: ${msg.stopReason}`, msg.stopReason === "toolUse" ? "muted" : "warn"));
      if (msg.errorMessage) foot.append(chip(String(msg.errorMessage), "error"));
      const u = msg.usage;
      if (isObject(u)) {
        foot.append(
          chip(
            `${formatTokens(Number(u.totalTokens) || 0)} tokens (in ${formatTokens(Number(u.input) || 0)}, out ${formatTokens(Number(u.output) || 0)})`,
            "muted",
          ),
        );
        if (isObject(u.cost) && typeof u.cost.total === "number")
          foot.append(chip(`$${u.cost.total.toFixed(4)}`, "muted"));
      }
      if (foot.childNodes.length) art.append(foot);
      break;
    }
    case "toolResult": {
      art.append(
        header("tool", msg.isError ? "Tool error" : "Tool result", [
          chip(String(msg.toolName ?? ""), "mono"),
          time,
          num,
        ]),
      );
      if (msg.isError) art.classList.add("is-error");
      art.append(content(msg.content, { markdown: false }));
      break;
    }
    case "bashExecution": {
      const extra = [];
      const code = msg.exitCode;
      extra.push(
        chip(
          msg.cancelled ? "cancelled" : code === undefined || code === null ? "no exit code" : `exit ${code}`,
          code === 0 && !msg.cancelled ? "ok" : "warn",
        ),
      );
      if (msg.truncated) extra.push(chip("truncated", "muted"));
      if (msg.excludeFromContext) extra.push(chip("!! not sent to the model", "muted"));
      art.append(header("bash", "Bash", [...extra, time, num]));
      art.append(output(`$ ${String(msg.command ?? "")}`, "output cmd"), output(msg.output));
      if (msg.fullOutputPath) art.append(el("div", "muted small", `full output: ${msg.fullOutputPath}`));
      break;
    }
    case "custom":
    case "hookMessage":
      art.append(
        header("custom", `Custom · ${String(msg.customType ?? "")}`, [
          msg.display === false ? chip("hidden in pi", "muted") : null,
          time,
          num,
        ]),
      );
      art.append(content(msg.content));
      if (msg.details !== undefined) art.append(details("details", msg.details));
      break;
    case "branchSummary": {
      const from = el("button", "link-button mono", String(msg.fromId ?? ""));
      from.type = "button";
      from.title = "Go to the end of the summarised branch";
      from.addEventListener("click", () => onJump?.(String(msg.fromId)));
      const label = el("span", "muted small", "from");
      art.append(header("branch-summary", "Branch summary", [label, from, time, num]), renderMarkdown(msg.summary));
      break;
    }
    case "system":
      art.append(header("system", "System", [time, num]), systemBody(msg));
      break;
    case "compactionSummary":
      art.append(
        header("compaction", "Compaction summary", [
          chip(`${formatTokens(Number(msg.tokensBefore) || 0)} tokens before`, "muted"),
          time,
          num,
        ]),
        renderMarkdown(msg.summary),
      );
      break;
    default:
      art.append(header("other", role, [time, num]), codeBlock(json(msg), "json"));
  }
  return art;
}

/** A system message: its text, its sections by name, and the tools it adds and removes. */
function systemBody(msg) {
  const box = el("div", "content");
  const text =
    typeof msg.content === "string"
      ? msg.content
      : Array.isArray(msg.content)
        ? msg.content
            .filter((b) => isObject(b) && b.type === "text")
            .map((b) => String(b.text ?? ""))
            .join("\n")
        : "";
  if (text) box.append(output(text, "output prompt"));
  if (isObject(msg.sections)) {
    for (const [name, value] of Object.entries(msg.sections)) {
      const d = el("details", "section");
      const summary = el("summary", "");
      summary.append(el("span", "mono", name));
      if (value === null) summary.append(chip("removed", "warn"));
      else summary.append(el("span", "muted small", ` ${String(value).length} characters`));
      d.append(summary);
      if (value !== null) d.append(output(String(value), "output prompt"));
      box.append(d);
    }
  }
  const tools = el("div", "tool-list");
  for (const t of Array.isArray(msg.toolsAdded) ? msg.toolsAdded : [])
    tools.append(chip(`+ ${String(t?.name)}`, "ok mono"));
  for (const t of Array.isArray(msg.toolsRemoved) ? msg.toolsRemoved : [])
    tools.append(chip(`− ${String(t?.name)}`, "warn mono"));
  if (tools.childNodes.length) box.append(tools);
  return box;
}

function details(title, value) {
  const d = el("details", "raw");
  d.append(el("summary", "", title), codeBlock(json(value), "json"));
  return d;
}
