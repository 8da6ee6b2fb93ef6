// Type declarations for the `session-tree` package.
//
// They describe the JSONL session format written by the pi coding agent
// (`@earendil-works/pi-coding-agent` 1.6, session version 3, which also
// covers the files of older versions) and the functions exported by this
// package. The same file is shipped as `index.d.ts` (ESM)
// and `index.d.cts` (CommonJS).

// ---------------------------------------------------------------------------
// Content blocks
// ---------------------------------------------------------------------------

/** A block of plain text inside a message. */
export interface TextContent {
  type: "text";
  text: string;
  [key: string]: unknown;
}

/** An image inside a message, base64 encoded. */
export interface ImageContent {
  type: "image";
  /** Base64 data, without a `data:` prefix. */
  data: string;
  /** For example `"image/png"`. */
  mimeType: string;
  [key: string]: unknown;
}

/** The model's reasoning, as recorded in an assistant message. */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  [key: string]: unknown;
}

/** A tool invocation requested by the model. */
export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [key: string]: unknown;
}

/** Token counts and cost of one assistant turn (or of a tool, a summary, a {@link UsageEntry}). */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The part of `cacheWrite` written with one-hour retention, where the provider reports it. */
  cacheWrite1h?: number;
  /** Reasoning tokens, a part of `output`, where the provider reports them. */
  reasoning?: number;
  totalTokens: number;
  cost: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    total: number;
    /** Whether `total` is the cost the provider billed (absent: an estimate from the price list). */
    totalFromProvider?: boolean;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A tool as the model is told about it, in a {@link SystemMessage}. */
export interface ToolDeclaration {
  name: string;
  description: string;
  /** The JSON Schema of the tool's arguments. */
  parameters: Record<string, unknown>;
  constrainedSampling?: unknown;
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

/** A prompt typed by the user. */
export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  /** Unix time in milliseconds. */
  timestamp: number;
  [key: string]: unknown;
}

/**
 * The system prompt and tools from this point on (pi 1.6). The first one holds
 * the base prompt; each later one patches the state: its `content` is appended,
 * `sections` are set by name (`null` removes one), tools are removed and then
 * added by name. Replayed in path order, they give what the model has.
 */
export interface SystemMessage {
  role: "system";
  /** The base prompt (first message) or instructions added to it (later ones). */
  content: string | TextContent[];
  /** Named prompt sections, set or (with `null`) removed by name. */
  sections?: Record<string, string | null>;
  /** Tools that become available here, with their full declarations. */
  toolsAdded?: ToolDeclaration[];
  /** Tools that stop being available here. */
  toolsRemoved?: { name: string; [key: string]: unknown }[];
  /** Unix time in milliseconds. */
  timestamp: number;
  [key: string]: unknown;
}

/** A model response. `provider`/`model` feed {@link SessionContext.model}. */
export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: string;
  provider: string;
  model: string;
  responseModel?: string;
  responseId?: string;
  /** The thinking level pi asked for (it does not feed {@link SessionContext.thinkingLevel}). */
  thinkingLevel?: string;
  /** The provider's own name for the effort level it used. */
  providerThinkingLevel?: string;
  usage: Usage;
  stopReason: "stop" | "length" | "toolUse" | "error" | "aborted" | "pending" | "deferred" | (string & {});
  /** How to fetch a deferred response later (`stopReason: "deferred"`). */
  deferred?: {
    provider: string;
    modelId: string;
    api: string;
    id: string;
    expiresAt?: number;
    pollAfterMs?: number;
    data?: unknown;
    [key: string]: unknown;
  };
  errorMessage?: string;
  /** The stop reason as the provider gave it. */
  rawStopReason?: string;
  /** Whether the provider said the model ended its turn. */
  endTurn?: boolean;
  /** Unix time in milliseconds when the request started. */
  timestamp: number;
  /** Milliseconds from `timestamp` to the end of the response. */
  durationMs?: number;
  [key: string]: unknown;
}

/** A call that a tool made to another tool while it ran. */
export interface NestedToolCall {
  id: string;
  name: string;
  arguments?: Record<string, unknown>;
  /** The size of the arguments as JSON, when they were left out. */
  argumentsBytes?: number;
  status: "ok" | "error" | "unfinished" | (string & {});
  durationMs?: number;
  error?: string;
  [key: string]: unknown;
}

/** The result of a tool call, sent back to the model. */
export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  /** Tool-specific metadata, not sent to the model. */
  details?: TDetails;
  /** What the tool itself used, outside the main model's accounting. */
  usage?: Usage;
  /** The calls the tool made to other tools (kept for the record, not sent to the model). */
  nestedCalls?: { calls: NestedToolCall[]; complete: boolean; [key: string]: unknown };
  isError: boolean;
  /** Unix time in milliseconds. */
  timestamp: number;
  /** How long the tool ran, in milliseconds. */
  durationMs?: number;
  [key: string]: unknown;
}

/** A shell command run by the user with `!` (or `!!`, excluded from context). */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  /** True for `!!` commands, which the model never sees. */
  excludeFromContext?: boolean;
  /** Unix time in milliseconds. */
  timestamp: number;
  [key: string]: unknown;
}

/**
 * A message injected by an extension. {@link buildSessionContext} produces
 * one for every {@link CustomMessageEntry} on the path (version 2 files call
 * this role `"hookMessage"`; {@link migrate} renames it).
 */
export interface CustomMessage<TDetails = unknown> {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether pi's TUI shows the message. */
  display: boolean;
  details?: TDetails;
  /** Unix time in milliseconds. */
  timestamp: number;
  [key: string]: unknown;
}

