// ESM entry for browsers, bundlers and other non-Node runtimes. The web glue
// finds its wasm file with `new URL("session_tree_bg.wasm", import.meta.url)`,
// which bundlers such as Vite recognise and emit as an asset. Top-level await
// finishes instantiation before any importer runs, so the functions are
// usable right after `import`.
import init from "./web/session_tree.js";

await init();

export { parseSession, migrate, getTree, buildSessionContext, inspectSession, Session, sessionInfo } from "./web/session_tree.js";
