// `serve`'s /api/list and /api/follow send as fast as each client reads: a
// client that connects and never reads makes the server hold no copy of the
// list, nor read the followed file into memory (docs/hunt-leftovers.md). In this process, so the server's buffers can be
// looked at.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { ServerResponse } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../../pkg/cli/serve/server.js";
import { sseStream } from "./helpers.mjs";

const COUNT = 300;
// each row carries its session's first message: about 16 KB a row, 5 MB in all
const LONG = "x".repeat(16_000);
const session = (i, text) =>
  `{"type":"session","version":3,"id":"s-${i}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n` +
  `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"${text}","timestamp":1}}\n`;

let dir;
let server;
// the most bytes each /api/list response held in its own buffer, after any write
const held = new Map();
const write = ServerResponse.prototype.write;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "st-serve-backpressure-"));
  for (let i = 0; i < COUNT; i++) writeFileSync(path.join(dir, `s${i}.jsonl`), session(i, LONG));
  // 24 MB to follow
  writeFileSync(path.join(dir, "big.jsonl"), session(0, LONG).repeat(1500));
  server = await startServer({ dir, port: 0 });
  await server.index.rescan();
  ServerResponse.prototype.write = function (...args) {
    const ok = write.apply(this, args);
    if (/^\/api\/(list|follow)/.test(this.req?.url)) held.set(this, Math.max(held.get(this) ?? 0, this.writableLength));
    return ok;
  };
});
after(async () => {
  ServerResponse.prototype.write = write;
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Asks for `target` and never reads the answer; resolves to the socket. */
function neverReads(target = "/api/list") {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.pause();
      // HTTP/1.0: the body as it is, not in chunks
      socket.write(`GET ${target} HTTP/1.0\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

test("/api/list to clients that never read: the server holds no copy of the list for them", async () => {
  const sockets = [];
  for (let i = 0; i < 5; i++) sockets.push(await neverReads());
  // until the server has answered all five (and written all it would)
  for (let waited = 0; held.size < 5 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(held.size, 5);
  for (const bytes of held.values()) {
    // a buffer's worth (16 KB) and one row over it, not the 5 MB of rows
    assert.ok(bytes < 256 * 1024, `a response held ${bytes} bytes`);
  }
  for (const socket of sockets) socket.destroy();

  // a client that reads gets every row, then the progress, as before
  const list = sseStream(`${server.url}api/list`);
  try {
    await list.next("progress", { timeout: 30_000 });
    const rows = list.events.filter((e) => e.type === "row");
    assert.equal(rows.length, COUNT + 1, "and big.jsonl");
    assert.equal(new Set(rows.map((e) => e.data.path)).size, COUNT + 1);
    assert.ok(rows.every((e) => e.data.info.firstMessage === LONG));
  } finally {
    list.close();
  }
});

test("/api/list to a client that reads late: what changed meanwhile comes as it is now", async () => {
  const socket = await neverReads();
  await new Promise((r) => setTimeout(r, 300));
  writeFileSync(path.join(dir, "s7.jsonl"), session(7, "changed"));
  rmSync(path.join(dir, "s8.jsonl"));
  await server.index.rescan();
  // now it reads: every row but s8's, s7's new one last and alone
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (d) => {
    text += d;
  });
  socket.resume();
  const events = () =>
    text
      .split("\n\n")
      .slice(0, -1)
      .filter((e) => e.includes("event: "))
      .map((e) => ({ type: /event: (\w+)/.exec(e)[1], data: JSON.parse(/data: (.*)/.exec(e)[1]) }));
  for (let waited = 0; !events().some((e) => e.type === "remove") && waited < 30_000; waited += 20)
    await new Promise((r) => setTimeout(r, 20));
  socket.destroy();
  const all = events();
  const s7 = all.filter((e) => e.type === "row" && e.data.path === "s7.jsonl");
  const s8 = all.filter((e) => e.data.path === "s8.jsonl");
  // s7: its old row may have gone out before the client stopped reading; the last is the new one
  assert.equal(s7.at(-1).data.info.firstMessage, "changed");
  assert.equal(s8.at(-1).type, "remove");
  assert.ok(s7.length <= 2 && s8.length <= 2);
});

test("/api/follow to a client that never reads: the file is not read into the server's memory", async () => {
  held.clear();
  const socket = await neverReads("/api/follow?path=big.jsonl&offset=0");
  for (let waited = 0; held.size < 1 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  // the follow reads a piece each turn: time for it to read all 24 MB if nothing holds it back
  await new Promise((r) => setTimeout(r, 1000));
  const [bytes] = held.values();
  socket.destroy();
  assert.ok(bytes < 4 * 1024 * 1024, `the response held ${bytes} bytes`);
});

test("pings wait while a client has not taken what was written: one that never reads gets none queued", async () => {
  // Every 15 s each event stream got `: ping` whatever its client read: a client that never
  // reads made the server queue 9 bytes a ping for good (docs/hunt-leftovers2.md). Pings
  // here come every 10 ms; a client that reads counts the ticks.
  const quick = await startServer({ dir, port: 0, pingMs: 10 });
  await quick.index.rescan();
  const base = ServerResponse.prototype.write;
  let blocked = null; // the never-reading client's response, once a write found its buffer full
  let queued = 0; // pings written to it while it held bytes its client had not taken
  let ticks = 0; // pings to the reading client's response after `blocked` was set
  let wake = () => {};
  ServerResponse.prototype.write = function (chunk, ...rest) {
    const ping = chunk === ": ping\n\n";
    if (ping && this === blocked && this.writableLength > 0) queued++;
    if (ping && blocked && this !== blocked && this.req?.url === "/api/list?reader") ticks++;
    const ok = base.call(this, chunk, ...rest);
    if (!ok && !blocked && this.req?.url === "/api/list") blocked = this;
    wake();
    return ok;
  };
  const until = (done) =>
    new Promise((resolve) => {
      wake = () => done() && resolve();
      wake();
    });
  const socket = await new Promise((resolve, reject) => {
    const s = connect(quick.port, "127.0.0.1", () => {
      s.pause();
      s.write(`GET /api/list HTTP/1.0\r\nHost: 127.0.0.1:${quick.port}\r\n\r\n`);
      resolve(s);
    });
    s.on("error", reject);
  });
  const reader = sseStream(`${quick.url}api/list?reader`);
  try {
    await until(() => blocked !== null);
    await until(() => ticks >= 5);
    assert.ok(blocked.writableLength > 0, "the non-reader's response still holds bytes");
    assert.equal(queued, 0, `${queued} pings queued behind bytes the client never took`);
  } finally {
    ServerResponse.prototype.write = base;
    reader.close();
    socket.destroy();
    await quick.close();
  }
});