/** Produced by {@link buildSessionContext} for a {@link BranchSummaryEntry}. */
export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  /** The entry the abandoned branch ended at. */
  fromId: string;
  /** Unix time in milliseconds, from the entry's ISO timestamp. */
  timestamp: number;
  [key: string]: unknown;
}

/** Produced by {@link buildSessionContext} for the latest {@link CompactionEntry} on the path. */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  /** Unix time in milliseconds, from the entry's ISO timestamp. */
  timestamp: number;
  [key: string]: unknown;
}

/**
 * Fallback for message roles this package does not know about (messages are
 * passed through untouched, whatever their shape).
 */
export interface OtherMessage {
  role: string;
  [key: string]: unknown;
}

/** Any message that can appear in a session or in a {@link SessionContext}. */
export type AgentMessage =
  | SystemMessage
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage
  | OtherMessage;

// ---------------------------------------------------------------------------
// File entries
// ---------------------------------------------------------------------------

/**
 * The first line of a session file (forks such as oh-my-pi may write lines
 * before it). It is not part of the tree.
 */
export interface SessionHeader {
  type: "session";
  /** Format version; a missing version means 1. The current version is 3. */
  version?: number;
  /** Session UUID. */
  id: string;
  /** ISO 8601 time the session was created. */
  timestamp: string;
  /** Working directory of the session. */
  cwd: string;
  /** Path of the session file this one was forked from. */
  parentSession?: string;
}

/** Fields shared by every entry of the tree. */
export interface SessionEntryBase {
  type: string;
  /** Short id, 8 hex digits in files written by pi. */
  id: string;
  /** Id of the parent entry, `null` for a root. */
  parentId: string | null;
  /** ISO 8601 time the entry was written. */
  timestamp: string;
}

/** A conversation message. */
export interface SessionMessageEntry extends SessionEntryBase {
  type: "message";
  message: AgentMessage;
}

/** The user changed the thinking (reasoning) level. */
export interface ThinkingLevelChangeEntry extends SessionEntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

/** The user switched models. */
export interface ModelChangeEntry extends SessionEntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

/** Earlier context was summarised; entries before `firstKeptEntryId` are dropped from the context. */
export interface CompactionEntry<TDetails = unknown> extends SessionEntryBase {
  type: "compaction";
  summary: string;
  /**
   * First entry on the path whose message is still sent after the summary.
   * The compaction's own id means nothing before it is kept.
   */
  firstKeptEntryId: string;
  tokensBefore: number;
  /** Implementation- or extension-specific data. */
  details?: TDetails;
  /** What producing the summary cost. */
  usage?: Usage;
  /** True when an extension produced the compaction. */
  fromHook?: boolean;
  /**
   * The system prompt and tools at the compaction (pi 1.6): sent first, before
   * the summary. Absent in older files, and when there was no prompt state.
   */
  systemMessage?: SystemMessage;
}

/** A summary of a branch the user navigated away from. */
export interface BranchSummaryEntry<TDetails = unknown> extends SessionEntryBase {
  type: "branch_summary";
  /**
   * The entry the abandoned branch ended at (pi 1.6), or, in files of older
   * versions, the entry branched from; `"root"` for none.
   */
  fromId: string;
  summary: string;
  details?: TDetails;
  /** What producing the summary cost. */
  usage?: Usage;
  fromHook?: boolean;
}

/** Tokens used outside a message, for example to keep a cache warm (pi 1.6). It adds nothing to the context. */
export interface UsageEntry extends SessionEntryBase {
  type: "usage";
  /** What the usage was for, such as `"cache_warm"`; any string. */
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
  /** A qualifier for display. */
  note?: string;
}

/** The content a {@link ContextEditEntry} puts in place of its target's. */
export type ContextEditContent = string | (TextContent | ImageContent | ThinkingContent | ToolCall)[];

/**
 * Changes what the model sees of an earlier entry (pi 1.6), on paths through
 * this entry; the entry itself is never changed. The last edit of a target on
 * the path wins.
 */
export interface ContextEditEntry extends SessionEntryBase {
  type: "context_edit";
  /** The entry edited: a `custom_message`, or a user, assistant or tool result message. */
  targetId: string;
  /** `null` leaves the target out of the context; otherwise its `content` replaces the target's. */
  replacement: { content: ContextEditContent; [key: string]: unknown } | null;
}

/** Extension state. It never takes part in the context. */
export interface CustomEntry<TData = unknown> extends SessionEntryBase {
  type: "custom";
  customType: string;
  data?: TData;
}

/** A message injected by an extension; it becomes a {@link CustomMessage} in the context. */
export interface CustomMessageEntry<TDetails = unknown> extends SessionEntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether pi's TUI shows the message. */
  display: boolean;
  details?: TDetails;
}

/** Sets (or, with an empty or missing label, clears) the label of `targetId`. */
export interface LabelEntry extends SessionEntryBase {
  type: "label";
  targetId: string;
  label: string | undefined;
}

/** Session metadata such as a display name. */
export interface SessionInfoEntry extends SessionEntryBase {
  type: "session_info";
  name?: string;
}

/** Any entry of the tree (every line of a v3 file but the header): the eleven entry types. */
export type SessionEntry =
  | SessionMessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | UsageEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | ContextEditEntry
  | LabelEntry
  | SessionInfoEntry;

/** Any line of a session file. */
export type FileEntry = SessionHeader | SessionEntry;

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

