// `session-tree/node` for ES modules. It loads the CommonJS entry, so that
// `import` and `require` share one wasm instance and one set of write locks.
import { createRequire } from "node:module";

const api = createRequire(import.meta.url)("./index.cjs");

export const {
  SessionManager,
  SessionLockedError,
  loadEntriesFromFile,
  findMostRecentSession,
  getDefaultSessionDir,
  listSessions,
  buildLineage,
  flattenLineage,
  orderSessions,
} = api;
