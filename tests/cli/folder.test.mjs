// files/folder.cjs: finding session files and reading their sessionInfo, with
// unreadable and non-session files as rows with an error, never a throw.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as realFs from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { findSessions, readSessionInfos } from "../../pkg/files/folder.cjs";

const root = mkdtempSync(join(os.tmpdir(), "session-tree-folder-"));
after(() => rmSync(root, { recursive: true, force: true }));

const header = (id, extra = {}) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2025-03-01T10:00:00.000Z", cwd: "/w", ...extra });
const userMessage = (id, text, ts) =>
  JSON.stringify({
    type: "message",
    id,
    parentId: null,
    timestamp: "2025-03-01T10:00:01.000Z",
    message: { role: "user", content: text, timestamp: ts },
  });

function makeFolder(name) {
  const dir = join(root, name);
  mkdirSync(join(dir, "sub", "deeper"), { recursive: true });
  writeFileSync(join(dir, "a.jsonl"), `${header("a")}\n${userMessage("m1", "hello", 1740830000000)}\n`);
  writeFileSync(join(dir, "c.jsonl"), `${header("c", { parentSession: join(dir, "a.jsonl") })}\n`);
  writeFileSync(join(dir, "b.jsonl"), "not json at all\n");
  writeFileSync(join(dir, "notes.txt"), "ignored");
  mkdirSync(join(dir, "dir.jsonl")); // a folder named like a session file is no file
  writeFileSync(join(dir, "sub", "s.jsonl"), `${header("s")}\n`);
  writeFileSync(join(dir, "sub", "deeper", "t.jsonl"), `${header("t")}\n`);
  return dir;
}

test("findSessions: the folder's .jsonl files, names descending; -r walks subfolders", async () => {
  const dir = makeFolder("find");
  assert.deepEqual(await findSessions(dir), [join(dir, "c.jsonl"), join(dir, "b.jsonl"), join(dir, "a.jsonl")]);
  assert.deepEqual(await findSessions(dir, { recursive: true }), [
    join(dir, "c.jsonl"),
    join(dir, "b.jsonl"),
    join(dir, "a.jsonl"),
    join(dir, "sub", "s.jsonl"),
    join(dir, "sub", "deeper", "t.jsonl"),
  ]);
});

test("findSessions: a missing folder throws; an unreadable subfolder is reported and skipped", async () => {
  await assert.rejects(findSessions(join(root, "missing")), { code: "ENOENT" });
  const dir = makeFolder("unreadable-sub");
  const errors = [];
  const fs = {
    ...realFs,
    readdir: async (path, options) => {
      if (path === join(dir, "sub")) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
      return realFs.readdir(path, options);
    },
  };
  const found = await findSessions(dir, {
    recursive: true,
    fs,
    onError: (path, error) => errors.push([path, error.code]),
  });
  assert.equal(found.length, 3);
  assert.deepEqual(errors, [[join(dir, "sub"), "EACCES"]]);
});

test("findSessions: a symlinked subfolder is followed with -r", async () => {
  const dir = join(root, "links");
  mkdirSync(join(root, "elsewhere"), { recursive: true });
  mkdirSync(dir);
  writeFileSync(join(root, "elsewhere", "x.jsonl"), `${header("x")}\n`);
  symlinkSync(join(root, "elsewhere"), join(dir, "linked"));
  assert.deepEqual(await findSessions(dir, { recursive: true }), [join(dir, "linked", "x.jsonl")]);
});

test("readSessionInfos: one row per path, in order, errors as rows", async () => {
  const dir = makeFolder("read");
  const paths = [join(dir, "a.jsonl"), join(dir, "b.jsonl"), join(dir, "missing.jsonl"), join(dir, "c.jsonl")];
  const progress = [];
  const rows = await readSessionInfos(paths, {
    concurrency: 2,
    onProgress: (done, total) => progress.push([done, total]),
  });
  assert.deepEqual(
    rows.map((r) => r.path),
    paths,
  );
  assert.equal(rows[0].error, null);
  assert.equal(rows[0].info.id, "a");
  assert.equal(rows[0].info.firstMessage, "hello");
  assert.equal(rows[0].info.messageCount, 1);
  assert.equal(rows[0].info.modified.getTime(), 1740830000000);
  assert.equal(rows[1].info, null);
  assert.match(rows[1].error, /not a pi session/);
  assert.equal(rows[2].info, null);
  assert.match(rows[2].error, /ENOENT/);
  assert.equal(rows[3].info.parentSession, join(dir, "a.jsonl"));
  assert.deepEqual(progress, [
    [1, 4],
    [2, 4],
    [3, 4],
    [4, 4],
  ]);
  assert.equal(rows[0].problems, undefined);
});