/** A node of the tree returned by {@link getTree}. */
export interface SessionTreeNode {
  /** The entry. From {@link getTree} of text, parsed when first read. */
  entry: SessionEntry;
  /** Children, oldest timestamp first. */
  children: SessionTreeNode[];
  /** The entry's current label (the latest label entry for it wins). */
  label?: string;
  /** Timestamp of the label entry that set {@link label}. */
  labelTimestamp?: string;
  /**
   * With {@link TreeOptions.preview}, from a {@link ByteSource} of a current
   * (v3) session: the entry cut to the fields asked for, kept while the index
   * was read, so describing a node reads nothing again.
   */
  preview?: unknown;
  /** With {@link TreeOptions.preview}: `[offset, length]`, the entry's line in the source. */
  range?: [number, number];
  /**
   * With {@link TreeOptions.detail}, of an entry it picks: the JSON text of
   * its second preview (`JSON.parse` it when needed), or what `detail.map`
   * gave for it; else undefined.
   */
  detail?: unknown;
}

/** What pi sends to the model for one leaf of the tree. */
export interface SessionContext {
  messages: AgentMessage[];
  /** The latest thinking level on the path, `"off"` if none. */
  thinkingLevel: string;
  /** The latest model on the path (model change or assistant message), or `null`. */
  model: { provider: string; modelId: string } | null;
}

/** Options every function that reads session text takes. */
export interface ReadOptions {
  /**
   * Refuse text longer than this many UTF-8 bytes with a `RangeError`, before
   * any work is done. The default (and the most) is 1 GiB: working on a text
   * takes about four times its size in WebAssembly's 4 GiB memory.
   */
  maxBytes?: number;
  /**
   * How many bytes of a {@link ByteSource} are read at a time (default 1 MiB).
   * Meant for tests: a tiny piece puts piece boundaries everywhere.
   */
  pieceSize?: number;
}

/** Options of {@link getTree}. */
export interface TreeOptions extends ReadOptions {
  /**
   * Field paths (`"type"`, `"message.role"`; through an array a path applies
   * to each element) to keep of each entry of a {@link ByteSource}, read in
   * the same pass as the index: each node then has `preview` (the entry with
   * only those members, every string longer than 512 UTF-16 units cut after
   * its 512th that is not whitespace) and `range`. An entry that is not an
   * object is kept whole. Text, entry arrays and old (v1, v2) sessions read
   * whole give nodes without them.
   *
   * ```js
   * const roots = getTree(fileSource(path), { preview: ["type", "message.role"] });
   * roots[0].preview; // { type: "message", message: { role: "user" } }
   * ```
   */
  preview?: readonly string[];
  /**
   * A second preview, of the entries `where` picks only, in the same pass
   * as the index (from a {@link ByteSource} of a current session): each
   * node of such an entry then has `detail`, the preview of `preview` as
   * JSON text or, with `map`, what `map(text)` gave for it, called as the
   * pass reads the entry (in file order); a reader keeps what it makes of
   * the long fields of a few kinds of entries without reading them again.
   * `where` names field paths and the strings each may be; an entry is
   * picked when every path's value is a string among its list (the last of
   * repeated keys, as `JSON.parse` reads them). `cap`: how many UTF-16 units
   * that are not whitespace a long string keeps (default 512, as
   * {@link TreeOptions.preview}'s cut).
   *
   * ```js
   * const roots = getTree(fileSource(path), {
   *   preview: ["type", "message.role"],
   *   detail: { preview: ["message.content"], where: { "message.role": ["user"] } },
   * });
   * JSON.parse(roots[0].detail); // { message: { content: "Hello" } }
   * ```
   */
  detail?: {
    preview: readonly string[];
    where: { readonly [path: string]: readonly string[] };
    cap?: number;
    map?: (text: string) => unknown;
  };
}

/** Options of {@link parseSession}. */
export interface ParseOptions extends ReadOptions {
  /**
   * Throw a `SyntaxError` at the first malformed line (its message names the
   * 1-based line number, the column and the reason; it also has `line` and
   * `column` properties) instead of skipping it. Default `false`.
   */
  strict?: boolean;
}

/**
 * Session text as a string, or as UTF-8 bytes (for example a Node `Buffer`
 * or the result of `Response.arrayBuffer()` wrapped in a `Uint8Array`).
 * Bytes are decoded like `TextDecoder` does: a leading BOM is dropped and
 * invalid sequences become U+FFFD.
 */
export type SessionText = string | Uint8Array;

/**
 * A session's bytes held elsewhere (a file, a blob), read by range and never
 * written. {@link getTree}, {@link sessionInfo}, {@link countEntries},
 * {@link inspectSession}, {@link migrate} with `options.write`, and the
 * context functions ({@link buildSessionContext}, {@link buildContextEntries},
 * {@link buildSessionProjection}, {@link currentSystemMessage}) read it a
 * piece at a time, with no size limit (the context functions then read only
 * the header and the entries on the path); the other functions read it
 * whole, under `maxBytes`. An old (v1, v2) session is read whole by all but
 * {@link inspectSession} and a streamed {@link migrate}. `read` must give
 * exactly `length` bytes; anything else is an error naming the source.
 */
export interface ByteSource {
  /** Its size in bytes. */
  readonly size: number;
  /** Bytes `offset` to `offset + length`. */
  read(offset: number, length: number): Uint8Array;
  /** What errors call it (a file source: its path). */
  readonly name?: string;
}

/** A {@link ByteSource} over an open file descriptor (see {@link fileSource}). */
export interface FileSource extends ByteSource {
  readonly name: string;
  /** Closes the file; reads after it throw. */
  close(): void;
}

/**
 * A byte source over the file at `path` (Node, Bun and Deno; not in
 * browsers), opened now and read only. A file whose size or modification
 * time changes while it is read (truncated, rewritten, appended to) makes
 * the next read throw an `Error` naming it, never a mix of old and new.
 * Close it when done.
 */
export function fileSource(path: string | URL): FileSource;

