// The `session-tree` command under Bun and Deno, where they differ from Node:
// `migrate --in-place` hands its temporary file to a guard process of its own
// (pkg/cli/remove-at-exit.js, started with process.execPath), which removes
// it when the command is killed mid-write.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const BIN = fileURLToPath(new URL("../../pkg/bin/session-tree.js", import.meta.url));
const HEADER = '{"type":"session","id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}';
const MESSAGE =
  '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a question of some length"}}';

/** A v1 session of `count` messages. */
const v1 = (count) => `${[HEADER, ...Array(count).fill(MESSAGE)].join("\n")}\n`;

function folder() {
  const dir = mkdtempSync(join(tmpdir(), "st-runtimes-cli-"));
  return { dir, path: (name) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves once `check()` is true; rejects after `limit` ms (a hang, not a timing). */
async function until(check, what, limit = 60_000) {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > limit) throw new Error(`never: ${what}`);
    await new Promise((done) => setTimeout(done, 2));
  }
}

for (const [name, runtime] of [
  ["Bun", [bin("bun")]],
  ["Deno", [bin("deno"), "run", "-A", "--no-lock"]],
]) {
  // Bun called the guard's pipe write back before the bytes were in the pipe,
  // and the synchronous migration that followed held them: the guard never
  // learnt the temporary file's name, and it stayed
  test(`${name}: migrate --in-place killed mid-write leaves the file whole and nothing beside it`, async () => {
    const d = folder();
    try {
      const text = v1(100_000);
      const path = d.path("big.jsonl");
      writeFileSync(path, text);
      const child = spawn(runtime[0], [...runtime.slice(1), BIN, "migrate", "--in-place", path], {
        // small pieces: the migration takes long enough to be caught in the middle
        env: { ...process.env, SESSION_TREE_PIECE_SIZE: "512" },
        stdio: "ignore",
      });
      const exited = new Promise((done) => child.on("exit", (code, signal) => done(signal ?? code)));
      await until(() => readdirSync(d.dir).some((n) => n.endsWith(".tmp")), "the new file is being written");
      child.kill("SIGKILL");
      assert.equal(await exited, "SIGKILL", "the signal ended it, mid-write");
      await until(() => readdirSync(d.dir).length === 1, `only big.jsonl left: ${readdirSync(d.dir)}`);
      assert.equal(readFileSync(path, "utf8"), text, "the original is whole");
    } finally {
      d.cleanup();
    }
  });
}

// Without --allow-run Deno cannot start the guard: its spawn() gave a child
// whose unref() threw, and the command failed with "unexpected error"
test("Deno without --allow-run: migrate --in-place and -o still migrate", () => {
  const d = folder();
  try {
    const path = d.path("s.jsonl");
    writeFileSync(path, v1(3));
    const deno = [bin("deno"), "run", "--allow-read", "--allow-write", "--allow-env", "--no-lock", BIN];
    let r = spawnSync(deno[0], [...deno.slice(1), "migrate", "--in-place", path], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(path, "utf8").split("\n")[0]).version, 3);
    writeFileSync(path, v1(3));
    const out = d.path("out.jsonl");
    r = spawnSync(deno[0], [...deno.slice(1), "migrate", path, "-o", out], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(readFileSync(out, "utf8").split("\n")[0]).version, 3);
    assert.deepEqual(readdirSync(d.dir).sort(), ["out.jsonl", "s.jsonl"]);
  } finally {
    d.cleanup();
  }
});

// Deno without --allow-env throws on reading process.env: the command read
// SESSION_TREE_PIECE_SIZE and failed, then its error handler threw reading
// SESSION_TREE_DEBUG (an uncaught stack trace, exit 1: "problems found")
test("Deno with only --allow-read: the reading commands read (a variable it may not read is unset)", () => {
  const d = folder();
  try {
    const path = d.path("s.jsonl");
    writeFileSync(path, v1(2));
    const deno = [bin("deno"), "run", "--allow-read", "--no-lock", BIN];
    let r = spawnSync(deno[0], [...deno.slice(1), "info", "--json", path], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout)[0].info.messageCount, 2);
    r = spawnSync(deno[0], [...deno.slice(1), "context", "--json", path], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    // writing is refused by Deno: one line, exit 2, the file as it was
    r = spawnSync(deno[0], [...deno.slice(1), "migrate", "--in-place", path], { encoding: "utf8" });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^session-tree migrate: .*--allow-write.*\n$/);
    assert.equal(readFileSync(path, "utf8"), v1(2));
  } finally {
    d.cleanup();
  }
});
