// The rows of pi's `/tree` view (its TUI tree selector) for a `getTree`
// result: which entries each filter shows, in what order, with what prefix
// (`├─ `, `└─ `, `│`), whether each is on the active path, and its text.
// Pure: no `node:` imports.
//
// How pi 1.6 lays the view out (worked out from its behaviour, written anew):
// - order: depth first; at every branch point (and among the roots) the child
//   whose subtree holds the current leaf comes first, the others keep the tree's
//   order (oldest first);
// - each shown entry hangs under its nearest shown ancestor, so hidden entries
//   pull their shown descendants up;
// - a chain of single children stays at one indentation; the children of a
//   branch point are indented one step and get a connector (`├─ `, or `└─ ` for
//   the last one), and the first entry after a branch is indented one more;
// - a connector that is not the last leaves a `│` in the column below it for
//   as long as its subtree lasts;
// - with several roots, the roots get no connector and no indentation.
//
// A file read by piece gives nodes with a `preview` (getTree's `preview`
// option, with TREE_FIELDS): the rows read it instead of the entry, so the
// entries' text is never held. A preview's strings are cut after 512
// characters that are not whitespace; the rows read no further into the
// text of a message, but some show a field whole (a branch summary, a path):
// a row whose such field may have been cut reads its entry (`entryOf`).

export const FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"];

const SETTINGS = new Set(["label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"]);

/**
 * `String(value)`, or `fallback` for a value that has no string: JSON.parse
 * makes objects whose own `toString` is no function (`{"toString":1}`) and
 * arrays nested too deep to join, and `String` throws on both. Whatever a
 * file holds and a view shows as text goes through here.
 */
export function textOr(value, fallback = "?") {
  try {
    return String(value);
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) return fallback;
    throw error;
  }
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const block of content) {
    if (block !== null && typeof block === "object" && block.type === "text") text += textOr(block.text);
  }
  return text;
}

function hasText(content) {
  if (typeof content === "string") return content.trim().length > 0;
  if (!Array.isArray(content)) return false;
  return content.some(
    (b) =>
      b !== null && typeof b === "object" && b.type === "text" && typeof b.text === "string" && b.text.trim() !== "",
  );
}

/**
 * The fields of an entry the rows read: `getTree(source, { preview:
 * TREE_FIELDS })` keeps these, and the rows come from the previews.
 */
export const TREE_FIELDS = [
  "type",
  "id",
  "customType",
  "content",
  "tokensBefore",
  "summary",
  "modelId",
  "thinkingLevel",
  "label",
  "targetId",
  "name",
  // A context edit's row asks only whether it omits (null) or replaces.
  "replacement.role",
  "message.role",
  // Of the blocks: a text's text, a tool call's id, name and arguments.
  "message.content.type",
  "message.content.text",
  "message.content.id",
  "message.content.name",
  "message.content.arguments",
  "message.toolCallId",
  "message.toolName",
  "message.stopReason",
  "message.errorMessage",
  "message.command",
];

/**
 * Of TREE_FIELDS, all but a message's content (a user's or assistant's text
 * and tool calls, the long part of most entries): a tree read with these
 * previews holds little per entry, and the rows read the content of the
 * messages that need it (see `readsContent`) a batch at a time, through
 * `treeRowStream`'s `contents`.
 */
export const FACT_FIELDS = TREE_FIELDS.filter((f) => !f.startsWith("message.content"));

/**
 * The entries whose rows read their message's content, a user's or an
 * assistant's: field paths and the strings each must be one of, as getTree's
 * `detail.where` takes them (`CONTENT_DETAIL`).
 */
const CONTENT_OF = { type: ["message"], "message.role": ["user", "assistant"] };

const CONTENT_PATHS = Object.entries(CONTENT_OF).map(([path, values]) => [path.split("."), values]);

