// session-tree/node under Deno with fewer permissions than -A: a lock it
// cannot check must never be taken over.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionManager } from "session-tree/node";

const tests = fileURLToPath(new URL("..", import.meta.url));
const deno = fileURLToPath(new URL("../node_modules/.bin/deno", import.meta.url));

// Deno without --allow-run refuses process.kill(pid, 0) with NotCapable, which
// the lock read as "no such process": the live holder's lock was taken over
// and both processes appended to the file
test("Deno without --allow-run: a live holder's lock is not taken over; the error says why", async () => {
  const dir = mkdtempSync(join(tmpdir(), "st-deno-perms-"));
  let holder;
  try {
    const first = SessionManager.create("/work", dir);
    first.appendMessage({ role: "user", content: "first", timestamp: 1 });
    const file = first.getSessionFile();
    first.close();
    const before = readFileSync(file, "utf8");
    holder = spawn(process.execPath, ["node-manager/child.mjs", "hold", file, "0"], {
      cwd: tests,
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise((done, fail) => {
      holder.stdout.on("data", (text) => String(text).includes("ready") && done());
      holder.on("exit", (code) => fail(new Error(`the holder exited ${code}`)));
    });
    const r = spawnSync(
      deno,
      [
        "run",
        "--no-lock",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-sys",
        "node-manager/child.mjs",
        "try",
        file,
      ],
      { cwd: tests, encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^SessionLockedError: session file is being written by process \d+: /);
    assert.match(r.stdout, /whether it still runs could not be checked: .*--allow-run/);
    assert.equal(readFileSync(file, "utf8"), before, "nothing appended");
  } finally {
    holder?.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
