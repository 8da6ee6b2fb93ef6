// The reference: what pi 1.6.0 does with a session file, expressed as plain functions.
// Everything here calls the real @earendil-works/pi-coding-agent code (tests/shared/pi.mjs).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  migrateSessionEntries,
  parseSessionEntries,
  piText,
  piTree as piTreeOfEntries,
  SessionManager,
} from "../../shared/pi.mjs";

export { PI_VERSION, piCurrentSystemMessage, piText as sourceText } from "../../shared/pi.mjs";
export {
  buildContextEntries as piBuildContextEntriesRaw,
  buildSessionContext as piBuildSessionContextRaw,
  buildSessionProjection as piBuildSessionProjectionRaw,
  parseSessionEntries,
  SessionManager,
};

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
 * rewrites) it. pi 1.6 throws on a non-empty file that is not a session. The folder is removed
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

/**
 * pi's getTree over the entries its string parser gives (parse + migrate, then the manager's
 * index), which is what getTree(text) mirrors. pi 1.6's file loader no longer shares that parser
 * (it skips falsy lines and does not trim), so opening a file is no longer the reference here.
 */
export function piTree(source) {
  return piTreeOfEntries(piLoadEntries(piText(source)));
}

/**
 * pi's leaf-taking function over a parsed file, as its manager holds the file: a manager indexes
 * no header, so a header is no leaf (an omitted or unknown leaf is the last entry that is not a
 * header) and no parent. The package reads files that way, as the independent checker compares
 * (pi over `getEntries()`); pi's exported function over the whole parsed file would instead fall
 * back to a header that comes last, and find one named as the leaf or a parent.
 */
export function piOverFile(piFn, entries, leafArgs) {
  return piFn(
    entries.filter((e) => e?.type !== "session"),
    ...leafArgs,
  );
}
