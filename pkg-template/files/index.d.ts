// Types of `session-tree/node`: pi's file-backed SessionManager and the
// session folder as an API (Node 20+, Bun, Deno). The format's types come
// from the main entry.
import type { Diagnostic, FileEntry, SessionInfo as FileSessionInfo, Session, SessionHeader } from "../index.js";

/**
 * How appends reach the disk:
 * - `"flush"` (default): each append is one `write` call. Survives the
 *   process crashing; a power loss can lose the last appends.
 * - `"fsync"`: each append is also `fsync`ed before it returns. Survives a
 *   power loss too; costs a disk flush per append.
 * - `"batch"`: appends are `fsync`ed together at most 200 ms later, on
 *   `flush()`, `close()` and process exit. Survives a crash; a power loss can
 *   lose the last 200 ms.
 */
export type Durability = "flush" | "fsync" | "batch";

/** Options of the file-backed constructors (beyond pi's). */
export interface ManagerOptions {
  /** See {@link Durability}. Default `"flush"`. */
  durability?: Durability;
  /**
   * How long to wait, in milliseconds, for another live process's write lock
   * on the file before throwing {@link SessionLockedError}. Default 0.
   */
  lockTimeout?: number;
}

/** Options of {@link SessionManager.create} and {@link SessionManager.forkFrom}. */
export interface NewSessionOptions extends ManagerOptions {
  /** The session id (pi's rule: letters, digits, `.`, `_`, `-`, starting and ending alphanumeric); a UUID v7 by default. */
  id?: string;
}

/** Options of {@link SessionManager.open}. */
export interface OpenOptions extends ManagerOptions {
  /**
   * Read only: no lock is taken, nothing is written (no repair of a torn last
   * line, no rewrite after a migration), and appends throw.
   */
  readOnly?: boolean;
}

/** What pi's `SessionManager.list` returns for one session. */
export interface SessionInfo {
  /** The session file. */
  path: string;
  id: string;
  cwd: string;
  name: string | undefined;
  /** The header's `parentSession`: the file it was forked or branched from. */
  parentSessionPath: string | undefined;
  created: Date;
  /** The last user or assistant activity; else the header time; else the file's mtime. */
  modified: Date;
  messageCount: number;
  firstMessage: string;
  /** The text of every user and assistant message, joined by spaces (read from the file when first used). */
  readonly allMessagesText: string;
}

/** `(loaded, total)` while a list is read. */
export type ListProgress = (loaded: number, total: number) => void;

/** Thrown when another live process holds a session file's write lock. */
export class SessionLockedError extends Error {
  readonly name: "SessionLockedError";
  readonly code: "ESESSIONLOCKED";
  /** The session file. */
  readonly file: string;
  /** The process holding the lock, when the lock file says. */
  readonly pid: number | undefined;
  readonly hostname: string | undefined;
}

/**
 * The methods a manager shares with {@link Session} (reading, the tree, the
 * context, appends, branching): declared once, on `Session`.
 */
type SessionMethods =
  | "getEntry"
  | "getLeafEntry"
  | "getChildren"
  | "getLabel"
  | "getBranch"
  | "getEntries"
  | "getTree"
  | "getSessionName"
  | "getEntryCount"
  | "buildSessionContext"
  | "buildContextEntries"
  | "buildSessionProjection"
  | "currentSystemMessage"
  | "diagnostics"
  | "appendMessage"
  | "appendThinkingLevelChange"
  | "appendModelChange"
  | "appendCompaction"
  | "appendUsage"
  | "appendContextEdit"
  | "appendCustomEntry"
  | "appendSessionInfo"
  | "appendCustomMessageEntry"
  | "appendLabelChange"
  | "branch"
  | "resetLeaf"
  | "branchWithSummary";

/** `Session`'s methods on a manager (see {@link SessionMethods}); appends also store their line. */
export interface SessionManager extends Pick<Session, SessionMethods> {}

