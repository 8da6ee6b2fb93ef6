// The follow stream of `session-tree serve` (api/follow), read raw: appended
// bytes arrive exactly, in order, cut wherever the writer cut them; a file
// that shrinks, whose first bytes change, or that the client holds a different
// start of, gets a `reset`.

import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { headHash } from "../../pkg/cli/serve/protocol.js";
import { sseStream, startServe } from "./helpers.mjs";

let dir;
let server;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "st-follow-"));
  mkdirSync(path.join(dir, "p"));
  server = await startServe(dir);
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The follow stream of `rel` from `offset` (sseStream: `next(type)`, `events`, `close()`). */
function follow(rel, offset, head) {
  const q = new URLSearchParams({ path: rel, offset: String(offset), head });
  return sseStream(`${server.url}api/follow?${q}`);
}

const HEADER = '{"type":"session","version":3,"id":"f","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n';

test("appended bytes arrive exactly, even cut inside a character; the ids are the offsets", async () => {
  const file = path.join(dir, "p", "a.jsonl");
  writeFileSync(file, HEADER);
  const f = follow("p/a.jsonl", HEADER.length, headHash(Buffer.from(HEADER)));
  const line = Buffer.from('{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"ü😀"}}\n');
  const cut = line.indexOf(Buffer.from("😀")) + 1;
  appendFileSync(file, line.subarray(0, cut));
  const first = await f.next("append");
  await new Promise((r) => setTimeout(r, 100));
  appendFileSync(file, line.subarray(cut));
  const chunks = [Buffer.from(first.data, "base64")];
  let last = first;
  while (Buffer.concat(chunks).length < line.length) {
    last = await f.next("append");
    chunks.push(Buffer.from(last.data, "base64"));
  }
  assert.deepEqual(Buffer.concat(chunks), line);
  assert.equal(first.id, HEADER.length + chunks[0].length);
  assert.equal(last.id, HEADER.length + line.length);
  f.close();
});

test("a file that shrinks gets a reset", async () => {
  const file = path.join(dir, "p", "b.jsonl");
  writeFileSync(file, `${HEADER}{"type":"label"}\n`);
  const size = HEADER.length + 17;
  const f = follow("p/b.jsonl", size, headHash(Buffer.from(`${HEADER}{"type":"label"}\n`)));
  writeFileSync(file, HEADER);
  await f.next("reset");
  f.close();
});

test("a file rewritten longer, with other first bytes, gets a reset rather than its tail", async () => {
  const file = path.join(dir, "p", "c.jsonl");
  writeFileSync(file, HEADER);
  const f = follow("p/c.jsonl", HEADER.length, headHash(Buffer.from(HEADER)));
  writeFileSync(file, HEADER.replace('"id":"f"', '"id":"g"') + HEADER);
  await f.next("reset");
  assert.deepEqual(
    f.events.filter((e) => e.type === "append"),
    [],
  );
  f.close();
});

test("a client holding a different start of the file gets a reset at once", async () => {
  const file = path.join(dir, "p", "d.jsonl");
  writeFileSync(file, HEADER);
  const f = follow("p/d.jsonl", HEADER.length, "00000000");
  await f.next("reset");
  f.close();
});
