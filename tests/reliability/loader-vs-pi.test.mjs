// The parse decisions of the README's "Differences from pi", each measured on pi 1.6.0: how its
// file loader (SessionManager.open, through loadEntriesFromFile) and its string parser
// (parseSessionEntries) read a file, next to what session-tree does with the same bytes. If pi
// changes, the assertion on pi's side fails and the README row needs a look.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { buildSessionContext, getTree, migrate, parseSession, Session, sessionInfo } from "session-tree";
import { loadPi } from "../shared/pi.mjs";

const pi = await loadPi("1.6.0");
const dir = mkdtempSync(join(tmpdir(), "loader-vs-pi-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const J = JSON.stringify;
const HEADER = J({ type: "session", version: 3, id: "sid", timestamp: "2025-03-01T10:00:00.000Z", cwd: "/w" });
const msg = (id, parentId, content) =>
  J({
    type: "message",
    id,
    parentId,
    timestamp: "2025-03-02T00:00:00.000Z",
    message: { role: "user", content, timestamp: 1 },
  });
const BODY = `${msg("a", null, "hi")}\n${msg("b", "a", "there")}\n`;

let n = 0;
/** What pi 1.6.0 does with `text` as a file: the loader's entries, open's outcome, the file after. */
function piOpen(text) {
  const path = join(dir, `${n++}.jsonl`);
  writeFileSync(path, text);
  const loaded = pi.loadEntriesFromFile(path);
  writeFileSync(path, text);
  let opened;
  try {
    const sm = pi.SessionManager.open(path, dir);
    opened = { entries: sm.getEntries().length, context: sm.buildSessionContext().messages.length };
  } catch (e) {
    opened = { error: e.message.replace(path, "<path>") };
  }
  return { loaded: loaded.length, opened, file: readFileSync(path, "utf8") };
}

/** What session-tree does with the same text, as a string and as bytes (the same answer). */
function ours(text) {
  const results = [text, Buffer.from(text)].map((source) => {
    const session = Session.open(source);
    try {
      return {
        parsed: parseSession(source).length,
        entries: session.getEntries().length,
        roots: getTree(source).length,
        context: buildSessionContext(source).messages.length,
        listed: sessionInfo(source) !== null,
        migrateKeeps: Buffer.from(migrate(source)).equals(Buffer.from(source)),
      };
    } finally {
      session.free();
    }
  });
  assert.deepEqual(results[1], results[0], "string and bytes agree");
  return results[0];
}

test("a BOM or leading Unicode whitespace: pi 1.6's loader refuses the file, we read it", () => {
  for (const lead of ["\ufeff", "\u00a0", "\u2028"]) {
    const text = `${lead}${HEADER}\n${BODY}`;
    assert.equal(pi.parseSessionEntries(text).length, 3, "the string parser trims it away");
    const p = piOpen(text);
    assert.equal(p.loaded, 0);
    assert.deepEqual(p.opened, { error: "Session file is not a valid pi session: <path>" });
    assert.equal(p.file, text, "pi leaves the file untouched");
    assert.deepEqual(ours(text), {
      parsed: 3,
      entries: 2,
      roots: 1,
      context: 2,
      listed: true,
      migrateKeeps: true,
    });
  }
});

test("Unicode whitespace after the last line: pi's loader drops that line, we keep it", () => {
  const text = `${HEADER}\n${BODY.trimEnd()}\u00a0`;
  assert.equal(pi.parseSessionEntries(text).length, 3);
  const p = piOpen(text);
  assert.equal(p.loaded, 2);
  assert.deepEqual(p.opened, { entries: 1, context: 1 });
  const o = ours(text);
  assert.equal(o.parsed, 3);
  assert.equal(o.context, 2);
  // Session.open reads a last line without a newline that is not JSON as one still being
  // written: kept back, not lost (it stays in toJsonl).
  assert.equal(o.entries, 1);
  const session = Session.open(text);
  assert.equal(session.toJsonl(), text);
  session.free();
});

test("no final newline: pi seals the file when it opens it; we write nothing and read the same lines", () => {
  const valid = `${HEADER}\n${BODY.trimEnd()}`;
  const p = piOpen(valid);
  assert.deepEqual(p.opened, { entries: 2, context: 2 });
  assert.equal(p.file, `${valid}\n`, "pi appended a newline");
  assert.deepEqual(ours(valid), { parsed: 3, entries: 2, roots: 1, context: 2, listed: true, migrateKeeps: true });
  // An incomplete last line: pi drops it and seals it in place as a malformed line.
  const cut = `${HEADER}\n${BODY}${msg("c", "b", "cut").slice(0, 25)}`;
  const q = piOpen(cut);
  assert.deepEqual(q.opened, { entries: 2, context: 2 });
  assert.equal(q.file, `${cut}\n`);
  assert.deepEqual(ours(cut), { parsed: 3, entries: 2, roots: 1, context: 2, listed: true, migrateKeeps: true });
  // We keep the fragment back for the writer to finish it.
  const session = Session.open(cut);
  assert.ok(session.toJsonl().endsWith(msg("c", "b", "cut").slice(0, 25)));
  session.appendJsonl(`${msg("c", "b", "cut").slice(25)}\n`);
  assert.equal(session.getEntries().length, 3);
  session.free();
});

test("falsy lines: pi's loader skips them, its string parser keeps them; so do we", () => {
  const text = `${HEADER}\nnull\n${msg("a", null, "hi")}\n0\nfalse\n""\n${msg("b", "a", "there")}\nnull\n`;
  assert.equal(pi.parseSessionEntries(text).length, 8);
  const p = piOpen(text);
  assert.equal(p.loaded, 3);
  assert.deepEqual(p.opened, { entries: 2, context: 2 });
  // parseSession is parseSessionEntries; everything that opens the file reads it as the loader.
  assert.deepEqual(ours(text), { parsed: 8, entries: 2, roots: 1, context: 2, listed: true, migrateKeeps: true });
});

test("falsy lines in a v1 file: firstKeptEntryIndex counts the entries pi's loader keeps", () => {
  const v1 = [
    J({ type: "session", id: "sid", timestamp: "2025-03-01T10:00:00.000Z", cwd: "/w" }),
    "null",
    J({ type: "message", timestamp: "2025-03-01T10:00:01.000Z", message: { role: "user", content: "one" } }),
    "0",
    J({ type: "message", timestamp: "2025-03-01T10:00:02.000Z", message: { role: "user", content: "two" } }),
    J({ type: "compaction", timestamp: "2025-03-01T10:00:03.000Z", summary: "s", firstKeptEntryIndex: 2 }),
  ].join("\n");
  const path = join(dir, `${n++}.jsonl`);
  writeFileSync(path, `${v1}\n`);
  const sm = pi.SessionManager.open(path, dir);
  const piEntries = sm.getEntries();
  const kept = piEntries.find((e) => e.type === "compaction").firstKeptEntryId;
  assert.equal(piEntries.find((e) => e.id === kept).message.content, "two");
  for (const source of [v1, Buffer.from(v1)]) {
    const migrated = parseSession(migrate(source));
    assert.equal(migrated.length, 6, "every line kept, the falsy ones too");
    const entries = migrated.filter(Boolean);
    const compaction = entries.find((e) => e.type === "compaction");
    assert.equal(entries.find((e) => e.id === compaction.firstKeptEntryId).message.content, "two");
    assert.equal(
      buildSessionContext(source)
        .messages.map((m) => m.content ?? m.summary)
        .join(),
      "s,two",
    );
  }
});

test("a non-empty file without a header first: pi 1.6 throws on open, we read what is there", () => {
  for (const text of [
    `${BODY}${HEADER}\n`,
    " \n\t\n",
    "{oops\n{nope\n",
    `${J({ ...JSON.parse(HEADER), id: 5 })}\n${BODY}`,
  ]) {
    const p = piOpen(text);
    assert.deepEqual(p.opened, { error: "Session file is not a valid pi session: <path>" }, J(text));
    assert.equal(p.file, text);
    assert.doesNotThrow(() => ours(text));
  }
  assert.equal(ours(`${J({ ...JSON.parse(HEADER), id: 5 })}\n${BODY}`).context, 2);
});