/**
 * A byte source over a `Blob` or `File` (browsers, in a Web Worker only: it
 * reads with `FileReaderSync`; the browser entry exports it, the Node entry
 * does not). Each read takes a slice of the blob. A `File` changed on disk
 * since it was picked makes the next read throw an `Error` naming it. Errors
 * name the source by the file's `name`.
 *
 * ```js
 * // worker.js, given a File from an <input type="file"> by postMessage
 * import { blobSource, getTree } from "session-tree";
 * onmessage = ({ data: file }) => postMessage(getTree(blobSource(file)).length);
 * ```
 */
export function blobSource(blob: Blob): ByteSource & { readonly name: string };

// ---------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------

/**
 * Parses session JSONL into entries, like pi's `parseSessionEntries`: every
 * non-blank line is parsed as `JSON.parse` would (`\r\n` line ends accepted),
 * and blank or malformed lines are skipped.
 *
 * @param source - Session text, UTF-8 bytes, or values that are already
 * parsed (for example the result of an earlier call).
 * @param options - `{ strict: true }` makes the first malformed line throw.
 * @returns The parsed lines, header included, in file order. No migration
 * is applied (see {@link migrate}).
 * @throws `TypeError` if `source` or `options` has the wrong type; `Error`
 * naming the line number and reason in strict mode.
 *
 * @example
 * ```ts
 * const entries = parseSession(readFileSync(path, "utf8"));
 * ```
 */
export function parseSession(source: SessionText | readonly unknown[], options?: ParseOptions): FileEntry[];

/**
 * Upgrades parsed entries to the current format (version 3) in place, as pi
 * does on load: version 1 entries get fresh 8-hex ids chained through
 * `parentId`, `firstKeptEntryIndex` becomes `firstKeptEntryId`, the
 * `hookMessage` role becomes `custom`, and the header gets `version: 3`.
 *
 * @param entries - Entries from {@link parseSession}; modified in place.
 * @returns `true` if anything was changed, `false` for an up-to-date session.
 * @throws `TypeError` if `entries` is not an array.
 */
export function migrate(entries: FileEntry[]): boolean;
/**
 * Upgrades session text to the current format (version 3).
 *
 * @param source - Session text or UTF-8 bytes.
 * @returns The migrated JSONL in the form it came in: a string for a string,
 * a new `Uint8Array` of UTF-8 for bytes (ready to store, no decode or encode).
 * A session that is already at version 3 comes back unchanged (the same
 * string, or a byte-for-byte copy); malformed lines are kept verbatim in place.
 * @throws `TypeError` if `source` has the wrong type.
 */
export function migrate(source: string, options?: ReadOptions): string;
export function migrate(source: Uint8Array, options?: ReadOptions): Uint8Array;
export function migrate(source: SessionText, options?: ReadOptions): SessionText;
/**
 * Upgrades the session a {@link ByteSource} holds to version 3, streamed:
 * the source is read a piece at a time and the migrated file is handed to
 * `options.write` in pieces, in order, as it is made, so a file of any size
 * upgrades in memory that grows with its entries, not its text (a v1 file is
 * read twice). The new ids are those {@link migrate} of the same bytes draws.
 *
 * @returns `true` when the file needed migrating (its new bytes went to
 * `write`); `false` for a current file, of which only the header is read and
 * nothing is written (the source is its own migration).
 * @throws `TypeError` if `source` is not a byte source or `write` not a
 * function; what `read` or `write` throws, which ends the migration.
 */
export function migrate(source: ByteSource, options: MigrateOptions): boolean;
/** A {@link ByteSource} without `options.write`: read whole, under `maxBytes`, migrated as its bytes. */
export function migrate(source: ByteSource, options?: ReadOptions): Uint8Array;

/** Options of {@link migrate} streaming a {@link ByteSource}. */
export interface MigrateOptions extends ReadOptions {
  /**
   * Takes the migrated file a piece at a time (each a new array, the caller's to keep).
   * It must have written them when it returns: one that returns a promise is refused.
   */
  write(bytes: Uint8Array): void;
}

/**
 * Builds the entry tree, like pi's `SessionManager.getTree()`: entries whose
 * parent is `null`, missing or themselves are roots, children are sorted by
 * timestamp (oldest first) and labels are resolved (latest label entry wins,
 * an empty label clears). Works for arbitrarily deep trees.
 *
 * @param source - Session text, UTF-8 bytes, or entries (with or without the
 * header). Text is parsed and migrated first. An array is not modified and
 * its entry objects are reused in the nodes.
 * @returns The roots. From text, each node's `entry` is parsed when first
 * read and the same object returned after (an own enumerable accessor that
 * reads and writes like data), so a walk over the shape parses nothing.
 * From a {@link ByteSource}, the tree is built from an index read a piece at
 * a time (a few dozen bytes per entry), and each node's `entry` is read by
 * its byte range when first read: keep the source open while entries are
 * read. An old (v1, v2) session through a source is read whole and migrated,
 * as text is.
 * @throws `TypeError` if `source` has the wrong type.
 */
export function getTree(
  source: SessionText | ByteSource | readonly FileEntry[],
  options?: TreeOptions,
): SessionTreeNode[];

/**
 * The previews ({@link TreeOptions.preview}: the entry cut to the fields
 * asked for, long strings cut alike) of the entries of a {@link ByteSource}
 * at `ranges`: `[offset, length]` pairs one after the other, as the nodes'
 * {@link SessionTreeNode.range}s give them. Each range is read on its own and
 * only its preview is kept, so a reader of a tree read with a few small
 * fields can read the long ones a batch at a time, holding one batch.
 *
 * ```js
 * const roots = getTree(source, { preview: ["type"] });
 * const [first] = previewEntries(source, roots[0].range, { preview: ["message.content"] });
 * ```
 *
 * @returns One preview per pair, in their order.
 * @throws `TypeError` without `options.preview`, for `ranges` that are not
 * numbers or for an odd count of them; `RangeError` for a range past the source's end; `Error` naming the
 * source when a range is not one JSON text (the source changed).
 */