/** Whether the row rules read the content of `entry`'s message (CONTENT_OF). */
export function readsContent(entry) {
  return CONTENT_PATHS.every(([keys, values]) => {
    let value = entry;
    for (const key of keys) value = value !== null && typeof value === "object" ? value[key] : undefined;
    return typeof value === "string" && values.includes(value);
  });
}

/** The arguments `toolCallText` reads of a call to one of TOOLS; of any other it shows their JSON. */
const TOOL_ARGUMENTS = ["path", "file_path", "offset", "limit", "command", "pattern"];
const TOOLS = new Set(["read", "write", "edit", "bash", "grep", "find", "ls"]);

/**
 * TREE_FIELDS with only the tool calls' arguments that TOOLS read: what the
 * rows of a message read of it, unless it calls another tool (`otherTools`).
 */
const CONTENT_FIELDS = TREE_FIELDS.flatMap((f) =>
  f === "message.content.arguments" ? TOOL_ARGUMENTS.map((a) => `${f}.${a}`) : [f],
);

/** Whether a CONTENT_FIELDS preview calls a tool whose row shows all its arguments. */
function otherTools(preview) {
  const content = preview?.message?.content;
  return (
    Array.isArray(content) &&
    content.some((b) => b !== null && typeof b === "object" && b.type === "toolCall" && !TOOLS.has(b.name))
  );
}

/**
 * The most of a message's text a row reads (`preview`): the cut of the
 * messages' content previews (CONTENT_DETAIL's `cap`), which keeps at least
 * that many units of a string, and less of it than PREVIEW_CAP.
 */
const TEXT_SHOWN = 200;

/**
 * getTree's `detail` option for the rows, with a ContentDigests' `map`: the
 * content fields (CONTENT_FIELDS) of the messages whose rows read them
 * (CONTENT_OF), read in the pass that reads the tree, their strings cut
 * after TEXT_SHOWN units that are not whitespace.
 */
export const CONTENT_DETAIL = { preview: CONTENT_FIELDS, where: CONTENT_OF, cap: TEXT_SHOWN };

/**
 * For `treeRowStream`'s `contents`: `[node, entry]` for each of `nodes` (of
 * a tree read by piece, with `range`s), in their order, `batch` at a time
 * (each batch read in file order).
 * `previews(ranges, fields)` gives the previews of entries at `ranges`
 * (`[offset, length]` pairs in one array), as `previewEntries` does. The
 * entry is its preview, or the entry itself where the preview's cut may show
 * (`fromPreview`).
 */
export function* contentEntries(nodes, previews, batch = 2048) {
  const rangesOf = (list) => {
    const ranges = new Float64Array(2 * list.length);
    for (let k = 0; k < list.length; k++) {
      ranges[2 * k] = list[k].range[0];
      ranges[2 * k + 1] = list[k].range[1];
    }
    return ranges;
  };
  for (let i = 0; i < nodes.length; i += batch) {
    const some = nodes.slice(i, i + batch).sort((a, b) => a.range[0] - b.range[0]);
    const got = previews(rangesOf(some), CONTENT_FIELDS);
    const others = some.filter((_, k) => otherTools(got[k]));
    if (others.length > 0) {
      const full = previews(rangesOf(others), TREE_FIELDS);
      for (let k = 0, j = 0; k < some.length; k++) if (otherTools(got[k])) got[k] = full[j++];
    }
    const entry = new Map();
    for (let k = 0; k < some.length; k++) entry.set(some[k], got[k]);
    for (const node of nodes.slice(i, i + batch)) yield [node, fromPreview(entry.get(node), () => node.entry)];
  }
}

/** Non-whitespace UTF-16 units a preview's string keeps when it is cut (src/preview.rs's TEXT_CAP). */
const PREVIEW_CAP = 512;

/** Whether a preview's `value` may have been cut: a string with `cap` units that are not whitespace. */
function mayBeCut(value, cap = PREVIEW_CAP) {
  return typeof value === "string" && value.length >= cap && value.replace(/\s+/g, "").length >= cap;
}

