// `serve` over HTTP with pieces of a few bytes (SESSION_TREE_PIECE_SIZE): the
// follow stream sends appended bytes a piece at a time from the last offset;
// a session read by range (the viewer's remote-source.js, run here in Node
// through a synchronous request helper) gives the package what the file
// gives; a file rewritten or cut under such a reader answers 412 and the read
// throws an error naming it, while appends change nothing below the size read.
// Sizes and cut points are random; the seed is printed (SERVE_BYPIECE_SEED
// replays one).

import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { buildSessionContext, countEntries, fileSource, getTree } from "session-tree";
import { headHash } from "../../pkg/cli/serve/protocol.js";
import { HEAD_BYTES } from "../../www/live.js";
import { fetchSession, remoteSource } from "../../www/remote-source.js";
import { envSeed, Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";
import { rawGet, sseStream, startServe } from "./helpers.mjs";

const SEED = envSeed("SERVE_BYPIECE_SEED");
const rng = new Rng(SEED);
const PIECE = rng.int(3, 17);

let dir;
let server;
let requester;
before(async () => {
  console.log(`pieces of ${PIECE} bytes`);
  dir = mkdtempSync(path.join(tmpdir(), "st-bypiece-"));
  mkdirSync(path.join(dir, "p"));
  server = await startServe(dir, [], { env: { ...process.env, SESSION_TREE_PIECE_SIZE: String(PIECE) } });
  requester = syncRequester();
});
after(async () => {
  requester?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A synchronous HTTP range request, as a Worker's synchronous XHR makes
 * one: a worker thread fetches while this one waits on a shared word.
 * `request(url, offset, length, since)` has syncRange's signature.
 */
function syncRequester() {
  const shared = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(
    `const { workerData: { port, shared } } = require("node:worker_threads");
     port.on("message", async ({ url, headers }) => {
       let reply;
       try {
         const res = await fetch(url, { headers });
         reply = { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
       } catch (error) {
         reply = { status: 0, bytes: new Uint8Array(0), error: String(error) };
       }
       port.postMessage(reply);
       Atomics.store(shared, 0, 1);
       Atomics.notify(shared, 0);
     });`,
    { eval: true, workerData: { port: port2, shared }, transferList: [port2] },
  );
  return {
    request(url, offset, length, since) {
      Atomics.store(shared, 0, 0);
      port1.postMessage({
        url,
        headers: { range: `bytes=${offset}-${offset + length - 1}`, "x-session-tree-since": since },
      });
      Atomics.wait(shared, 0, 0, 10_000);
      const reply = receiveMessageOnPort(port1)?.message;
      if (!reply) throw new Error("no answer from the server in 10 s");
      return reply;
    },
    close: () => worker.terminate(),
  };
}

/** The follow stream of `rel` from `offset` (sseStream: `next(type)`, `events`, `close()`). */
function follow(rel, offset, head) {
  const q = new URLSearchParams({ path: rel, offset: String(offset), head });
  return sseStream(`${server.url}api/follow?${q}`);
}

const session = (seed, maxEntries = 80) => generateSession(seed, { maxEntries, pi16: true }).text;

/** A drawn session longer than the first request's bytes: a file that fits in them comes whole. */
function longSession(maxEntries) {
  let text = session(rng.int(0, 2 ** 31), maxEntries);
  while (Buffer.byteLength(text) <= HEAD_BYTES) text = session(rng.int(0, 2 ** 31), maxEntries);
  return text;
}

test("follow: appended bytes arrive a piece at a time from the last offset, exactly", async () => {
  const file = path.join(dir, "p", "follow.jsonl");
  // A drawn session may be empty or a single line (a broken file): draw one with bytes after
  // its first line, which are what is followed.
  const afterFirstLine = (t) => (t.includes("\n") ? t.slice(t.indexOf("\n") + 1) : "");
  let text = session(rng.int(0, 2 ** 31));
  while (afterFirstLine(text) === "") text = session(rng.int(0, 2 ** 31));
  const cut = text.indexOf("\n") + 1;
  writeFileSync(file, text.slice(0, cut));
  const start = Buffer.byteLength(text.slice(0, cut));
  const f = follow("p/follow.jsonl", start, headHash(Buffer.from(text.slice(0, cut))));
  const rest = Buffer.from(text.slice(cut));
  appendFileSync(file, rest);
  const got = [];
  let last;
  while (Buffer.concat(got).length < rest.length) {
    last = await f.next("append");
    const bytes = Buffer.from(last.data, "base64");
    assert.ok(bytes.length <= PIECE, `a piece of at most ${PIECE} bytes, got ${bytes.length}`);
    got.push(bytes);
  }
  assert.deepEqual(Buffer.concat(got), rest);
  assert.equal(last.id, start + rest.length);
  f.close();
});

test("a file read by range gives the package what the file gives (getTree, context)", async () => {
  const rel = "p/ranges.jsonl";
  const file = path.join(dir, rel);
  const text = longSession(200);
  writeFileSync(file, text);
  const url = `${server.url}files/${rel}`;
  const opened = await fetchSession(url, { largeFrom: 1 });
  assert.equal(
    opened.byPiece,
    true,
    `over the threshold, ${Buffer.byteLength(text)} bytes: the file stays on the server (SERVE_BYPIECE_SEED=${SEED})`,
  );
  const bytes = readFileSync(file);
  assert.equal(opened.offset, bytes.length);
  assert.equal(opened.head, headHash(bytes));
  let reads = 0;
  const remote = remoteSource(
    { ...opened.source.remote, name: rel },
    {
      request: (...args) => {
        reads++;
        return requester.request(...args);
      },
    },
  );
  const local = fileSource(file);
  try {
    const options = { pieceSize: rng.int(64, 4096) };
    const strip = (nodes) => nodes.map((n) => ({ entry: n.entry, label: n.label, children: strip(n.children) }));
    assert.deepEqual(strip(getTree(remote, options)), strip(getTree(local, options)));
    assert.ok(reads > 1, `read by piece (${reads} requests)`);
    assert.equal(countEntries(remote, options), countEntries(local, options));
    const leaves = [];
    const walk = (ns) => {
      for (const n of ns) n.children.length ? walk(n.children) : leaves.push(n.entry.id);
    };
    walk(getTree(local));
    for (const leaf of leaves.slice(0, 5)) {
      assert.deepEqual(buildSessionContext(remote, leaf, options), buildSessionContext(local, leaf, options));
    }
    // Appended to: what was read stays readable, and the same.
    const before = remote.read(0, remote.size);
    appendFileSync(file, '{"type":"label","id":"zz","parentId":null,"targetId":"x","label":"later"}\n');
    assert.deepEqual(remote.read(0, remote.size), before);
  } finally {
    local.close();
  }
  // A small file comes whole, in the request that asked for its first bytes.
  const small = await fetchSession(url);
  assert.equal(small.byPiece, undefined);
  assert.equal(new Uint8Array(small.source).length, readFileSync(file).length);
});

test("a file rewritten or cut under a reader by range: 412, and an error naming it", async () => {
  const rel = "p/changed.jsonl";
  const file = path.join(dir, rel);
  const text = longSession();
  writeFileSync(file, text);
  const url = `${server.url}files/${rel}`;
  const { source } = await fetchSession(url, { largeFrom: 1 });
  assert.ok(source.remote, `a file of ${Buffer.byteLength(text)} bytes is read by range (SERVE_BYPIECE_SEED=${SEED})`);
  const remote = remoteSource({ ...source.remote, name: rel }, { request: requester.request });
  assert.deepEqual(remote.read(0, 10), new Uint8Array(Buffer.from(text).subarray(0, 10)));
  // Rewritten: the same size, other first bytes.
  writeFileSync(file, text.replace('"type":"session"', '"type":"sessioN"'));
  assert.throws(() => remote.read(0, 10), new RegExp(`^Error: ${rel} changed on the server while it was read`));
  const raw = await rawGet(server.port, `/files/${rel}`, {
    headers: { "x-session-tree-since": `${source.remote.size} ${source.remote.head}` },
  });
  assert.equal(raw.status, 412);
  assert.match(raw.body, /the file changed/);
  // Cut: shorter than when it was opened.
  writeFileSync(file, text.slice(0, 20));
  assert.throws(() => remote.read(0, 10), /changed on the server while it was read/);
  // A since header that is not a size and a hash is refused as such.
  const bad = await rawGet(server.port, `/files/${rel}`, { headers: { "x-session-tree-since": "12" } });
  assert.equal(bad.status, 400);
});
