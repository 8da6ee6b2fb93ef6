// The messages between the page (worker-client.js) and the worker (worker.js),
// defined once so both sides agree on names and shapes.
//
// Every request carries a `req` number; the worker answers it with exactly one
// reply of the type in `REPLY_TO` (or an `error`), carrying the same `req`.
// `ready` (once, when the worker's imports are loaded) and `progress` (during
// an `open`) arrive unasked.

/** Requests, page → worker. */
export const REQUEST = Object.freeze({
  /** `{ file: Blob } | { bytes: ArrayBuffer } | { text: string } | { remote: { url, size, head } }`, plus `name`, `filter`, `query`. */
  open: "open",
  /** `{ bytes: ArrayBuffer, filter, query, keepId }`: bytes appended to the open file (live.js). */
  append: "append",
  /** `{ filter, query, keepId }`: the rows to show (`keepId` stays visible whatever the filter). */
  view: "view",
  /** `{ entryId }`: the context at that leaf and the path to it. */
  select: "select",
  /** `{ entryId }`: the entry itself, as read from the file. */
  entry: "entry",
  /** `{}`: the migrated file, if opening migrated it. */
  migrated: "migrated",
  /** `{ entryId }`: the path to that leaf as a new session file. */
  export: "export",
  /** `{ a, b }`: the branches ending at leaves a and b, side by side (compare.js). */
  compare: "compare",
  /** `{ entryId }`: the secrets on the path to that leaf (redact.js). */
  shareScan: "shareScan",
  /** `{ entryId, redactions }`: the redacted branch as one HTML file (share-worker.js). */
  shareBuild: "shareBuild",
});

/** Replies and notices, worker → page. */
export const REPLY = Object.freeze({
  /** Unasked, once: requests sent before it may be lost. */
  ready: "ready",
  /** Unasked, during `open`: `{ req, stage, fraction }`. */
  progress: "progress",
  /**
   * Unasked, during the `open` of a file read by piece: `{ req, info, nodes, view }`
   * as in `opened`, from the file's first lines, before the rest is read.
   */
  preview: "preview",
  /** `{ req, message }`: the request failed. */
  error: "error",
  /** `{ info, nodes, view }`. */
  opened: "opened",
  /** `{ nodes, view, count, stats, defaultLeaf, added }`: the session after an append. */
  appended: "appended",
  /** `{ view }`. */
  view: "view",
  /**
   * `{ entryId, context, sources, editedBy, edits, system, composition, pathUsage, pathNodes, state, ms }`:
   * `sources[k]` is the entry context message k comes from, `editedBy[k]` the
   * edit that replaced its content (or `null`), `edits` maps each target the
   * path's edits apply to `{ editId, kind }`; `system` is analysis.js's
   * `systemView` (or `null`), `composition` and `pathUsage` come from
   * composition.js; `state[i]` is a `PATH` value for `pathNodes[i]`.
   */
  selected: "selected",
  /** `{ entry }`, `null` for an unknown id. */
  entry: "entry",
  /** `{ jsonl }`: bytes, or `null` when the file needed no migration. */
  migrated: "migrated",
  /** `{ text }`: JSONL. */
  export: "export",
  /** `{ comparison }`: what compare.js's `compareBranches` returns. */
  compared: "compared",
  /** `{ findings, entries }`: what redact.js's `scanEntries` finds on the branch. */
  shareScanned: "shareScanned",
  /** `{ html, fileName, leafId }`: the file, its name, and the leaf it shows. */
  shareBuilt: "shareBuilt",
});

/** The reply type that answers each request type. */
export const REPLY_TO = Object.freeze({
  [REQUEST.open]: REPLY.opened,
  [REQUEST.append]: REPLY.appended,
  [REQUEST.view]: REPLY.view,
  [REQUEST.select]: REPLY.selected,
  [REQUEST.entry]: REPLY.entry,
  [REQUEST.migrated]: REPLY.migrated,
  [REQUEST.export]: REPLY.export,
  [REQUEST.compare]: REPLY.compared,
  [REQUEST.shareScan]: REPLY.shareScanned,
  [REQUEST.shareBuild]: REPLY.shareBuilt,
});

/** Per entry on the path to the selected leaf: whether the model sees it. */
export const PATH = Object.freeze({ off: 0, sent: 1, unsent: 2 });

/**
 * The `open` request for a source the page holds, and what to transfer with
 * it: a `File`/`Blob` is read by the worker, an `ArrayBuffer` moves, a string
 * is copied; `{ remote: { url, size, head } }` is a large file on `session-tree
 * serve`, which the worker reads by range (remote-source.js).
 */
export function openRequest(source, name, filter, query) {
  const body =
    source instanceof Blob
      ? { file: source }
      : typeof source === "string"
        ? { text: source }
        : source?.remote
          ? { remote: source.remote }
          : { bytes: source };
  return {
    message: { type: REQUEST.open, ...body, name, filter, query },
    transfer: source instanceof ArrayBuffer ? [source] : [],
  };
}
