// The reference: what pi 0.73.1 does with a session file, expressed as plain functions.
// Everything here calls the real @mariozechner/pi-coding-agent code (tests/shared/pi.mjs).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSessionContext, migrateSessionEntries, parseSessionEntries, SessionManager } from "../../shared/pi.mjs";

export { piText as sourceText } from "../../shared/pi.mjs";
export { buildSessionContext as piBuildSessionContextRaw, parseSessionEntries, SessionManager };

export function piParse(text) {
  return parseSessionEntries(text);
}

/**
 * pi's migrateSessionEntries, plus the boolean its internal migrateToCurrentVersion returns
 * (false when the first `type: "session"` entry has version >= 3).
 */
export function piMigrateEntries(entries) {
  const header = entries.find((e) => e.type === "session");
  const version = header?.version ?? 1;
  const migrated = !(version >= 3);
  migrateSessionEntries(entries);
  return migrated;
}

/** pi's rewrite of a session file after migration (what _rewriteFile writes). */
export function piMigrateText(text) {
  const entries = parseSessionEntries(text);
  const migrated = piMigrateEntries(entries);
  return { migrated, text: `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`, entries };
}

/** parse + migrate, as pi holds a session in memory after loading it. */
export function piLoadEntries(text) {
  const entries = parseSessionEntries(text);
  piMigrateEntries(entries);
  return entries;
}

/** pi's buildSessionContext(entries, leafId) on parse+migrate of the text; leafArgs = [] or [leafId]. */
export function piContext(text, leafArgs) {
  const entries = piLoadEntries(text);
  return buildSessionContext(entries, ...leafArgs);
}

/**
 * pi's SessionManager after pi opens the session file: the text is written to a fresh temp
 * folder (as bytes, when given bytes) and opened with SessionManager.open, which migrates (and
 * rewrites) it, or starts a fresh session when line 1 is not a header. The folder is removed
 * right away: the manager keeps everything in memory.
 */
export function piOpen(source) {
  const dir = mkdtempSync(join(tmpdir(), "session-tree-conformance-"));
  try {
    const file = join(dir, "session.jsonl");
    writeFileSync(file, source);
    return SessionManager.open(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function piTree(source) {
  return piOpen(source).getTree();
}
