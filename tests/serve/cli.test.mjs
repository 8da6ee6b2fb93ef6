// `session-tree serve`'s own options, run in-process through the command's
// main() like a user's shell would (fake streams; the server is stopped
// through io.signal).

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { main } from "../../pkg/cli/main.js";
import { startServe } from "./helpers.mjs";

const dir = mkdtempSync(path.join(tmpdir(), "st-serve-cli-"));
writeFileSync(path.join(dir, "not-a-dir.jsonl"), "");
after(() => rmSync(dir, { recursive: true, force: true }));

function io(extra = {}) {
  const out = [];
  const err = [];
  return {
    out,
    err,
    io: {
      stdout: { write: (s) => out.push(String(s)) },
      stderr: { write: (s) => err.push(String(s)) },
      stdin: null,
      env: { HOME: dir },
      isTTY: false,
      cwd: dir,
      ...extra,
    },
  };
}

test("--help prints the usage, with the security rules, and exits 0", async () => {
  const t = io();
  assert.equal(await main(["serve", "--help"], t.io), 0);
  const text = t.out.join("");
  assert.match(text, /^usage: session-tree serve \[DIR\]/);
  assert.match(text, /Host header/);
});

test("bad usage exits 2 with a one-line reason", async () => {
  for (const argv of [
    ["serve", "a", "b"],
    ["serve", dir, "--port", "http"],
    ["serve", dir, "--port", "70000"],
    ["serve", path.join(dir, "missing")],
    ["serve", path.join(dir, "not-a-dir.jsonl")],
    ["serve", "--bogus"],
  ]) {
    const t = io();
    assert.equal(await main(argv, t.io), 2, argv.join(" "));
    const err = t.err.join("");
    assert.equal(err.trim().split("\n").length, 1, `${argv.join(" ")}: ${err}`);
    assert.equal(t.out.join(""), "");
  }
  // A piece size that is not a whole number of bytes is refused before anything is read.
  for (const piece of ["0", "1k", "2.5"]) {
    const t = io();
    t.io.env.SESSION_TREE_PIECE_SIZE = piece;
    assert.equal(await main(["serve", dir, "--port", "0"], t.io), 2, piece);
    assert.match(t.err.join(""), /^session-tree serve: SESSION_TREE_PIECE_SIZE must be a whole number of bytes/);
  }
});

test("DIR defaults to ~/.pi/agent/sessions; the URL is printed, loopback; it stops on the signal", async () => {
  const t2 = io();
  const home = t2.io.env.HOME;
  const missing = await main(["serve", "--port", "0"], t2.io);
  assert.equal(missing, 2, "no ~/.pi/agent/sessions under this HOME");
  assert.match(t2.err.join(""), new RegExp(`${path.join(home, ".pi", "agent", "sessions").replace(/[.\\]/g, "\\$&")}`));

  const ac = new AbortController();
  const s = io({ signal: ac.signal });
  const done = main(["serve", dir, "--port", "0"], s.io);
  let url;
  for (let i = 0; i < 100 && !url; i++) {
    await new Promise((r) => setTimeout(r, 50));
    url = /http:\/\/127\.0\.0\.1:\d+\//.exec(s.out.join(""))?.[0];
  }
  assert.ok(url, s.out.join("") + s.err.join(""));
  const status = await new Promise((resolve, reject) =>
    request(url, (res) => {
      res.resume();
      resolve(res.statusCode);
    })
      .on("error", reject)
      .end(),
  );
  assert.equal(status, 200);
  ac.abort();
  assert.equal(await done, 0);
});

test("--open runs the system's opener with the URL, and serving goes on without one", async () => {
  // a stand-in for the opener `serve` runs (`open` on macOS, `xdg-open` elsewhere) that logs its URL
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  const bin = path.join(dir, "fake-bin");
  const log = path.join(dir, "opened.txt");
  mkdirSync(bin);
  // written whole under another name, then renamed: the log never exists half-written
  writeFileSync(path.join(bin, opener), `#!/bin/sh\necho "$1" > '${log}.part' && mv '${log}.part' '${log}'\n`);
  chmodSync(path.join(bin, opener), 0o755);
  const served = await startServe(dir, ["--open"], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  try {
    // the deadline only ends a hang: a loaded machine may take seconds to start a shell
    for (let i = 0; i < 600 && !existsSync(log); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(readFileSync(log, "utf8").trim(), served.url);
  } finally {
    await served.stop();
  }
  // No opener on PATH at all: still serving.
  const bare = await startServe(dir, ["--open"], { env: { ...process.env, PATH: path.join(dir, "nothing-here") } });
  const status = await new Promise((resolve, reject) =>
    request(bare.url, (res) => {
      res.resume();
      resolve(res.statusCode);
    })
      .on("error", reject)
      .end(),
  );
  assert.equal(status, 200);
  await bare.stop();
});
