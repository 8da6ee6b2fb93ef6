// The reference: pi 0.73.1's own session code, loaded from the conformance suite's install.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const path = new URL("../../conformance/node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js", import.meta.url);
if (!existsSync(fileURLToPath(path))) {
  throw new Error(
    `pi 0.73.1 is not installed at ${fileURLToPath(path)}: run \`cd tests/conformance && npm install\` (make test-conformance does it)`,
  );
}
const pi = await import(path.href);

export const { parseSessionEntries, migrateSessionEntries, buildSessionContext, SessionManager } = pi;

/** Text as pi reads a file: bytes decoded as UTF-8 (invalid sequences become U+FFFD). */
export function piText(source) {
  return typeof source === "string" ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString("utf8");
}

/** parseSessionEntries + migrateSessionEntries: the entries pi holds after loading a file. */
export function piLoad(source) {
  const entries = parseSessionEntries(piText(source));
  migrateSessionEntries(entries);
  return entries;
}

/** pi's getTree over `entries` (a session manager holding exactly those entries). */
export function piTree(entries) {
  const sm = SessionManager.inMemory("/tmp");
  sm.fileEntries = entries;
  sm._buildIndex();
  return sm.getTree();
}
