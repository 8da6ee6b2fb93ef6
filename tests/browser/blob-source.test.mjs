// blobSource in Chromium: inside a module Worker, every function that reads a byte source by
// piece gives through blobSource (pieces of 1 to 64 bytes, so boundaries fall mid-line,
// mid-character, mid-string; larger ones on the broken variants) what it gives on the same bytes, on generated sessions and
// broken variants of them; its own errors; a picked file changed on disk is an error naming it.
//
//   BLOB_SEED=…   replays a run (default: random, printed)

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { migrate } from "session-tree";
import { startStaticServer } from "../../tools/static-server.mjs";
import { caseSeed, envSeed, Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";
import { launchChromium } from "./chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const MASTER = envSeed("BLOB_SEED");
const COUNT = Number(process.env.BLOB_COUNT ?? 3);
const enc = new TextEncoder();

let server;
let browser;
let page;
const problems = [];

before(async () => {
  server = await startStaticServer({
    root: path.join(here, "blob"),
    mounts: { "/pkg": path.resolve(here, "../../pkg") },
  });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console error: ${m.text()}`));
  await page.goto(server.url);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Sends `message` to the page's worker; its value, or a failure naming the worker's error. */
async function run(message) {
  const reply = await page.evaluate((m) => window.run(m), message);
  if (!reply.ok) assert.fail(`the worker threw ${reply.message}`);
  return reply.value;
}

/** Variants of a session: as is, a duplicate id, a torn last line, garbage mid-file, invalid UTF-8. */
function variants(text, rng) {
  const out = [["as is", enc.encode(text)]];
  const lines = text.split("\n");
  const entries = lines.filter((l) => l.includes('"parentId":"'));
  if (entries.length) out.push(["duplicate id", enc.encode([...lines, rng.pick(entries)].join("\n"))]);
  out.push(["torn last line", enc.encode(text.slice(0, text.length - rng.int(1, 40)))]);
  const cut = rng.int(0, text.length - 1);
  out.push(["garbage", enc.encode(`${text.slice(0, cut)}\n{oops\n\n${text.slice(cut)}`)]);
  const bytes = enc.encode(text);
  const half = bytes.length >> 1;
  out.push(["invalid UTF-8", new Uint8Array([...bytes.slice(0, half), 0xff, 0xe2, 0x82, ...bytes.slice(half)])]);
  return out;
}

test("through blobSource in tiny pieces, each function gives what the bytes give", { timeout: 240_000 }, async () => {
  const cases = [];
  for (let k = 0; k < COUNT; k++) {
    const seed = caseSeed(MASTER, k);
    const rng = new Rng(seed);
    // A FileReaderSync read costs about half a millisecond: pieces of 1 to 64 bytes on a short
    // session as is and with invalid UTF-8 (boundaries inside its sequences), larger ones on
    // the broken variants of a longer one.
    const short = migrate(generateSession(seed, { maxEntries: 10, pi16: k % 2 === 0 }).text);
    const long = migrate(generateSession(seed, { maxEntries: 30, pi16: k % 2 === 0 }).text);
    const tiny = variants(short, rng).filter(([v]) => v === "as is" || v === "invalid UTF-8");
    const broken = variants(long, rng).filter(([v]) => v !== "as is" && v !== "invalid UTF-8");
    // The reads a case costs are its bytes over its piece size, for each function: a "short"
    // pi 1.6 session can hold 65 KB of tool output, which pieces of 3 bytes made 430,000
    // reads, four minutes in one test. Pieces stay at least a 2,000th of the session.
    for (const [variant, bytes] of tiny) {
      const pieceSize = Math.max(rng.int(1, 64), Math.ceil(bytes.length / 2000));
      cases.push({ label: `case ${seed} short, ${variant}`, bytes: Array.from(bytes), pieceSize });
    }
    for (const [variant, bytes] of broken) {
      cases.push({ label: `case ${seed} ${variant}`, bytes: Array.from(bytes), pieceSize: rng.int(65, 2048) });
    }
  }
  let differences = [];
  let reads = 0;
  let total = 0;
  for (let i = 0; i < cases.length; i += 10) {
    const batch = cases.slice(i, i + 10);
    const got = await page.evaluate(
      (b) => window.run({ type: "compare", cases: b.map((c) => ({ ...c, bytes: new Uint8Array(c.bytes).buffer })) }),
      batch,
    );
    if (!got.ok) assert.fail(`the worker threw ${got.message}`);
    differences = differences.concat(got.value.differences);
    reads += got.value.reads;
    console.log(`batch: ${got.value.reads} reads in ${got.value.ms} ms`);
    total += batch.reduce((n, c) => n + c.bytes.length, 0);
  }
  for (const d of differences.slice(0, 3)) {
    assert.equal(d.got, d.expected, `${d.key}: ${d.label}, pieces of ${d.pieceSize} (BLOB_SEED=${MASTER})`);
  }
  assert.equal(differences.length, 0);
  // Each function read each source by piece: more reads than bytes / 2048.
  assert.ok(reads > total / 2048, `read by piece: ${reads} reads of ${total} bytes`);
  assert.deepEqual(problems, []);
});

test("blobSource: fields, slices, and errors that say what went wrong", async () => {
  const probe = await run({ type: "probe" });
  assert.deepEqual(probe.fields, { name: "probe.jsonl", size: 7 });
  assert.deepEqual(probe.slice, [0xc3, 0xa9]); // the two bytes of é
  assert.deepEqual(probe.empty, []);
  assert.deepEqual(probe.pastEnd, { name: "RangeError", message: "probe.jsonl: read(5, 3) ends past its 7 bytes" });
  assert.deepEqual(probe.negative, { name: "RangeError", message: "probe.jsonl: read(-1, 1) is not a range of bytes" });
  assert.equal(probe.notBlob.name, "TypeError");
  assert.match(probe.notBlob.message, /blob must be a Blob or File, got string/);
  assert.equal(probe.anonymous, "the blob");
  // Outside a Worker there is no synchronous reader: a clear error, not a hang.
  const onPage = await page.evaluate(async () => {
    const { blobSource } = await import("/pkg/browser.js");
    try {
      blobSource(new Blob(["{}"]));
      return null;
    } catch (error) {
      return error.message;
    }
  });
  assert.match(onPage, /needs FileReaderSync, which only a Web Worker has/);
});

test("a picked file changed on disk after it was picked: the read fails, naming the file", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "session-tree-blob-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "picked.jsonl");
  const line = (i) =>
    `${JSON.stringify({ type: "message", id: `e${i}`, parentId: null, timestamp: "2025-01-01T00:00:00.000Z", message: { role: "user", content: "x" } })}\n`;
  const header = `${JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" })}\n`;
  writeFileSync(file, header + line(1) + line(2));
  await page.setInputFiles("#pick", file);
  const read = () =>
    page.evaluate(() =>
      window.run({ type: "readPicked", file: document.getElementById("pick").files[0], pieceSize: 16 }),
    );
  assert.deepEqual((await read()).value, { value: 3 }); // the header and two entries
  // Rewritten with other bytes of another size: the File picked no longer matches the disk.
  await new Promise((r) => setTimeout(r, 20));
  writeFileSync(file, header + line(3));
  const after = (await read()).value;
  assert.equal(after.value, undefined, "no count from a changed file");
  assert.match(after.error, /^picked\.jsonl could not be read at byte \d+ \(NotReadableError: /);
});
