// The reference: pi's own session code, loaded by file path from tests/node_modules. pi 1.6.0 is
// what every suite compares against; its package entry needs Node 22, but its session manager
// (and pi-ai's transcript helpers) load on Node 20 when imported by path, which also gets
// around the `exports` map that hides them.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const PI_VERSION = "1.6.0";

const PACKAGES = {
  "1.6.0": "@earendil-works/pi-coding-agent",
};

function installed(version, file) {
  const name = PACKAGES[version];
  if (!name) throw new Error(`no pi ${version} in tests/package.json (known: ${Object.keys(PACKAGES).join(", ")})`);
  return new URL(`../node_modules/${name}/${file}`, import.meta.url);
}

/** The version that npm installed for `version`'s package (read from its package.json). */
export function installedVersion(version = PI_VERSION) {
  return JSON.parse(readFileSync(installed(version, "package.json"), "utf8")).version;
}

async function importInstalled(url, version) {
  if (!existsSync(fileURLToPath(url))) {
    throw new Error(
      `pi ${version} is not installed at ${fileURLToPath(url)}: run \`cd tests && npm install\` (make test-deps does it)`,
    );
  }
  return import(url.href);
}

/** pi's `dist/core/session-manager.js` of `version` (a key of PACKAGES). */
export async function loadPi(version = PI_VERSION) {
  return importInstalled(installed(version, "dist/core/session-manager.js"), version);
}

/** pi-ai's `dist/utils/transcript.js` (getCurrentSystemMessage), the dependency of pi `version`. */
export async function loadPiAi(version = PI_VERSION) {
  // npm hoists pi-ai next to pi; a nested copy would sit under pi's own node_modules
  const nested = installed(version, "node_modules/@earendil-works/pi-ai/dist/utils/transcript.js");
  const hoisted = new URL("../node_modules/@earendil-works/pi-ai/dist/utils/transcript.js", import.meta.url);
  return importInstalled(existsSync(fileURLToPath(nested)) ? nested : hoisted, version);
}

export const pi = await loadPi();
export const {
  parseSessionEntries,
  migrateSessionEntries,
  buildSessionContext,
  buildContextEntries,
  buildSessionProjection,
  SessionManager,
} = pi;
export const { getCurrentSystemMessage } = await loadPiAi();

/** pi-ai's getCurrentSystemMessage over the context of `leafId` (what currentSystemMessage mirrors). */
export function piCurrentSystemMessage(entries, ...leafArgs) {
  return getCurrentSystemMessage(buildSessionContext(entries, ...leafArgs).messages);
}

/**
 * Text as pi reads a file: bytes decoded as UTF-8 (invalid sequences become U+FFFD). A byte
 * source (`{ size, read(offset, length) }`) is read whole first, as pi reads its file.
 */
export function piText(source) {
  if (typeof source === "string") return source;
  const bytes = typeof source?.read === "function" ? source.read(0, source.size) : source;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
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

/**
 * pi 1.6.0's own `AgentSession.getSessionStats` (tokens and cost over every
 * entry of `manager.getEntries()`), run on `manager`. The class's module
 * graph needs Node 22 (undici), so the method is read from the installed
 * `dist/core/agent-session.js` as it is and run with pi's
 * `dist/core/usage-totals.js`: the code pi runs, not a copy of its rules.
 */
export async function loadPiSessionStats(version = PI_VERSION) {
  const url = installed(version, "dist/core/agent-session.js");
  const source = readFileSync(url, "utf8");
  const start = source.indexOf("\n    getSessionStats() {");
  const end = source.indexOf("\n    }\n", start);
  if (start < 0 || end < 0) throw new Error(`no getSessionStats() method in ${fileURLToPath(url)}`);
  const method = source.slice(start + 1, end + 6).trim();
  const totals = await importInstalled(installed(version, "dist/core/usage-totals.js"), version);
  const make = new Function("createUsageTotals", "addUsageToTotals", `return function ${method};`);
  const getSessionStats = make(totals.createUsageTotals, totals.addUsageToTotals);
  return (manager) =>
    getSessionStats.call({
      sessionManager: manager,
      sessionFile: manager.getSessionFile?.(),
      sessionId: manager.getSessionId?.(),
      getContextUsage: () => undefined,
    });
}

export const piSessionStats = await loadPiSessionStats();
