// ESM entry for Node. It loads the same CommonJS glue as `require` does, so
// `import` and `require` in one process share a single wasm instance.
import { createRequire } from "node:module";

const glue = createRequire(import.meta.url)("./node/session_tree.js");

export const parseSession = glue.parseSession;
export const migrate = glue.migrate;
export const getTree = glue.getTree;
export const buildSessionContext = glue.buildSessionContext;
export const inspectSession = glue.inspectSession;
export const Session = glue.Session;
export const sessionInfo = glue.sessionInfo;