test("readSessionInfos: a header-only file falls back to the header time; no header time: the mtime", async () => {
  const dir = join(root, "mtime");
  mkdirSync(dir);
  writeFileSync(join(dir, "h.jsonl"), `${header("h")}\n`);
  writeFileSync(join(dir, "m.jsonl"), `${JSON.stringify({ type: "session", version: 3, id: "m", cwd: "/" })}\n`);
  const stamp = new Date("2024-05-05T05:05:05.000Z");
  await realFs.utimes(join(dir, "m.jsonl"), stamp, stamp);
  const [h, m] = await readSessionInfos([join(dir, "h.jsonl"), join(dir, "m.jsonl")]);
  assert.equal(h.info.modified.toISOString(), "2025-03-01T10:00:00.000Z");
  assert.equal(m.info.modified.toISOString(), "2024-05-05T05:05:05.000Z");
});

test("readSessionInfos: with inspect, each row carries its diagnostics", async () => {
  const dir = join(root, "inspect");
  mkdirSync(dir);
  writeFileSync(join(dir, "broken.jsonl"), `${header("x")}\n{oops\n`);
  writeFileSync(join(dir, "clean.jsonl"), `${header("y")}\n`);
  const [broken, clean] = await readSessionInfos([join(dir, "broken.jsonl"), join(dir, "clean.jsonl")], {
    inspect: true,
  });
  assert.deepEqual(
    broken.problems.map((p) => [p.kind, p.line]),
    [["malformed-line", 2]],
  );
  assert.deepEqual(clean.problems, []);
});

// Root reads any file whatever its mode, so as root (CI) the read runs in a child process that
// loads files/folder.cjs and then drops to the unprivileged user `nobody` before reading.
const NOBODY = 65534;
async function readAsUnprivileged(path) {
  if (process.getuid?.() !== 0) return (await readSessionInfos([path]))[0];
  const script = `
    const { readSessionInfos } = await import(${JSON.stringify(new URL("../../pkg/files/folder.cjs", import.meta.url).href)});
    process.setgid(${NOBODY});
    process.setuid(${NOBODY});
    const [row] = await readSessionInfos([${JSON.stringify(path)}]);
    process.stdout.write(JSON.stringify({ uid: process.getuid(), row }));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const { uid, row } = JSON.parse(r.stdout);
  assert.equal(uid, NOBODY);
  return row;
}

test("readSessionInfos: a file without read permission is an error row", async () => {
  const dir = mkdtempSync(join(os.tmpdir(), "session-tree-perm-"));
  try {
    chmodSync(dir, 0o711); // others may pass through, not list
    writeFileSync(join(dir, "p.jsonl"), `${header("p")}\n`);
    chmodSync(join(dir, "p.jsonl"), 0);
    const row = await readAsUnprivileged(join(dir, "p.jsonl"));
    assert.match(row.error, /EACCES/);
    assert.ok(!row.info, "no info for a file that cannot be read");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("readSessionInfos: a read that fails is an error row (injected fs)", async () => {
  const dir = makeFolder("inject");
  const fs = {
    ...realFs,
    readFile: async (path) => {
      if (path.endsWith("a.jsonl")) throw Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" });
      return realFs.readFile(path);
    },
  };
  const rows = await readSessionInfos([join(dir, "a.jsonl"), join(dir, "c.jsonl")], { fs });
  assert.equal(rows[0].error, "EIO: i/o error, read");
  assert.equal(rows[1].info.id, "c");
  assert.deepEqual(await readSessionInfos([]), []);
});

test("readSessionInfos: a file is stat'ed only when its mtime is needed", async () => {
  const dir = join(root, "stat");
  mkdirSync(dir);
  writeFileSync(join(dir, "h.jsonl"), `${header("h")}\n`);
  writeFileSync(join(dir, "m.jsonl"), `${JSON.stringify({ type: "session", version: 3, id: "m", cwd: "/" })}\n`);
  const stats = [];
  const fs = { ...realFs, stat: (path) => stats.push(path) && realFs.stat(path) };
  const rows = await readSessionInfos([join(dir, "h.jsonl"), join(dir, "m.jsonl")], { fs });
  assert.deepEqual(stats, [join(dir, "m.jsonl")]);
  assert.ok(rows[1].info.modified instanceof Date);
});