export function previewEntries(
  source: ByteSource,
  ranges: ArrayLike<number>,
  options: TreeOptions & { preview: readonly string[] },
): unknown[];

/**
 * Resolves the messages, thinking level and model that pi would send to the
 * model from one leaf, like pi 1.6's `buildSessionContext`: walks from the
 * leaf to its root; with a compaction on the path, the latest one's
 * checkpoint (`systemMessage`) and summary come first, then the kept entries
 * from `firstKeptEntryId` (system messages there left out), then everything
 * after it. The last `context_edit` of each entry in that range applies: a
 * `null` replacement leaves the entry out, any other replaces the `content`
 * of its user, assistant, toolResult or custom messages. Null or missing
 * content becomes `""` (system) or `[]` (user, assistant, toolResult).
 * Branch summaries and custom messages become messages, with the entry's ISO
 * timestamp turned into milliseconds. The thinking level and model come from
 * the whole path (`usage` entries never set the model).
 *
 * @param source - Session text, UTF-8 bytes, or entries (with or without the
 * header). Text is parsed and migrated first. An array is not modified and
 * its message objects are returned as they are (or copied, where pi copies).
 * @param leafId - The leaf to start from. Omitted, `undefined` or an unknown
 * id means the last entry; `null` means "before the first entry" and yields
 * no messages.
 * @throws `TypeError` if `source` or `leafId` has the wrong type.
 * @example
 * const { messages, model } = buildSessionContext(jsonl);
 * for (const m of messages) console.log(m.role);
 */
export function buildSessionContext(
  source: SessionText | ByteSource | readonly FileEntry[],
  leafId?: string | null,
  options?: ReadOptions,
): SessionContext;

/** One entry of a {@link SessionProjection} and the messages it gives the model. */
export interface ProjectedEntry {
  /** The entry (from an array, the caller's own object). */
  sourceEntry: SessionEntry;
  /** Its messages after its latest context edit; empty for most entry types. */
  messages: AgentMessage[];
}

