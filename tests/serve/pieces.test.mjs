// `serve` reads files by piece (cli/serve/read-lines.js): the list, the search
// index and search, read a few bytes at a time so that piece boundaries fall
// everywhere, give what reading each file whole gives; a file changed under a
// read gives an error naming it. Random texts and folders, seeds printed;
// SERVE_PIECES_SEED replays one.

import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { describeFile, FolderIndex } from "../../pkg/cli/serve/folder-index.js";
import { forEachLine, openSession } from "../../pkg/cli/serve/read-lines.js";
import { bloomOfText, LINE_BREAK, LineCutter, parseQuery, searchText } from "../../pkg/cli/serve/search-text.js";
import { envSeed, Rng } from "../shared/rng.mjs";
import { writeFolder } from "./folder.mjs";
import { drawQuery } from "./helpers.mjs";

const SEED = envSeed("SERVE_PIECES_SEED");

let dir;
let folder;
before(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "st-pieces-")));
  // Each read of a few bytes is a system call or two: a small folder keeps this quick.
  folder = writeFolder(dir, { count: 24, seed: SEED });
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `bytes` cut into pieces of random sizes (1 to `max` bytes). */
function cutRandomly(rng, bytes, max) {
  const pieces = [];
  for (let at = 0; at < bytes.length; ) {
    const n = rng.int(1, max);
    pieces.push(bytes.subarray(at, at + n));
    at += n;
  }
  return pieces;
}

test("LineCutter: lines cut anywhere (mid-character, inside \\r\\n) are the lines of the whole text", () => {
  const rng = new Rng(SEED);
  const alphabet = ["a", "b", " ", "\n", "\r", "\r\n", "é", "日", "😀", "{}", '"x"'];
  for (let n = 0; n < 300; n++) {
    const parts = Array.from({ length: rng.int(0, 80) }, () => rng.pick(alphabet));
    let bytes = new TextEncoder().encode(parts.join(""));
    // Now and then a broken character, which both readers replace alike.
    if (rng.chance(0.2) && bytes.length) {
      bytes = Uint8Array.from([...bytes.subarray(0, rng.int(0, bytes.length)), 0xf0, 0x9f, ...bytes]);
    }
    const whole = new TextDecoder().decode(bytes).split(LINE_BREAK);
    const cutter = new LineCutter();
    const got = [];
    for (const piece of cutRandomly(rng, bytes, rng.int(1, 9))) got.push(...cutter.push(piece));
    got.push(...cutter.end());
    assert.deepEqual(got, whole, `seed ${SEED}, case ${n}: ${JSON.stringify([...bytes])}`);
  }
});

test("the list: each file's row read by piece is its row read whole", async () => {
  const rng = new Rng(SEED + 1);
  const root = path.resolve(dir);
  for (const s of folder.sessions) {
    const mtimeMs = Date.UTC(2026, 1, 1);
    const whole = describeFile(root, s.rel, readFileSync(s.abs), mtimeMs);
    const source = await openSession(root, s.abs, s.rel);
    try {
      const pieceSize = rng.int(1, 64);
      const byPiece = describeFile(root, s.rel, source, mtimeMs, { pieceSize });
      assert.deepEqual(byPiece, whole, `${s.rel}, pieces of ${pieceSize} bytes (seed ${SEED})`);
    } finally {
      source.close();
    }
  }
  // A file that is not a session gets its row and its reason, by piece too.
  const junk = path.join(dir, "junk.jsonl");
  writeFileSync(junk, "not json\n");
  const source = await openSession(root, junk, "junk.jsonl");
  const row = describeFile(root, "junk.jsonl", source, 0, { pieceSize: 2 });
  source.close();
  assert.deepEqual(row, describeFile(root, "junk.jsonl", readFileSync(junk), 0));
  assert.match(row.error, /not a session file/);
  rmSync(junk);
});

/** `n` queries drawn from the folder's own entries (helpers.mjs's drawQuery). */
function queriesOf(rng, n) {
  const out = [];
  while (out.length < n) {
    const query = drawQuery(rng, readFileSync(rng.pick(folder.sessions).abs, "utf8").split("\n"));
    if (query) out.push(query);
  }
  return out;
}