/** Whether a tool call's fields that a tool result's row shows whole (or looks up by) may have been cut at `cap`. */
function callCut(block, cap) {
  const a = block.arguments !== null && typeof block.arguments === "object" ? block.arguments : {};
  return [block.id, block.name, a.path, a.file_path, a.pattern, a.offset, a.limit].some((v) => mayBeCut(v, cap));
}

/**
 * Whether the row of `preview` may differ from its entry's: a field the row
 * shows whole, compares or looks up by may have been cut. The text of a
 * message is read to its 200th character at most (TEXT_SHOWN), an error to
 * its 80th, a command in a tool call to its 51st, a tool call's JSON to its
 * 41st: all within what a cut keeps, at PREVIEW_CAP or at `cap` (at least
 * TEXT_SHOWN).
 */
function cutShown(preview, cap = PREVIEW_CAP) {
  if (preview === null || typeof preview !== "object") return false;
  const p = preview;
  const cut = (v) => mayBeCut(v, cap);
  if ([p.type, p.id, p.customType, p.tokensBefore, p.modelId, p.thinkingLevel, p.label, p.targetId].some(cut))
    return true;
  if (cut(p.name) || (p.type === "branch_summary" && cut(p.summary))) return true;
  if (p.type === "custom_message" && cut(textOf(p.content))) return true;
  const m = p.message;
  if (m === null || typeof m !== "object") return false;
  if ([m.role, m.toolCallId, m.toolName, m.command].some(cut)) return true;
  return (
    Array.isArray(m.content) &&
    m.content.some((b) => b !== null && typeof b === "object" && b.type === "toolCall" && callCut(b, cap))
  );
}

/**
 * The entry a node's row reads: its preview, when it has one whose cut
 * cannot change the row; else its entry (read then, from a source).
 */
export function entryOf(node) {
  return "preview" in node ? fromPreview(node.preview, () => node.entry) : node.entry;
}

/** `preview` when its cut cannot change the row; else the entry, `read()`. */
export function fromPreview(preview, read) {
  return cutShown(preview) ? read() : preview;
}

const flat = (text) =>
  String(text)
    .replace(/[\n\t]/g, " ")
    .trim();
const preview = (content) => flat(textOf(content).slice(0, TEXT_SHOWN));

/**
 * Whether `filter` shows this node, whose entry is `entry` (the current leaf
 * is `leafId`). `textShown`, if given, is `hasText` of its message's content
 * (a ContentDigests' `hasText`).
 */
export function isShown(node, filter, leafId, entry = entryOf(node), textShown = undefined) {
  if (entry === null || typeof entry !== "object") return filter === "all";
  if (entry.type === "usage") return false;
  const message =
    entry.type === "message" && entry.message !== null && typeof entry.message === "object" ? entry.message : null;
  if (message?.role === "assistant" && entry.id !== leafId) {
    const failed = Boolean(message.stopReason) && message.stopReason !== "stop" && message.stopReason !== "toolUse";
    if (!(textShown ?? hasText(message.content)) && !failed) return false;
  }
  const settings = SETTINGS.has(entry.type);
  switch (filter) {
    case "user-only":
      return message?.role === "user";
    case "no-tools":
      return !settings && message?.role !== "toolResult";
    case "labeled-only":
      return node.label !== undefined;
    case "all":
      return true;
    default:
      return !settings;
  }
}

function shortenHome(path, home) {
  if (!home || !path.startsWith("/")) return path;
  const base = home.endsWith("/") ? home.slice(0, -1) : home;
  if (path === base) return "~";
  return path.startsWith(`${base}/`) ? `~/${path.slice(base.length + 1)}` : path;
}

function lineNumber(value) {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
}

function readRange(offset, limit) {
  if (offset == null && limit == null) return "";
  const start = offset == null ? 1 : lineNumber(offset);
  if (start === undefined) return "";
  if (limit == null) return `:${start}`;
  const count = lineNumber(limit);
  if (count === undefined) return "";
  const end = start + count - 1;
  return end ? `:${start}-${end}` : `:${start}`;
}

