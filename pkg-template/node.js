// ESM entry for Node. It loads the CommonJS entry, so `import` and `require`
// in one process share a single wasm instance.
import { createRequire } from "node:module";

const api = createRequire(import.meta.url)("./node.cjs");

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
  fileSource,
  sessionUsage,
  UsageLedger,
} = api;