test("search and its index by piece find what reading every file whole finds", async () => {
  const rng = new Rng(SEED + 2);
  const root = path.resolve(dir);
  const index = new FolderIndex(root, { pieceSize: rng.int(1, 32) });
  await index.rescan();
  for (const s of folder.sessions) {
    const known = index.files.get(s.rel);
    const whole = bloomOfText(new TextDecoder().decode(readFileSync(s.abs)));
    assert.deepEqual(known.bloom.bits, whole.bits, `the Bloom filter of ${s.rel} (seed ${SEED})`);
  }
  // The queries with pieces of up to a few hundred bytes: boundaries still fall inside words.
  index.pieceSize = rng.int(16, 256);
  for (const query of queriesOf(rng, 12)) {
    const { results, skipped } = await index.search(query, { limit: 1e9, perFile: 1e9 });
    assert.deepEqual(skipped, []);
    const expected = [];
    for (const s of folder.sessions) {
      const text = new TextDecoder().decode(readFileSync(s.abs));
      for (const hit of searchText(text, parseQuery(query), 1e9)) expected.push(`${s.rel}:${hit.line}:${hit.entryId}`);
    }
    const got = results.map((r) => `${r.path}:${r.line}:${r.entryId}`);
    assert.deepEqual(got.sort(), expected.sort(), `query ${query} (seed ${SEED})`);
  }
});

test("search finds a phrase that spans a piece boundary, and a line longer than a piece", async () => {
  const sub = realpathSync(mkdtempSync(path.join(tmpdir(), "st-pieces-boundary-")));
  try {
    const root = path.resolve(sub);
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';
    const pieceSize = 64;
    const textWith = (pad) => {
      const content = `${pad} zorblax quindle ${"y".repeat(500)}`;
      const entry = { type: "message", id: "m1", parentId: null, message: { role: "user", content } };
      return `${header}${JSON.stringify(entry)}\n`;
    };
    // The phrase's first word starts three bytes before a piece boundary.
    const at0 = textWith("").indexOf("zorblax");
    const text = textWith("x".repeat((((pieceSize - 3 - at0) % pieceSize) + pieceSize) % pieceSize));
    const at = text.indexOf("zorblax");
    assert.equal(at % pieceSize, pieceSize - 3, "the phrase spans a piece boundary");
    mkdirSync(path.join(sub, "p"));
    writeFileSync(path.join(sub, "p", "a.jsonl"), text);
    const index = new FolderIndex(root, { pieceSize });
    await index.rescan();
    const { results } = await index.search('"zorblax quindle"');
    assert.deepEqual(
      results.map((r) => [r.path, r.entryId, r.line]),
      [["p/a.jsonl", "m1", 2]],
    );
    assert.equal(index.files.get("p/a.jsonl").bloom.hasAll(["zorblax", "quindle"]), true);
  } finally {
    rmSync(sub, { recursive: true, force: true });
  }
});

test("a file written to while it is read by piece gives an error naming it, not a mix", async () => {
  const root = path.resolve(dir);
  // A file with more than a few pieces after its first line.
  const s = folder.sessions.find((x) => {
    const bytes = readFileSync(x.abs);
    return bytes.indexOf(10) >= 0 && bytes.indexOf(10) < bytes.length - 100;
  });
  const source = await openSession(root, s.abs, s.rel);
  const lines = [];
  await assert.rejects(
    forEachLine(
      source,
      (raw) => {
        if (!lines.length) appendFileSync(s.abs, "\n");
        lines.push(raw);
      },
      { pieceSize: 16 },
    ),
    (error) => {
      assert.match(error.message, /changed while it was read/);
      assert.ok(error.message.includes(s.rel), error.message);
      assert.ok(!error.message.includes(root), `names no path outside DIR: ${error.message}`);
      return true;
    },
  );
  source.close();
  // Truncated: the same.
  const cut = await openSession(root, s.abs, s.rel);
  await assert.rejects(
    forEachLine(cut, () => writeFileSync(s.abs, "{}"), { pieceSize: 16 }),
    /changed while it was read/,
  );
  cut.close();
});

test("openSession refuses a symlink leading out of DIR", async () => {
  const outside = mkdtempSync(path.join(tmpdir(), "st-pieces-out-"));
  try {
    writeFileSync(path.join(outside, "x.jsonl"), "{}\n");
    symlinkSync(path.join(outside, "x.jsonl"), path.join(dir, "link.jsonl"));
    assert.equal(await openSession(path.resolve(dir), path.join(dir, "link.jsonl"), "link.jsonl"), null);
  } finally {
    rmSync(path.join(dir, "link.jsonl"), { force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