/**
 * pi 1.6.0's `SessionManager`, API for API, on session-tree's core: change
 * the import and an agent keeps working. Sessions live in pi's folders
 * (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`, `sessions/--<cwd>--/`) and follow
 * its rules: no file before the first user or assistant message, then the
 * header and everything so far, then a line per append. Beyond pi: a failed
 * append leaves the file as it was, rewrites go through a synced temporary
 * file and a rename, a write lock keeps a second process out, and appends
 * can be fsynced ({@link Durability}).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface lists methods the class has (manager.cjs).
export class SessionManager {
  private constructor();

  /** A new session of `cwd` in `sessionDir` (default: pi's folder for `cwd`). */
  static create(cwd: string, sessionDir?: string, options?: NewSessionOptions): SessionManager;
  /**
   * Opens `path` (taking its write lock, unless `readOnly`). A missing file is
   * a new session that keeps the path; an empty one gets a header; a v1/v2 one
   * is migrated and rewritten; a torn last line is ended with a newline.
   * @throws `Error` if the file is not empty and not a pi session;
   * {@link SessionLockedError} if another live process writes it.
   */
  static open(path: string, sessionDir?: string, cwdOverride?: string, options?: OpenOptions): SessionManager;
  /** The most recently modified session of `cwd` that no other live process is writing, or a new one. */
  static continueRecent(cwd: string, sessionDir?: string, options?: OpenOptions): SessionManager;
  /** A session that is never written, new or from `entries` (with or without a header). */
  static inMemory(cwd?: string, options?: { id?: string }, entries?: readonly FileEntry[]): SessionManager;
  /** Copies `sourcePath`'s entries into a new session of `targetCwd` (its `parentSession` the source). */
  static forkFrom(
    sourcePath: string,
    targetCwd: string,
    sessionDir?: string,
    options?: NewSessionOptions,
  ): SessionManager;
  /** The file of the session with id `id`, or undefined. */
  static findById(cwd: string, id: string, sessionDir?: string): string | undefined;
  /** The sessions of `cwd`, newest first. */
  static list(
    cwd: string,
    sessionDir?: string,
    onProgress?: ListProgress,
    signal?: AbortSignal,
  ): Promise<SessionInfo[]>;
  /** The sessions of every project (or of `sessionDir`), newest first. */
  static listAll(sessionDir?: string, onProgress?: ListProgress, signal?: AbortSignal): Promise<SessionInfo[]>;
  static listAll(onProgress?: ListProgress, signal?: AbortSignal): Promise<SessionInfo[]>;
  static listAll(signal?: AbortSignal): Promise<SessionInfo[]>;

  /** Switches to another file, as {@link SessionManager.open} opens it; the current file's lock is released. */
  setSessionFile(sessionFile: string): void;
  /** Starts a new session; returns its file (not written yet), or undefined in memory. */
  newSession(options?: { id?: string; parentSession?: string }): string | undefined;
  isPersisted(): boolean;
  getCwd(): string;
  /** The session folder (`""` in memory). */
  getSessionDir(): string;
  usesDefaultSessionDir(): boolean;
  getSessionId(): string;
  /** The session file (undefined in memory). */
  getSessionFile(): string | undefined;
  getHeader(): SessionHeader | null;
  getLeafId(): string | null;
  /** The path to `leafId` as this manager's new session; returns its file (undefined in memory). */
  createBranchedSession(leafId: string): string | undefined;

  /** The durability level of appends. */
  getDurability(): Durability;
  isReadOnly(): boolean;
  /**
   * Puts the session on disk now: writes a new session's file even before its
   * first user or assistant message, and fsyncs what `"batch"` owes. Returns
   * false for a session that is never written (in memory, read-only).
   * @throws the error of an earlier background fsync that failed.
   */
  flush(): boolean;
  /** Syncs, releases the write lock and the session's memory; the manager cannot be used afterwards. */
  close(): void;
}

/** pi's folder for `cwd`'s sessions (`<agent dir>/sessions/--<cwd>--`), created if missing. */
export function getDefaultSessionDir(cwd: string, agentDir?: string): string;
/** A session file's entries, header first, not migrated; `[]` if missing or not a pi session. */
export function loadEntriesFromFile(filePath: string): FileEntry[];
/** The newest session file in `sessionDir` (of `cwd`, if given), or null. */
export function findMostRecentSession(sessionDir: string, cwd?: string): string | null;

/** One file of a folder listing. */
export interface SessionListing {
  /**
   * Absolute path of the file. A name that is not UTF-8 is decoded as Node
   * decodes names (U+FFFD for each such byte): that string names no file.
   */
  path: string;
  /**
   * Only for a path with a name that is not UTF-8: its bytes (a Node `Buffer`),
   * which `fs` functions take as the path that opens the file.
   */
  rawPath?: Uint8Array;
  /** Its `sessionInfo`, or null when it could not be read or is no session. */
  info: FileSessionInfo | null;
  /** Why `info` is null, in one line; null otherwise. */
  error: string | null;
  /** With `inspect: true`: the file's problems (`inspectSession`). */
  problems?: Diagnostic[];
}

/** Options of {@link listSessions}. */
export interface ListSessionsOptions {
  /** Also the sessions in subfolders. Default false. */
  recursive?: boolean;
  /** Called after each file is read. */
  onProgress?: (done: number, total: number) => void;
  /** Called for each subfolder that cannot be read (it is skipped). */
  onError?: (path: string, error: unknown) => void;
  /** Aborts the listing between files; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Files read at once. Default 32. */
  concurrency?: number;
  /** Also run `inspectSession` on each file. Default false. */
  inspect?: boolean;
}

/**
 * Every `*.jsonl` file in `dir`, read as pi's list reads it: newest first,
 * files that are no sessions kept with an `error`. Rejects only when `dir`
 * itself cannot be read.
 */
export function listSessions(dir: string, options?: ListSessionsOptions): Promise<SessionListing[]>;

/** A fork tree: a listing and the sessions forked from it, newest first. */
export interface LineageNode<T> {
  item: T;
  children: LineageNode<T>[];
}

/** A row of {@link flattenLineage}: parents before their forks. */
export interface LineageRow<T> {
  item: T;
  depth: number;
  isLast: boolean;
  parent: LineageRow<T> | null;
}

type LineageItem = { path: string; info?: { modified?: Date; parentSession?: string } | null };

/**
 * pi's threaded order: newest first, each fork (header `parentSession`) under
 * the session it came from; loops are cut so every item appears once.
 */
export function buildLineage<T extends LineageItem>(
  items: readonly T[],
  options?: { key?: (path: string) => string },
): LineageNode<T>[];
export function flattenLineage<T>(trees: readonly LineageNode<T>[]): LineageRow<T>[];
/** `buildLineage` then `flattenLineage`. */
export function orderSessions<T extends LineageItem>(
  items: readonly T[],
  options?: { key?: (path: string) => string },
): LineageRow<T>[];
