// `serve` on a session over 1 GiB (opt-in: too slow for `make test` on a
// shared machine): a generated file in a folder of its own, then the real
// command over it. Checks and times its row in the list, the search index,
// a search for words planted near the end, a byte range from the middle and
// the follow stream of an append; prints the server's peak memory (VmHWM),
// which stays far below the file's size because no file is held whole.
//
//   node tests/serve/large-file.mjs [GiB]     (default 1.1; after `make build`)

import assert from "node:assert/strict";
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { headHash } from "../../pkg/cli/serve/protocol.js";
import { rawGet, sseStream, startServe, writeLargeSession } from "./helpers.mjs";

const GiB = 1024 ** 3;
const SIZE = Number(process.argv[2] ?? 1.1) * GiB;
const PLANT = "zorblax quindle";

/** The first Server-Sent Event of `type` on `url` whose data passes `ok` (its data), or a timeout. */
async function sseWait(url, type, ok, timeout) {
  const stream = sseStream(url);
  try {
    return (await stream.next(type, { ok, timeout })).data;
  } finally {
    stream.close();
  }
}

const peakRss = (pid) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
const mib = (n) => `${Math.round(n / 2 ** 20)} MiB`;
const secs = (t) => `${((performance.now() - t) / 1000).toFixed(1)} s`;

const dir = mkdtempSync(path.join(tmpdir(), "st-serve-huge-"));
let server;
try {
  let t = performance.now();
  const file = path.join(dir, "big.jsonl");
  const { size, last } = writeLargeSession(file, SIZE, { last: `the ${PLANT} at the end` });
  console.log(`generated ${mib(size)} in ${secs(t)}`);
  assert.ok(size > GiB);

  t = performance.now();
  server = await startServe(dir);
  const row = await sseWait(`${server.url}api/list`, "row", (r) => r.path === "big.jsonl", 300_000);
  console.log(`listed in ${secs(t)}: ${row.info?.messageCount} messages, problems ${row.problems}`);
  assert.equal(row.size, size);
  assert.equal(row.info.id, "big");
  assert.equal(row.info.firstMessage, "step 0");

  await sseWait(`${server.url}api/list`, "progress", (p) => p.ready, 600_000);
  console.log(`indexed for search in ${secs(t)}`);

  t = performance.now();
  const found = await (await fetch(`${server.url}api/search?q=${encodeURIComponent(`"${PLANT}"`)}`)).json();
  console.log(`searched in ${secs(t)}: ${JSON.stringify(found.results.map((r) => r.entryId))}`);
  assert.deepEqual(
    found.results.map((r) => r.entryId),
    [last],
  );

  const middle = Math.floor(size / 2);
  const range = await rawGet(server.port, "/files/big.jsonl", { headers: { range: `bytes=${middle}-${middle + 99}` } });
  assert.equal(range.status, 206);
  assert.equal(range.headers["content-range"], `bytes ${middle}-${middle + 99}/${size}`);

  t = performance.now();
  const first = Buffer.alloc(4096);
  const fd = openSync(file, "r");
  readSync(fd, first, 0, 4096, 0);
  closeSync(fd);
  const head = headHash(first);
  const q = new URLSearchParams({ path: "big.jsonl", offset: String(size), head });
  const appended = sseWait(`${server.url}api/follow?${q}`, "append", () => true, 30_000);
  await new Promise((r) => setTimeout(r, 300));
  appendFileSync(file, '{"type":"label","id":"l1","parentId":"x","targetId":"x","label":"end"}\n');
  const bytes = Buffer.from(await appended, "base64").toString();
  assert.match(bytes, /"label":"end"/);
  console.log(`followed an append in ${secs(t)}`);
  console.log(`server peak memory (VmHWM): ${mib(peakRss(server.pid))} for a file of ${mib(size)}`);
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
