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
  const { entries, migrated } = piMigrateParsed(text);
  return { migrated, text: `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`, entries };
}

/** parse + migrate, as pi holds a session in memory after loading it. */
export function piLoadEntries(text) {
  return piMigrateParsed(text).entries;
}

/**
 * pi's parse and migration of `text`: `{ entries, migrated }`. pi's v1 → v2 migration gives
 * every entry a new random 8-hex-digit id, checked against a set it never fills (README,
 * "Differences from pi": new ids in a v1 migration), so now and then two entries draw the same
 * id (a CI run of 2026-12-07 met one: its fifth entry got its second's id), and pi's tree and
 * context then lose entries. That is pi's listed fault, not a difference to find again: such a
 * migration is drawn again, a few times at most.
 */
export function piMigrateParsed(text) {
  for (let attempt = 1; ; attempt++) {
    const entries = parseSessionEntries(text);
    const fromV1 = (entries.find((e) => e?.type === "session")?.version ?? 1) < 2;
    const migrated = piMigrateEntries(entries);
    if (!fromV1 || attempt === 5 || newIdsUnique(entries)) return { entries, migrated };
  }
}

function newIdsUnique(entries) {
  const seen = new Set();
  for (const e of entries) {
    if (e === null || typeof e !== "object" || e.type === "session" || typeof e.id !== "string") continue;
    if (seen.has(e.id)) return false;
    seen.add(e.id);
  }
  return true;
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
