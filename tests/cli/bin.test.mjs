// The executable itself (pkg/bin/session-tree.js), run as a child process:
// exit codes reach the shell, stdin is read, output is written in full.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { BROKEN, CLEAN, folder } from "./fixtures.mjs";

const bin = fileURLToPath(new URL("../../pkg/bin/session-tree.js", import.meta.url));
const f = folder({ "clean.jsonl": CLEAN, "broken.jsonl": BROKEN });
after(f.cleanup);
const cli = (args, input) =>
  spawnSync(process.execPath, [bin, ...args], { input, encoding: "utf8", maxBuffer: 1 << 26 });

test("bin: exit codes 0, 1 and 2 reach the shell; stdin with -", () => {
  assert.equal(cli(["--help"]).status, 0);
  assert.equal(cli(["inspect", f.path("clean.jsonl")]).status, 0);
  assert.equal(cli(["inspect", f.path("broken.jsonl")]).status, 1);
  const missing = cli(["inspect", f.path("missing.jsonl")]);
  assert.equal(missing.status, 2);
  assert.equal(missing.stderr, `session-tree inspect: ${f.path("missing.jsonl")}: no such file or directory\n`);
  const stdin = cli(["inspect", "-"], BROKEN);
  assert.equal(stdin.status, 1);
  assert.match(stdin.stdout, /^<stdin>:3: malformed-line/);
});

test("bin: a large output is written in full before the process exits", () => {
  const big =
    CLEAN +
    Array.from({ length: 20000 }, (_, i) =>
      JSON.stringify({
        type: "custom",
        id: `x${i}`,
        parentId: i === 0 ? "a3" : `x${i - 1}`,
        timestamp: "2025-03-01T10:01:00.000Z",
        customType: "pad",
        data: "y".repeat(100),
      }),
    ).join("\n");
  const r = cli(["migrate", "-"], big);
  assert.equal(r.status, 0);
  assert.equal(r.stdout, big);
});

test("bin: the file is executable and starts with a node shebang", async () => {
  const { readFileSync, statSync } = await import("node:fs");
  assert.ok(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n"));
  assert.ok((statSync(bin).mode & 0o111) !== 0);
});
