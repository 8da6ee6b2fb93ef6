// `session-tree serve` refuses what it must: foreign Host headers (DNS
// rebinding), paths leading out of DIR (plain, percent-encoded, twice
// encoded, backslashes, symlinks), files that are not .jsonl, and anything
// but GET/HEAD. Raw requests over node:net, so nothing normalizes them first.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { rawGet, startServe } from "./helpers.mjs";

const SESSION =
  '{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}\n' +
  '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n';
const OUTSIDE = "OUTSIDE-SECRET-7f3a";
const INSIDE_TXT = "INSIDE-NOT-JSONL-91c2";

let base;
let dir;
let outside;
let server;
before(async () => {
  base = mkdtempSync(path.join(tmpdir(), "st-serve-sec-"));
  dir = path.join(base, "sessions");
  outside = path.join(base, "outside");
  mkdirSync(path.join(dir, "proj"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(dir, "proj", "a.jsonl"), SESSION);
  writeFileSync(path.join(dir, "proj", "notes.txt"), INSIDE_TXT);
  writeFileSync(path.join(outside, "secret.jsonl"), `{"type":"session","note":"${OUTSIDE}"}\n`);
  writeFileSync(path.join(outside, "secret.txt"), OUTSIDE);
  symlinkSync(path.join(outside, "secret.jsonl"), path.join(dir, "proj", "link.jsonl"));
  symlinkSync(outside, path.join(dir, "linkdir"));
  server = await startServe(dir);
});
after(async () => {
  await server?.stop();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** A refusal: an error status, and nothing of the secrets or of paths outside DIR. */
function assertRefused(res, what) {
  assert.ok(res.status >= 400, `${what}: expected a refusal, got ${res.status}`);
  for (const secret of [OUTSIDE, INSIDE_TXT, outside, base]) {
    assert.ok(!res.body.includes(secret), `${what}: the answer reveals ${secret}`);
  }
}

test("allowed requests work (so the refusals below mean something)", async () => {
  const p = server.port;
  for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`, `LOCALHOST:${p}`]) {
    const res = await rawGet(p, "/files/proj/a.jsonl", { host });
    assert.equal(res.status, 200, host);
    assert.equal(res.body, SESSION);
  }
  const home = await rawGet(p, "/");
  assert.equal(home.status, 200);
  assert.match(home.body, /session-tree-serve/);
});

test("byte ranges and offsets of a session", async () => {
  const p = server.port;
  const range = await rawGet(p, "/files/proj/a.jsonl", { headers: { Range: "bytes=5-11" } });
  assert.equal(range.status, 206);
  assert.equal(range.body, SESSION.slice(5, 12));
  assert.equal(range.headers["content-range"], `bytes 5-11/${SESSION.length}`);
  const offset = await rawGet(p, "/files/proj/a.jsonl?offset=90");
  assert.equal(offset.status, 206);
  assert.equal(offset.body, SESSION.slice(90));
  assert.equal((await rawGet(p, "/files/proj/a.jsonl?offset=x")).status, 400);
});

test("a foreign or missing Host header is refused (DNS rebinding)", async () => {
  const p = server.port;
  for (const host of [`evil.example:${p}`, "evil.example", `127.0.0.1:${p + 1}`, `localhost`, `127.0.0.2:${p}`, null]) {
    for (const target of ["/", "/files/proj/a.jsonl", "/api/search?q=hi"]) {
      const res = await rawGet(p, target, { host });
      assertRefused(res, `Host ${host} ${target}`);
      assert.ok(!res.body.includes('"type":"session"'), `Host ${host} ${target} returned a session`);
    }
  }
});

test("paths out of DIR are refused: plain, encoded, twice encoded, backslashes", async () => {
  const p = server.port;
  const targets = [
    "/files/../outside/secret.jsonl",
    "/files/proj/../../outside/secret.jsonl",
    "/files/proj/../a.jsonl",
    "/../outside/secret.jsonl",
    "/pkg/../../outside/secret.jsonl",
    "/files/%2e%2e/outside/secret.jsonl",
    "/files/%2E%2E/%2e%2e/outside/secret.jsonl",
    "/files/..%2foutside%2fsecret.jsonl",
    "/files/%2e%2e%2f%2e%2e%2foutside%2fsecret.jsonl",
    "/files/%252e%252e/outside/secret.jsonl",
    "/files/%252e%252e%252foutside%252fsecret.jsonl",
    "/files/..%5coutside%5csecret.jsonl",
    "/files/..\\outside\\secret.jsonl",
    "/files/proj/%00.jsonl",
    "/files//outside/secret.jsonl",
    `/files/${outside}/secret.jsonl`,
    "/api/follow?path=../outside/secret.jsonl",
    "/api/follow?path=%2e%2e%2foutside%2fsecret.jsonl",
    "/api/follow?path=proj%2f..%2f..%2foutside%2fsecret.jsonl",
    `/api/follow?path=${encodeURIComponent(path.join(outside, "secret.jsonl"))}`,
    "/api/follow?path=..%5coutside%5csecret.jsonl",
  ];
  for (const target of targets) assertRefused(await rawGet(p, target), target);
});

test("a symlink leading out of DIR is refused", async () => {
  const p = server.port;
  for (const target of [
    "/files/proj/link.jsonl",
    "/files/linkdir/secret.jsonl",
    "/files/linkdir/secret.txt",
    "/api/follow?path=proj/link.jsonl",
    "/api/follow?path=linkdir/secret.jsonl",
  ]) {
    const res = await rawGet(p, target);
    assertRefused(res, target);
  }
});

test("files under DIR that are not .jsonl are refused, and DIR is not the viewer's root", async () => {
  const p = server.port;
  for (const target of [
    "/files/proj/notes.txt",
    "/files/proj",
    "/files/proj/",
    "/api/follow?path=proj/notes.txt",
    "/proj/a.jsonl",
    "/proj/notes.txt",
    "/notes.txt",
    "/pkg/package.json",
    "/pkg/node.js",
  ]) {
    assertRefused(await rawGet(p, target), target);
  }
});

test("only GET and HEAD: no method writes", async () => {
  const p = server.port;
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
    const res = await rawGet(p, "/files/proj/a.jsonl", { method, headers: { "Content-Length": "0" } });
    assert.equal(res.status, 405, method);
  }
  const head = await rawGet(p, "/files/proj/a.jsonl", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers["content-length"], String(SESSION.length));
});
