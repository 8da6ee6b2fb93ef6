// `session-tree serve` under hostile use (docs/hunt-cli-serve.md): clients that
// hang up before their answer starts, a followed file swapped for a link out of
// DIR, Range headers that name no bytes, dates that do not exist.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../../pkg/cli/serve/server.js";
import { rawGet, sseStream } from "./helpers.mjs";

const SESSION =
  '{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n' +
  '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n';
const SECRET = "OUTSIDE-SECRET-c41b";

let base;
let dir;
let outside;
let server;
before(async () => {
  base = mkdtempSync(path.join(tmpdir(), "st-serve-hunt-"));
  dir = path.join(base, "sessions");
  outside = path.join(base, "outside");
  mkdirSync(path.join(dir, "p"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(dir, "p", "a.jsonl"), SESSION);
  writeFileSync(path.join(dir, "p", "empty.jsonl"), "");
  // large enough that its bytes are still being sent when the client is gone
  writeFileSync(path.join(dir, "p", "big.jsonl"), SESSION.repeat(40_000));
  writeFileSync(path.join(outside, "s.jsonl"), `{"type":"session","note":"${SECRET}"}\n`);
  // in this process, so its timers, watchers and descriptors can be counted
  server = await startServer({ dir, port: 0 });
  await server.index.rescan();
});
after(async () => {
  await server?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** How many of each kind of handle (timers, watchers, …) the process holds. */
function handles() {
  const counts = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Sends a request and resets the connection at once, before any answer. */
function hangUp(target) {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
      socket.resetAndDestroy();
      resolve();
    });
    socket.on("error", reject);
  });
}

/** Waits until the server has answered a request made after everything before it. */
async function settle() {
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal((await rawGet(server.port, "/files/p/a.jsonl")).status, 200);
}

/**
 * Waits until `done()` holds, or gives up after ten seconds (a loaded machine
 * may still be finishing the requests; a leak never goes away).
 */
async function eventually(done) {
  for (let waited = 0; !done() && waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("a follow whose client hangs up before it starts leaves no timer or watcher behind", async () => {
  const before = handles();
  for (let i = 0; i < 40; i++) await hangUp("/api/follow?path=p/a.jsonl&offset=0");
  for (let i = 0; i < 40; i++) await hangUp("/api/list");
  await settle();
  const back = (now) =>
    (now.FSEventWrap ?? 0) <= (before.FSEventWrap ?? 0) && (now.Timeout ?? 0) <= (before.Timeout ?? 0);
  await eventually(() => back(handles()));
  const now = handles();
  assert.equal(now.FSEventWrap ?? 0, before.FSEventWrap ?? 0, "fs.watch handles");
  assert.equal(now.Timeout ?? 0, before.Timeout ?? 0, "timers");
});

test("a file request whose client hangs up closes its descriptor", { skip: process.platform !== "linux" }, async () => {
  const fds = () => readdirSync("/proc/self/fd").length;
  await settle();
  const before = fds();
  for (let i = 0; i < 40; i++) await hangUp("/files/p/big.jsonl");
  await settle();
  await eventually(() => fds() <= before + 3);
  // Without the fix the descriptors (nearly one per request) stay open until
  // the garbage collector finds their FileHandles (Node warns, and will throw
  // in the future). A socket of settle() may still be closing: a little slack.
  assert.ok(fds() <= before + 3, `${fds() - before} more descriptors open than before`);
});

test("a followed file replaced by a link out of DIR sends nothing of the linked file", async () => {
  const file = path.join(dir, "p", "victim.jsonl");
  writeFileSync(file, "");
  const f = sseStream(`${server.url}api/follow?path=p/victim.jsonl&offset=0`);
  await new Promise((resolve) => setTimeout(resolve, 700));
  rmSync(file);
  symlinkSync(path.join(outside, "s.jsonl"), file);
  // a few of the server's polls (every 500 ms) and watch events
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const leaked = f.events.filter((e) => e.type === "append" && Buffer.from(e.data, "base64").includes(SECRET));
  f.close();
  assert.deepEqual(leaked, []);
});

test("a followed file whose folder is replaced by a link out of DIR sends nothing of it", async () => {
  const folder = path.join(dir, "q");
  mkdirSync(folder);
  writeFileSync(path.join(folder, "s.jsonl"), "");
  const f = sseStream(`${server.url}api/follow?path=q/s.jsonl&offset=0`);
  await new Promise((resolve) => setTimeout(resolve, 700));
  renameSync(folder, path.join(dir, "q-old"));
  symlinkSync(outside, folder);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const leaked = f.events.filter((e) => e.type === "append" && Buffer.from(e.data, "base64").includes(SECRET));
  f.close();
  assert.deepEqual(leaked, []);
});

test("a 206 always names its bytes: invalid ranges and empty files get the whole file", async () => {
  const p = server.port;
  // RFC 9110 14.1.1: a range whose last byte is before its first is invalid; a server may ignore the header
  const backwards = await rawGet(p, "/files/p/a.jsonl", { headers: { Range: "bytes=5-4" } });
  assert.equal(backwards.status, 200);
  assert.equal(backwards.body, SESSION);
  // an empty file has no byte a Content-Range could name; the viewer asks for bytes=0-4095 first
  for (const range of ["bytes=0-4095", "bytes=0-", "bytes=-5"]) {
    const res = await rawGet(p, "/files/p/empty.jsonl", { headers: { Range: range } });
    assert.equal(res.status, 200, range);
    assert.equal(res.body, "", range);
  }
  for (const range of ["bytes=0-0", "bytes=3-", "bytes=-4"]) {
    const res = await rawGet(p, "/files/p/a.jsonl", { headers: { Range: range } });
    assert.equal(res.status, 206, range);
    assert.match(res.headers["content-range"] ?? "", /^bytes \d+-\d+\/\d+$/, range);
  }
});

test("a usage date that does not exist is a 400, not a server error", async () => {
  for (const date of ["2026-02-31", "2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31"]) {
    for (const key of ["since", "until"]) {
      const res = await rawGet(server.port, `/api/usage?${key}=${date}`);
      assert.equal(res.status, 400, `${key}=${date}`);
      assert.match(res.body, new RegExp(`${key} must be a date`));
    }
  }
  assert.equal((await rawGet(server.port, "/api/usage?since=2024-02-29")).status, 200);
});

test("without HOME, serve with no DIR asks for one instead of serving a folder of the working directory", async () => {
  const { main } = await import("../../pkg/cli/main.js");
  const cwd = path.join(base, "cwd");
  mkdirSync(path.join(cwd, ".pi", "agent", "sessions"), { recursive: true });
  for (const env of [{}, { HOME: "" }]) {
    const out = [];
    const err = [];
    const io = {
      stdout: { write: (s) => out.push(String(s)) },
      stderr: { write: (s) => err.push(String(s)) },
      stdin: null,
      env,
      isTTY: false,
      cwd,
      // without the fix it serves, until this stops it
      signal: AbortSignal.timeout(3000),
    };
    assert.equal(await main(["serve", "--port", "0"], io), 2, JSON.stringify(env));
    assert.equal(out.join(""), "");
    assert.match(err.join(""), /^session-tree serve: .*HOME.*DIR\n$/);
  }
});
