// ESM entry for browsers, bundlers and other non-Node runtimes. The web glue
// finds its wasm file with `new URL("session_tree_bg.wasm", import.meta.url)`,
// which bundlers such as Vite recognise and emit as an asset. Top-level await
// finishes instantiation before any importer runs, so the functions are
// usable right after `import`.

import { blobSource } from "./blob-source.js";
import { recovering } from "./recover.js";
import init, * as glue from "./web/session_tree.js";

await init();

// A byte source over a Blob or File, for a Web Worker (blob-source.js).
export { blobSource };

export const {
  parseSession,
  migrate,
  getTree,
  previewEntries,
  buildSessionContext,
  buildContextEntries,
  buildSessionProjection,
  currentSystemMessage,
  inspectSession,
  countEntries,
  Session,
  sessionInfo,
  sessionUsage,
  UsageLedger,
} = recovering(glue, [
  "parseSession",
  "migrate",
  "getTree",
  "previewEntries",
  "buildSessionContext",
  "buildContextEntries",
  "buildSessionProjection",
  "currentSystemMessage",
  "inspectSession",
  "countEntries",
  "Session",
  "sessionInfo",
  "sessionUsage",
  "UsageLedger",
]);