/** A tool call as pi's tree shows the result it produced: `[read: ~/x.ts:1-20]`, `[bash: make]`. */
export function toolCallText(name, args, home) {
  try {
    return callText(name, args, home);
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    return `[${textOr(name)}]`; // an argument that has no text (see textOr)
  }
}

function callText(name, args, home) {
  const a = args !== null && typeof args === "object" ? args : {};
  const path = (p) => shortenHome(String(p), home);
  switch (name) {
    case "read":
      return `[read: ${path(a.path || a.file_path || "")}${readRange(a.offset, a.limit)}]`;
    case "write":
    case "edit":
      return `[${name}: ${path(a.path || a.file_path || "")}]`;
    case "bash": {
      const command = String(a.command || "");
      return `[bash: ${flat(command).slice(0, 50)}${command.length > 50 ? "..." : ""}]`;
    }
    case "grep":
      return `[grep: /${String(a.pattern || "")}/ in ${path(a.path || ".")}]`;
    case "find":
      return `[find: ${String(a.pattern || "")} in ${path(a.path || ".")}]`;
    case "ls":
      return `[ls: ${path(a.path || ".")}]`;
    default: {
      const json = JSON.stringify(args) ?? "undefined";
      return `[${name}: ${json.slice(0, 40)}${json.length > 40 ? "..." : ""}]`;
    }
  }
}

/**
 * An entry's text in the view, with its style: `{ text, style }` or, for
 * messages with a role prefix, `{ role, text, style }`. Styles: "user",
 * "assistant", "muted", "dim", "error", "custom", "compaction", "summary".
 * `toolCall(id)` gives the text (`toolCallText`) of the tool call a tool
 * result answers, or undefined; only a tool result's row asks. `text`, if
 * given, is `preview` of a user's or assistant's message content (a
 * ContentDigests' `text`).
 */
export function entryText(entry, toolCall, text = undefined) {
  try {
    return describeEntry(entry, toolCall, text);
  } catch (error) {
    // A field the row shows that has no text (see textOr).
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    return { text: "(a field that has no text)", style: "error" };
  }
}

function describeEntry(entry, toolCall, text) {
  if (entry === null || typeof entry !== "object") return { text: "", style: "dim" };
  switch (entry.type) {
    case "message": {
      const m = entry.message !== null && typeof entry.message === "object" ? entry.message : {};
      switch (m.role) {
        case "user":
          return { role: "user: ", text: text ?? preview(m.content), style: "user" };
        case "assistant": {
          const shown = text ?? preview(m.content);
          if (shown) return { role: "assistant: ", text: shown, style: "assistant" };
          if (m.stopReason === "aborted") return { role: "assistant: ", text: "(aborted)", style: "muted" };
          if (m.errorMessage) return { role: "assistant: ", text: flat(m.errorMessage).slice(0, 80), style: "error" };
          return { role: "assistant: ", text: "(no content)", style: "muted" };
        }
        case "toolResult": {
          const call = m.toolCallId ? toolCall(m.toolCallId) : undefined;
          return { text: call ?? `[${m.toolName ?? "tool"}]`, style: "muted" };
        }
        case "bashExecution":
          return { text: `[bash]: ${flat(m.command ?? "")}`, style: "dim" };
        default:
          return { text: `[${m.role}]`, style: "dim" };
      }
    }
    case "custom_message":
      return { role: `[${entry.customType}]: `, text: flat(textOf(entry.content)), style: "custom" };
    case "compaction":
      return { text: `[compaction: ${Math.round(entry.tokensBefore / 1000)}k tokens]`, style: "compaction" };
    case "branch_summary":
      return { role: "[branch summary]: ", text: flat(entry.summary ?? ""), style: "summary" };
    case "model_change":
      return { text: `[model: ${entry.modelId}]`, style: "dim" };
    case "thinking_level_change":
      return { text: `[thinking: ${entry.thinkingLevel}]`, style: "dim" };
    case "custom":
      return { text: `[custom: ${entry.customType}]`, style: "dim" };
    case "context_edit":
      return { text: `[context ${entry.replacement === null ? "omit" : "replace"}: ${entry.targetId}]`, style: "dim" };
    case "label":
      return { text: `[label: ${entry.label ?? "(cleared)"}]`, style: "dim" };
    case "session_info":
      return { text: `[title: ${entry.name ? entry.name : "empty"}]`, style: "dim" };
    default:
      return { text: "", style: "dim" };
  }
}

