// The reference: pi's own session code, loaded by file path from tests/node_modules, so that two
// versions can sit side by side (0.73.1 is what the suites compare against; 1.6.0's package
// entry needs Node 22, but its session manager loads on Node 20).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PACKAGES = {
  "0.73.1": "@mariozechner/pi-coding-agent",
  "1.6.0": "@earendil-works/pi-coding-agent",
};

function installed(version, file) {
  const name = PACKAGES[version];
  if (!name) throw new Error(`no pi ${version} in tests/package.json (known: ${Object.keys(PACKAGES).join(", ")})`);
  return new URL(`../node_modules/${name}/${file}`, import.meta.url);
}

/** The version that npm installed for `version`'s package (read from its package.json). */
export function installedVersion(version) {
  return JSON.parse(readFileSync(installed(version, "package.json"), "utf8")).version;
}

/** pi's `dist/core/session-manager.js` of `version` (a key of PACKAGES). */
export async function loadPi(version = "0.73.1") {
  const url = installed(version, "dist/core/session-manager.js");
  if (!existsSync(fileURLToPath(url))) {
    throw new Error(
      `pi ${version} is not installed at ${fileURLToPath(url)}: run \`cd tests && npm install\` (make test-deps does it)`,
    );
  }
  return import(url.href);
}

export const pi = await loadPi("0.73.1");
export const { parseSessionEntries, migrateSessionEntries, buildSessionContext, SessionManager } = pi;

/** Text as pi reads a file: bytes decoded as UTF-8 (invalid sequences become U+FFFD). */
export function piText(source) {
  return typeof source === "string"
    ? source
    : Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString("utf8");
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