/** The context of a leaf with the entry each message comes from. */
export interface SessionProjection {
  /** The context entries, in order (see {@link buildContextEntries}). */
  entries: ProjectedEntry[];
  /** Every entry's messages in order: the same objects as in `entries`. */
  messages: AgentMessage[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

/**
 * The entries the context at a leaf is built from, like pi 1.6's
 * `buildContextEntries`: the path from the root to the leaf or, with a
 * compaction on it, the latest compaction, then the path entries from its
 * `firstKeptEntryId` up to it (leaving out system messages), then everything
 * after it. Older compactions in the kept range stay in the list.
 *
 * @param source - Session text, UTF-8 bytes, or entries, as for
 * {@link buildSessionContext}. From an array, the caller's own objects.
 * @param leafId - As for {@link buildSessionContext}.
 * @throws `TypeError` if `source` or `leafId` has the wrong type.
 * @example
 * const ids = buildContextEntries(jsonl).map((e) => e.id);
 */
export function buildContextEntries(
  source: SessionText | ByteSource | readonly FileEntry[],
  leafId?: string | null,
  options?: ReadOptions,
): SessionEntry[];

/**
 * The context at a leaf with each message's source entry, like pi 1.6's
 * `buildSessionProjection`: for every entry of {@link buildContextEntries},
 * the messages it gives (after its latest context edit; none for an older
 * compaction), then all messages, the thinking level and the model, which
 * are those of {@link buildSessionContext}.
 *
 * @param source - Session text, UTF-8 bytes, or entries, as for
 * {@link buildSessionContext}.
 * @param leafId - As for {@link buildSessionContext}.
 * @throws `TypeError` if `source` or `leafId` has the wrong type.
 * @example
 * // Which entry does each message the model sees come from?
 * for (const { sourceEntry, messages } of buildSessionProjection(jsonl).entries) {
 *   for (const m of messages) console.log(sourceEntry.id, m.role);
 * }
 */
export function buildSessionProjection(
  source: SessionText | ByteSource | readonly FileEntry[],
  leafId?: string | null,
  options?: ReadOptions,
): SessionProjection;

/**
 * The system prompt and tools in force at a leaf: pi-ai 1.6's
 * `getCurrentSystemMessage` over that leaf's context messages. System
 * messages are replayed in order: their texts are joined with a blank line,
 * `sections` are set by name (`null` removes one), `toolsRemoved` then
 * `toolsAdded` update the tools by name. The timestamp is the first one that
 * is neither `null` nor missing (`0` if all are `null`).
 *
 * Where pi-ai throws a `TypeError` (content that is neither a string nor an
 * array, a `null` block or tool, a tool list that is not an array), the value
 * adds nothing instead.
 *
 * @param source - Session text, UTF-8 bytes, or entries, as for
 * {@link buildSessionContext}. Values of the result are copies.
 * @param leafId - As for {@link buildSessionContext}.
 * @returns `undefined` when there is no system message, or when none has a
 * timestamp and no tools remain (as pi-ai).
 * @throws `TypeError` if `source` or `leafId` has the wrong type.
 * @example
 * const prompt = currentSystemMessage(jsonl);
 * console.log(prompt?.content, prompt?.toolsAdded?.map((t) => t.name));
 */
export function currentSystemMessage(
  source: SessionText | ByteSource | readonly FileEntry[],
  leafId?: string | null,
  options?: ReadOptions,
): SystemMessage | undefined;

/**
 * How many lines of the session `JSON.parse` accepts: `parseSession(source).length`,
 * without building any entry (one pass over the bytes).
 */
export function countEntries(source: SessionText | ByteSource | readonly unknown[], options?: ReadOptions): number;

// ---------------------------------------------------------------------------
// Inspection
// ---------------------------------------------------------------------------

/**
 * The kind of a problem found by {@link inspectSession}. These names are
 * stable: tools may match on them.
 */
export type DiagnosticKind =
  | "malformed-line"
  | "truncated-last-line"
  | "not-an-object"
  | "blank-line"
  | "bom"
  | "invalid-utf8"
  | "missing-header"
  | "misplaced-header"
  | "before-header"
  | "duplicate-header"
  | "unknown-version"
  | "unknown-entry-type"
  | "missing-id"
  | "duplicate-id"
  | "orphan"
  | "self-parent"
  | "cycle"
  | "missing-first-kept-entry"
  | "kept-entry-off-path"
  | "missing-label-target"
  | "missing-branch-source"
  | "missing-edit-target"
  | "uneditable-edit-target"
  | "edit-target-off-path"
  | "invalid-edit-replacement"
  | "lost-system-messages";

/** One problem in a session file. */
export interface Diagnostic {
  kind: DiagnosticKind;
  /** 1-based line in the file (absent for entry arrays and whole-file problems). */
  line?: number;
  /** The id of the entry concerned, when it has one. */
  entryId?: string;
  /** What is wrong, in a sentence, with the line and the JSON error where relevant. */
  message: string;
}

/**
 * Lists what is wrong with a session, one diagnostic per problem, in line
 * order: malformed lines (with the JSON error), blank lines, a BOM, invalid
 * UTF-8, a missing, misplaced or repeated header, an unknown version, entries
 * without ids, duplicate ids, orphans, self-parented entries, `parentId`
 * cycles, references to missing entries (`firstKeptEntryId`, a label's
 * `targetId`, a branch summary's `fromId`), a compaction whose kept entry is
 * not on its path, context edits whose target is missing, not editable or off
 * their path or whose replacement is missing or invalid, system messages a
 * compaction without a checkpoint drops, and a truncated last line. An empty
 * array means a clean file.
 *
 * @param source - Session text, UTF-8 bytes, a {@link ByteSource} (read a
 * piece at a time, with the same diagnostics and line numbers as its bytes),
 * or entries (no line numbers then).
 * @throws `TypeError` if `source` has the wrong type.
 */
export function inspectSession(
  source: SessionText | ByteSource | readonly unknown[],
  options?: ReadOptions,
): Diagnostic[];

// ---------------------------------------------------------------------------
// Session: an open session the host stores
// ---------------------------------------------------------------------------

/** Options for a new session header. */
export interface NewSessionOptions {
  /** The working directory recorded in the header. */
  cwd: string;
  /**
   * The session id; a fresh UUID v7 (as pi uses) when omitted or `null`. It must
   * start and end with an ASCII letter or digit, with only those, `.`, `_` and `-`
   * in between: otherwise pi's `Error` is thrown.
   */
  id?: string | null;
  /** Where this session came from (a path or any string the host uses). */
  parentSession?: string;
}

/** Options for {@link Session.createBranchedSession} and {@link Session.fork}. */
export interface CopyOptions {
  /** Defaults to the source header's `cwd`. */
  cwd?: string;
  /** The new session's id, checked as {@link NewSessionOptions.id}; a fresh UUID v7 by default. */
  id?: string | null;
  parentSession?: string;
}

/**
 * An open session: pi's `SessionManager` without the file system. It is parsed,
 * migrated in memory and indexed once; reads and context rebuilds then cost
 * time in proportion to what they return, not to the session size.
 *
 * The host owns storage: after appending, write {@link Session.takePendingLines}
 * to the end of your file (or database); {@link Session.toJsonl} gives the whole
 * file. As in pi, a new session is not written before its first assistant
 * message: until then `takePendingLines()` returns nothing and keeps the lines.
 *
 * Entries and messages are parsed once, when first asked for, and later calls
 * return the same objects (as pi's manager does): treat them as read-only.
 *
 * Call `free()` when done with a session in a long-running process to release
 * its WebAssembly memory at once (otherwise it is released when collected).
 */
export class Session {
  private constructor();
  /**
   * Opens JSONL (text or bytes), an entry array or a {@link ByteSource}; v1/v2 are migrated
   * in memory. A current session from a byte source is read a piece at a time and its entries'
   * text stays there, read by range when asked: keep the source open while the session is used.
   */
  static open(source: SessionText | ByteSource | readonly unknown[], options?: ReadOptions): Session;
  /** Starts a new version 3 session. */
  static create(options: NewSessionOptions): Session;

  /** The header entry, or `null` for a file without one. */
  readonly header: SessionHeader | null;
  /** The current leaf, or `null` before the first entry. */
  readonly leafId: string | null;
  /** Whether opening migrated the session (store `toJsonl()` to keep the upgrade). */
  readonly migrated: boolean;

  getEntry(id: string): SessionEntry | undefined;
  getLeafEntry(): SessionEntry | undefined;
  /** The entries whose `parentId` is `id`, in file order. */
  getChildren(id: string): SessionEntry[];
  /** The current label of an entry. */
  getLabel(id: string): string | undefined;
  /** The entries from the root to `fromId` (default: the leaf). */
  getBranch(fromId?: string): SessionEntry[];
  /** Every entry but the header, in file order. */
  getEntries(): SessionEntry[];
  getTree(): SessionTreeNode[];
  /** The name from the latest `session_info` entry, trimmed; `undefined` if none or empty. */
  getSessionName(): string | undefined;
  /** How many distinct ids the entries have (a repeated id counts once, as in pi). */
  getEntryCount(): number;
  /** The context at `leafId`; by default at the session's leaf; `null` gives the empty context. */
  buildSessionContext(leafId?: string | null): SessionContext;
  /** {@link buildContextEntries} at `leafId` (default: the session's leaf; `null`: none). */
  buildContextEntries(leafId?: string | null): SessionEntry[];
  /** {@link buildSessionProjection} at `leafId` (default: the session's leaf; `null`: none). */
  buildSessionProjection(leafId?: string | null): SessionProjection;
  /** {@link currentSystemMessage} at `leafId` (default: the session's leaf; `null`: none). */
  currentSystemMessage(leafId?: string | null): SystemMessage | undefined;
  /** {@link inspectSession} of the session as it stands. */
  diagnostics(): Diagnostic[];
  /**
   * What the session cost, as {@link sessionUsage} reports it, the path
   * ending at `leafId` (default: the session's leaf; `null`: none).
   * Throws if no entry has `leafId`. `options.records: false` leaves the
   * records out.
   */
  usage(leafId?: string | null, options?: { records?: boolean }): SessionUsage;

  /** Appends a message as a child of the leaf and makes it the leaf. Returns its id. */
  appendMessage(message: AgentMessage): string;
  appendThinkingLevelChange(thinkingLevel: string): string;
  appendModelChange(provider: string, modelId: string): string;
  /**
   * Appends a compaction. `firstKeptEntryId` `null` (or omitted) keeps nothing from
   * before it: the entry names itself. The prompt and tools at the leaf are stored
   * as its `systemMessage` checkpoint, when there are any.
   */
  appendCompaction<T = unknown>(
    summary: string,
    firstKeptEntryId: string | null | undefined,
    tokensBefore: number,
    details?: T,
    fromHook?: boolean,
    usage?: Usage,
  ): string;
  /** Records usage outside the context (`note` only when non-empty). Returns the new entry itself, not its id. */
  appendUsage(kind: string, provider: string, model: string, usage: Usage, note?: string): UsageEntry;
  /**
   * Changes what the model sees of `targetId` on this branch: `null` leaves it out,
   * `{ content }` replaces its content (a string aimed at an assistant or tool
   * result is stored as one text block). The target must be on the branch and be
   * a user, assistant or tool result message or a custom message; otherwise, and
   * for any other replacement, pi's `Error` is thrown. Returns the new entry's id.
   */
  appendContextEdit(
    targetId: string,
    replacement: { content: ContextEditContent; [key: string]: unknown } | null,
  ): string;
  appendCustomEntry<T = unknown>(customType: string, data?: T): string;
  /** Records a display name: each run of line breaks becomes one space, then it is trimmed. */
  appendSessionInfo(name: string): string;
  appendCustomMessageEntry<T = unknown>(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: T,
  ): string;
  /** Sets a label on `targetId`, or clears it with `undefined` or `""`. Throws if the target is unknown. */
  appendLabelChange(targetId: string, label?: string): string;
  /** Moves the leaf to `id`: the next append starts a branch there. Throws if unknown. */
  branch(id: string): void;
  /** Moves the leaf before the first entry: the next append is a new root. */
  resetLeaf(): void;
  /**
   * Branches at `id` (`null`: at the root) and appends a `branch_summary` of the path
   * left; its `fromId` is the leaf before the call (`"root"` if there was none).
   */
  branchWithSummary<T = unknown>(
    id: string | null,
    summary: string,
    details?: T,
    fromHook?: boolean,
    usage?: Usage,
  ): string;

  /**
   * JSONL lines appended since the last call (no newline), for the host to store. A
   * new session returns none until it holds a user or assistant message, then the
   * header and everything so far; an opened one returns each new line.
   */
  takePendingLines(): string[];
  /**
   * The same lines as {@link Session.takePendingLines} (and taken as it takes them), as
   * UTF-8 bytes, each line ending in `\n`: what a host appends to its file, with no
   * string made on the way. Empty when there is nothing to store.
   *
   * ```js
   * const bytes = session.takePendingBytes();
   * if (bytes.length > 0) fs.appendFileSync(file, bytes);
   * ```
   */
  takePendingBytes(): Uint8Array;
  /** The whole session as JSONL, each line ending in `\n`. */
  toJsonl(): string;
  /** Ingests what another writer appended to the same file; a chunk may end mid-line. */
  appendJsonl(chunk: SessionText): void;
  /**
   * The path from the root to `leafId` (default: the leaf) as a new session file
   * (pi's `createBranchedSession`): labels left out and re-added at the end, the
   * other entries chained one after the other.
   */
  createBranchedSession(leafId?: string | null, options?: CopyOptions): string;
  /** Every entry under a new header (pi's `forkFrom`), as JSONL. */
  fork(options?: CopyOptions): string;
  /**
   * Releases the session's WebAssembly memory now. Its methods then throw; `free()`
   * again does nothing.
   */
  free(): void;
}

/** What pi's session list shows for one file. */
export interface SessionInfo {
  id: string;
  cwd: string;
  name: string | undefined;
  parentSession: string | undefined;
  created: Date;
  /** The last user or assistant activity; else the header time; else `options.mtime`. */
  modified: Date | undefined;
  messageCount: number;
  /** The first user message's text, or `"(no messages)"`. */
  firstMessage: string;
}

/**
 * Summarizes a session file as pi's session list does, reading the bytes once:
 * lines end at `\n`, `\r\n` or a lone `\r`, and blank, malformed and falsy
 * (`null`, `false`, `0`, `""`) lines are skipped, and so are lines before the
 * header (the `title` line oh-my-pi writes first), as pi's repository reads
 * them. Returns `null` when no line is a session header.
 */
export function sessionInfo(
  source: SessionText | ByteSource,
  options?: ReadOptions & { mtime?: Date },
): SessionInfo | null;

/** Tokens and cost, of one {@link UsageRecord} or added up in {@link UsageTotals}. */
export interface UsageTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** input + output + cacheRead + cacheWrite (pi's `tokens.total`). */
  totalTokens: number;
  /** `usage.cost.total`, in dollars. */
  cost: number;
}

/** Tokens and cost added up over {@link UsageRecord}s, as pi 1.6's `getSessionStats` adds them. */
export interface UsageTotals extends UsageTokens {
  /** How many records were added. */
  records: number;
  /** How many of them had a field missing or not a finite number (counted as 0). */
  incomplete: number;
}

/** What a record paid for. */
export type UsageRecordKind = "assistant" | "toolResult" | "usage" | "compaction" | "branchSummary";

/** One paid request: an entry that carries usage. */
export interface UsageRecord extends UsageTokens {
  entryId: string;
  /** The entry's `timestamp` as written. */
  timestamp: string;
  /** `new Date(timestamp).getTime()`, or `null` when it is not a date. */
  time: number | null;
  kind: UsageRecordKind;
  /** A {@link UsageEntry}'s own `kind`, such as `"cache_warm"`. */
  usageKind?: string;
  /** The provider of an assistant message or a usage entry. */
  provider?: string;
  /** The model that answered: an assistant message's `responseModel`, else its `model`. */
  model?: string;
  /** A field was missing or not a finite number, and counts as 0. */
  incomplete: boolean;
}

/** An entry with more than one child, and what each side cost after it. */
export interface UsageFork {
  entryId: string;
  sides: { entryId: string; leaves: number; usage: UsageTotals }[];
}

/** A leaf: what its path cost, and its own part (below the last fork above it). */
export interface UsageLeaf {
  entryId: string;
  path: UsageTotals;
  own: UsageTotals;
}

/** What a session cost: see {@link sessionUsage}. */
export interface SessionUsage {
  /** The header's `id`, `cwd` and `parentSession`, when they are strings. */
  sessionId?: string;
  cwd?: string;
  parentSession?: string;
  /** Where {@link SessionUsage.path} ends. */
  leafId: string | null;
  /** Every record: what pi's `getSessionStats` reports for the file. */
  total: UsageTotals;
  /** The records from the root to the leaf: what that conversation cost. */
  path: UsageTotals;
  /** The records off that path: abandoned branches. */
  abandoned: UsageTotals;
  /** `total` and `path` split by what was paid for (kinds without records are left out). */
  byKind: {
    total: Partial<Record<UsageRecordKind, UsageTotals>>;
    path: Partial<Record<UsageRecordKind, UsageTotals>>;
  };
  forks: UsageFork[];
  leaves: UsageLeaf[];
  /** Every paid request, in file order (empty with `records: false`). */
  records: UsageRecord[];
}

/** Options of {@link sessionUsage}. */
export interface UsageOptions extends ReadOptions {
  /** Where the path ends: default the last entry (pi's leaf of a file just opened); `null`: none. */
  leafId?: string | null;
  /** `false` leaves `records` empty (the totals only: less to build for a large file). */
  records?: boolean;
}

/**
 * What a session cost, with pi 1.6's accounting (`getSessionStats`): the
 * usage of assistant messages, of tool results that carry one, of `usage`
 * entries and of compaction and branch-summary summarizers. Totals for the
 * file, the path to a leaf, what lies off it, each fork's sides and each leaf.
 * A usage field that is missing or not a finite number counts as 0 and marks
 * its record incomplete; nothing throws on a broken file. Throws if no entry
 * has `options.leafId`.
 */
export function sessionUsage(source: SessionText | readonly unknown[], options?: UsageOptions): SessionUsage;

/** How {@link UsageLedger.summary} groups requests. */
export type UsageGrouping = "day" | "week" | "month" | "model" | "project" | "session";

/** Options of {@link UsageLedger.summary}. */
export interface UsageSummaryOptions {
  /** Default `"day"`. A week is keyed by its Monday's date, a month as `YYYY-MM`. */
  by?: UsageGrouping;
  /** An IANA time zone (`"Europe/Paris"`, `"UTC"`) for the dates; default the local zone. */
  timeZone?: string;
  /** The first and last local dates counted, as `YYYY-MM-DD` (both included). */
  since?: string;
  until?: string;
}

/** One group of a {@link UsageSummary}, split by model (`provider/model`). */
export interface UsageRow {
  /**
   * The date (`YYYY-MM-DD`, `YYYY-MM`; `"(no date)"` for timestamps that are
   * not dates), the model (`"(tools and summaries)"` for requests that name
   * none), the project (`cwd`) or the session's path.
   */
  key: string;
  usage: UsageTotals;
  /** Most expensive first. */
  models: { model: string; usage: UsageTotals }[];
}

/** What many files cost, each request counted once. */
export interface UsageSummary {
  /** Dates in order; other groupings most expensive first. */
  rows: UsageRow[];
  total: UsageTotals;
  /** How many files were added. */
  files: number;
  /** How many requests were left out as copies of others in the same lineage. */
  copies: number;
}

/**
 * What many session files cost, each paid request counted once. Files linked
 * by `parentSession` (pi's forks and branched copies) repeat their source's
 * entries under the same ids: within such a lineage an entry (its id and
 * timestamp) counts once, in the oldest file. Unrelated files are never
 * compared. Only the requests of an added file are kept, not its text.
 */
export class UsageLedger {
  constructor();
  /**
   * Adds a file under `path`, the path other files' `parentSession` names it
   * by (pi writes absolute paths). Returns how many paid requests it has.
   */
  add(path: string, source: SessionText | readonly unknown[], options?: ReadOptions): number;
  /** How many files were added. */
  readonly files: number;
  /** The requests of all files, grouped. */
  summary(options?: UsageSummaryOptions): UsageSummary;
  /** Releases the ledger's WebAssembly memory now. */
  free(): void;
}