/**
 * The node whose entry has id `id` (the last one in the tree's depth-first
 * order, as the view takes it), or undefined.
 */
export function findNode(roots, id) {
  let found;
  for (const stack = [...roots].reverse(); stack.length > 0; ) {
    const node = stack.pop();
    if (entryOf(node)?.id === id) found = node;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return found;
}

/**
 * The id of the node last in file order, by the nodes' `range`s (a tree read
 * by piece): the session's leaf, its last entry, as `Session.leafId` gives it.
 */
export function lastInFile(roots) {
  let last;
  for (const stack = [...roots]; stack.length > 0; ) {
    const node = stack.pop();
    if (last === undefined || node.range[0] > last.range[0]) last = node;
    for (const child of node.children) stack.push(child);
  }
  return last === undefined ? null : entryOf(last).id;
}

/** The tool calls of `entry`'s message (an assistant's): `[id, toolCallText]` each, in order. */
function toolCallsOf(entry, home) {
  const m = entry?.type === "message" ? entry.message : undefined;
  const calls = [];
  if (m?.role === "assistant" && Array.isArray(m.content)) {
    for (const b of m.content) {
      if (b !== null && typeof b === "object" && b.type === "toolCall")
        calls.push([b.id, toolCallText(b.name, b.arguments, home)]);
    }
  }
  return calls;
}

/**
 * What the rows read of the content of messages (`readsContent`), made once
 * from each entry (or its CONTENT_FIELDS preview) and kept by number: whether
 * it has text (`isShown`'s `textShown`), its text as its row shows it
 * (`entryText`'s `text`) and its tool calls (`toolCallsOf`), the texts in
 * `texts` (a Utf8Texts). The content is read once; what is held until the
 * rows are drawn is what they show.
 *
 * `map` is getTree's `detail.map` for CONTENT_DETAIL: each node of such a
 * message then has its digest's number as `detail`, made while getTree reads
 * the file. A preview whose cut may show (`fromPreview`), or that calls a
 * tool whose row shows all its arguments, makes none: that entry is read
 * again (`treeRowStream`'s `contents`).
 */
export class ContentDigests {
  texts = new Utf8Texts();
  #home;
  #count = 0;
  // Per digest: whether its content has text, its text's number, where its
  // calls start in #calls (`[id, text number]` pairs, flat; they end where
  // the next digest's start).
  #hasText = new Uint8Array(1024);
  #text = new Int32Array(1024);
  #callsFrom = new Int32Array(1025);
  #calls = [];

  constructor(home = "") {
    this.#home = home;
  }

  /** Keeps the digest of `entry`, a user's or an assistant's message; gives its number. */
  add(entry) {
    const d = this.#count++;
    if (d + 1 >= this.#hasText.length) {
      const grow = (a, n) => {
        const b = new a.constructor(n);
        b.set(a);
        return b;
      };
      const n = 2 * this.#hasText.length;
      this.#hasText = grow(this.#hasText, n);
      this.#text = grow(this.#text, n);
      this.#callsFrom = grow(this.#callsFrom, n + 1);
    }
    const content = entry.message.content;
    for (const [id, text] of toolCallsOf(entry, this.#home)) this.#calls.push(id, this.texts.add(text));
    this.#hasText[d] = hasText(content) ? 1 : 0;
    this.#text[d] = this.texts.add(preview(content));
    this.#callsFrom[d + 1] = this.#calls.length;
    return d;
  }

  map = (text) => {
    const p = JSON.parse(text);
    return otherTools(p) || cutShown(p, CONTENT_DETAIL.cap) ? undefined : this.add(p);
  };

  /** Whether digest `d`'s content has text. */
  hasText(d) {
    return this.#hasText[d] === 1;
  }

  /** The number (in `texts`) of digest `d`'s text. */
  text(d) {
    return this.#text[d];
  }

  /** `f(id, text number)` for each of digest `d`'s tool calls, in order. */
  eachCall(d, f) {
    for (let c = this.#callsFrom[d]; c < this.#callsFrom[d + 1]; c += 2) f(this.#calls[c], this.#calls[c + 1]);
  }
}

/**
 * The rows of the view: `[{ node, id, type, depth, prefix, active, isLeaf,
 * label, role, text, style }]` in display order. `prefix` is the drawing
 * before the entry (`│  ├─ `); `active` marks the path from the root to
 * `leafId`. Nodes with a `preview` are described from it (see `entryOf`).
 */
export function treeRows(roots, options = {}) {
  return [...treeRowStream(roots, options)];
}

/**
 * Texts kept as UTF-8 in shared arrays of a MiB, each known by a number. A
 * short text cut from a message as a JS string takes two bytes a character
 * as soon as one is past Latin-1 (most are, in a long session), and may keep
 * the longer string it was cut from; its UTF-8 takes about a byte. A text
 * with a surrogate stays a string (UTF-8 would lose a lone one, from a cut
 * through a pair; pairs are rare enough).
 */
class Utf8Texts {
  static CHUNK = 1 << 20;
  #encoder = new TextEncoder();
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #chunks = [];
  #used = 0;
  #odd = new Map();
  #count = 0;
  // Per text: its bytes' chunk, offset and length.
  #chunk = new Uint32Array(1024);
  #from = new Uint32Array(1024);
  #length = new Uint32Array(1024);

  /** Keeps `text`; gives its number. */
  add(text) {
    const n = this.#count++;
    if (n === this.#chunk.length) {
      const grow = (a) => {
        const b = new Uint32Array(2 * a.length);
        b.set(a);
        return b;
      };
      this.#chunk = grow(this.#chunk);
      this.#from = grow(this.#from);
      this.#length = grow(this.#length);
    }
    if (/[\ud800-\udfff]/.test(text)) {
      this.#odd.set(n, text);
      return n;
    }
    const room = 3 * text.length;
    if (this.#chunks.length === 0 || this.#used + room > Utf8Texts.CHUNK) {
      this.#chunks.push(new Uint8Array(Math.max(Utf8Texts.CHUNK, room)));
      this.#used = 0;
    }
    const chunk = this.#chunks.length - 1;
    const { written } = this.#encoder.encodeInto(text, this.#chunks[chunk].subarray(this.#used));
    this.#chunk[n] = chunk;
    this.#from[n] = this.#used;
    this.#length[n] = written;
    this.#used += written;
    return n;
  }

  /** The text numbered `n`. */
  get(n) {
    const odd = this.#odd.get(n);
    if (odd !== undefined) return odd;
    const from = this.#from[n];
    return this.#decoder.decode(this.#chunks[this.#chunk[n]].subarray(from, from + this.#length[n]));
  }
}

/**
 * Row descriptions (`{ role, text, style }`) kept until drawn, by a node's
 * place: the texts in a Utf8Texts, `role` and `style` shared (they take few
 * values).
 */
class RowTexts {
  #texts;
  #kinds = [];
  #kindOf = new Map();
  // Per place: 1 + its kind (0: none kept), and its text's number.
  #kind;
  #text;

  constructor(count, texts) {
    this.#texts = texts;
    this.#kind = new Uint16Array(count);
    this.#text = new Int32Array(count);
  }

  /** Keeps row `k`'s description; `n`, if given, is the number of its text already in the texts. */
  set(k, { role = "", text, style }, n = undefined) {
    const key = `${role}\n${style}`;
    let kind = this.#kindOf.get(key);
    if (kind === undefined) {
      kind = this.#kinds.push({ role, style }) - 1;
      this.#kindOf.set(key, kind);
    }
    if (kind >= 0xffff) throw new RangeError("too many kinds of rows");
    this.#kind[k] = kind + 1;
    this.#text[k] = n ?? this.#texts.add(text);
  }

  /** The row kept for place `k`, or undefined. */
  get(k) {
    const kind = this.#kind[k];
    if (!(kind > 0)) return undefined;
    const { role, style } = this.#kinds[kind - 1];
    return { role, text: this.#texts.get(this.#text[k]), style };
  }
}

/**
 * `treeRows`' rows one at a time. With `contents`, the nodes' previews need
 * hold only FACT_FIELDS: a node whose row reads its message's content
 * (`readsContent`) has its digest as `detail` (read with `digests`, a
 * ContentDigests, see there), or else is read again: `contents(nodes)` is
 * given those nodes, in display order, and gives `[node, entry]` for each, in
 * that order, with its entry (or TREE_FIELDS preview, see `fromPreview`), a
 * batch at a time: each entry is used when it comes and let go, so what is
 * held per entry is its facts, whether it is shown and, for those shown, its
 * row's text.
 */
export function* treeRowStream(roots, { leafId = null, filter = "default", home = "", contents, digests } = {}) {
  // The current leaf: the last node in depth-first order whose entry has id
  // `leafId`; the path from the root to it is active.
  let path = [];
  if (leafId !== null) {
    const at = [];
    const stack = [];
    for (let i = roots.length - 1; i >= 0; i--) stack.push(roots[i], 0);
    while (stack.length > 0) {
      const depth = stack.pop();
      const node = stack.pop();
      at.length = depth;
      at.push(node);
      if (entryOf(node)?.id === leafId) path = at.slice();
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i], depth + 1);
    }
  }
  const leaf = path.at(-1);
  const active = new Set(path);
  path = undefined;

  // Display order: the branch holding the leaf first, at every level. A
  // node is known by its place `k` in it: `ordered[k]`, the entry its row
  // reads `entryAt[k]`, its parent's place `parentAt[k]` (-1 for a root).
  const leafFirst = (nodes) =>
    nodes.some((n) => active.has(n))
      ? [...nodes.filter((n) => active.has(n)), ...nodes.filter((n) => !active.has(n))]
      : nodes;
  const ordered = [];
  const parentAt = [];
  const stackNodes = [];
  const stackUp = [];
  const top = leafFirst(roots);
  for (let i = top.length - 1; i >= 0; i--) {
    stackNodes.push(top[i]);
    stackUp.push(-1);
  }
  while (stackNodes.length > 0) {
    const node = stackNodes.pop();
    const k = ordered.length;
    ordered.push(node);
    parentAt.push(stackUp.pop());
    const children = leafFirst(node.children);
    for (let i = children.length - 1; i >= 0; i--) {
      stackNodes.push(children[i]);
      stackUp.push(k);
    }
  }
  const count = ordered.length;
  const entryAt = ordered.map((node) => entryOf(node));

  // Each node's entry, once, in display order: whether it is shown, and its
  // tool calls (the last in display order wins an id). A row whose entry
  // comes from `contents` keeps its text then; the others are described
  // from `entryAt` when drawn.
  // Digests made as the tree was read are the nodes' `detail`s.
  const made = digests !== undefined;
  const digest = digests ?? new ContentDigests(home);
  const texts = digest.texts;
  const toolCalls = new Map();
  const toolCall = (id) => {
    const n = toolCalls.get(id);
    return n === undefined ? undefined : texts.get(n);
  };
  const keepCall = (id, n) => toolCalls.set(id, n);
  const shown = new Uint8Array(count);
  const described = new RowTexts(contents === undefined ? 0 : count, texts);
  const madeAt = (k) => (made ? ordered[k].detail : undefined);
  const read = contents?.(ordered.filter((_, k) => readsContent(entryAt[k]) && madeAt(k) === undefined))[
    Symbol.iterator
  ]();
  for (let k = 0; k < count; k++) {
    const node = ordered[k];
    const entry = entryAt[k];
    let d;
    if (read !== undefined && readsContent(entry)) d = madeAt(k) ?? digest.add(read.next().value[1]);
    if (d !== undefined) digest.eachCall(d, keepCall);
    else for (const [id, text] of toolCallsOf(entry, home)) toolCalls.set(id, texts.add(text));
    if (!isShown(node, filter, leafId, entry, d === undefined ? undefined : digest.hasText(d))) continue;
    shown[k] = 1;
    if (d !== undefined) {
      const n = digest.text(d);
      const text = texts.get(n);
      const row = entryText(entry, toolCall, text);
      described.set(k, row, row.text === text ? n : undefined);
    }
  }

  // The shown nodes, each under its nearest shown ancestor (-1: none), as
  // lists in display order: `firstKid[k]`, then `nextKid` of each.
  const firstKid = new Int32Array(count + 1).fill(-1);
  const lastKid = new Int32Array(count + 1).fill(-1);
  const nextKid = new Int32Array(count).fill(-1);
  const TOP = count;
  for (let k = 0; k < count; k++) {
    if (!shown[k]) continue;
    let up = parentAt[k];
    while (up !== -1 && !shown[up]) up = parentAt[up];
    const list = up === -1 ? TOP : up;
    if (lastKid[list] === -1) firstKid[list] = k;
    else nextKid[lastKid[list]] = k;
    lastKid[list] = k;
  }
  const kidsOf = (list) => {
    const kids = [];
    for (let k = firstKid[list]; k !== -1; k = nextKid[k]) kids.push(k);
    return kids;
  };

  // Layout. Each connector that is not the last leaves a `│` in its column
  // (its level) for as long as its subtree lasts: `guides` is the cells of
  // the levels below a row's own, one per level up to the deepest such
  // column (`│  `, or blank where none is). Depth never decreases going down
  // the tree, so a row's guides end before its depth, and a new column comes
  // after the others.
  const topLevel = kidsOf(TOP);
  const several = topLevel.length > 1;
  const stack = [];
  for (let i = topLevel.length - 1; i >= 0; i--) {
    stack.push({
      k: topLevel[i],
      indent: several ? 1 : 0,
      afterBranch: several,
      connector: false,
      last: i === topLevel.length - 1,
      guides: "",
    });
  }
  while (stack.length > 0) {
    const { k, indent, afterBranch, connector, last, guides } = stack.pop();
    const node = ordered[k];
    const depth = several ? Math.max(0, indent - 1) : indent;
    const levels = guides.length / 3;
    let prefix = guides;
    if (depth > levels) prefix += `${"   ".repeat(depth - 1 - levels)}${connector ? (last ? "└─ " : "├─ ") : "   "}`;
    const entry = entryAt[k];
    const { role = "", text, style } = described.get(k) ?? entryText(entry, toolCall);
    yield {
      node,
      id: entry?.id,
      type: entry?.type,
      depth,
      prefix,
      active: active.has(node),
      isLeaf: node === leaf,
      label: node.label,
      role,
      text,
      style,
    };
    const children = kidsOf(k);
    const branches = children.length > 1;
    const childIndent = branches || (afterBranch && indent > 0) ? indent + 1 : indent;
    const level = Math.max(0, depth - 1);
    const childGuides =
      connector && level >= levels ? `${guides}${"   ".repeat(level - levels)}${last ? "   " : "│  "}` : guides;
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({
        k: children[i],
        indent: childIndent,
        afterBranch: branches,
        connector: branches,
        last: i === children.length - 1,
        guides: childGuides,
      });
    }
  }
}
