// `session-tree migrate`: stdout, -o, --in-place (atomic, --backup), a v3
// file never rewritten, and an interrupted --in-place that leaves the file as
// it was.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import * as realFs from "node:fs/promises";
import { after, test } from "node:test";
import { migrate } from "session-tree";
import { CLEAN, folder, V1 } from "./fixtures.mjs";
import { run } from "./run.mjs";

const f = folder();
after(f.cleanup);
let n = 0;
/** A new file in the test folder holding `text`; returns its path. */
function file(text, mode) {
  const path = f.path(`s${n++}.jsonl`);
  writeFileSync(path, text, mode === undefined ? undefined : { mode });
  return path;
}
const ID = /"(id|parentId)":"[0-9a-f]{8}"/g;
const withoutIds = (text) => text.replace(ID, '"$1":"…"');
const entries = (text) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
const leftovers = () => readdirSync(f.dir).filter((name) => name.endsWith(".tmp"));

test("migrate: a v1 file to stdout, the same bytes as migrate() of the API, ids aside", async () => {
  const r = await run(["migrate", file(V1)]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  const api = Buffer.from(migrate(Buffer.from(V1)));
  assert.equal(withoutIds(r.stdout), withoutIds(api.toString("utf8")));
  assert.notEqual(withoutIds(r.stdout), r.stdout, "ids were given");
  // by hand: the header gets version 3, each entry an id and its predecessor as parent
  const [header, question, answer] = entries(r.stdout);
  assert.equal(header.version, 3);
  assert.equal(question.parentId, null);
  assert.equal(answer.parentId, question.id);
  assert.match(answer.id, /^[0-9a-f]{8}$/);
});

test("migrate: a v3 file comes out byte for byte, invalid UTF-8 included; stdin too", async () => {
  const bytes = Buffer.concat([Buffer.from(CLEAN), Buffer.from([0xff, 0xfe, 0x0a])]);
  const r = await run(["migrate", file(bytes)]);
  assert.equal(r.code, 0);
  assert.ok(r.bytes.equals(bytes));
  const stdin = await run(["migrate", "-"], { stdin: bytes });
  assert.ok(stdin.bytes.equals(bytes));
});

test("migrate -o: a new file; an existing OUT is refused and left alone", async () => {
  const out = f.path("out.jsonl");
  const r = await run(["migrate", file(V1), "-o", out]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "");
  assert.equal(entries(readFileSync(out, "utf8"))[0].version, 3);
  const again = await run(["migrate", file(V1), "--output", out]);
  assert.equal(again.code, 2);
  assert.equal(again.stderr, `session-tree migrate: ${out}: already exists\n`);
  assert.equal(entries(readFileSync(out, "utf8")).length, 3);
});

test("migrate --in-place: the file becomes v3, its mode is kept, nothing else is left", async () => {
  const path = file(V1, 0o640);
  const r = await run(["migrate", "--in-place", path]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `${path}: migrated to version 3\n`);
  const after = readFileSync(path, "utf8");
  assert.equal(entries(after)[0].version, 3);
  assert.equal(withoutIds(after), withoutIds(Buffer.from(migrate(Buffer.from(V1))).toString("utf8")));
  assert.equal(statSync(path).mode & 0o777, 0o640);
  assert.deepEqual(leftovers(), []);
});

test("migrate --in-place --backup keeps the old bytes in FILE.bak, and refuses to overwrite a .bak", async () => {
  const path = file(V1);
  const r = await run(["migrate", "--in-place", "--backup", path]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `${path}: migrated to version 3 (the old file is ${path}.bak)\n`);
  assert.equal(readFileSync(`${path}.bak`, "utf8"), V1);
  // the same again: FILE.bak exists now
  const other = file(V1);
  writeFileSync(`${other}.bak`, "precious");
  const again = await run(["migrate", "--in-place", "--backup", other]);
  assert.equal(again.code, 2);
  assert.equal(again.stderr, `session-tree migrate: ${other}.bak: already exists; ${other} is unchanged\n`);
  assert.equal(readFileSync(other, "utf8"), V1);
  assert.equal(readFileSync(`${other}.bak`, "utf8"), "precious");
  assert.deepEqual(leftovers(), []);
});

test("migrate --in-place: a v3 file is not rewritten (no write at all)", async () => {
  const path = file(CLEAN);
  const before = statSync(path);
  const writes = [];
  const fs = {
    ...realFs,
    open: (p, flags, ...rest) => {
      if (flags !== "r" && flags !== undefined) writes.push(p);
      return realFs.open(p, flags, ...rest);
    },
    rename: (...args) => writes.push(args) && realFs.rename(...args),
    copyFile: (...args) => writes.push(args) && realFs.copyFile(...args),
  };
  const r = await run(["migrate", "--in-place", "--backup", path], { fs });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `${path}: already version 3, not rewritten\n`);
  assert.deepEqual(writes, []);
  assert.equal(statSync(path).ino, before.ino);
  assert.equal(statSync(path).mtimeMs, before.mtimeMs);
  assert.equal(readFileSync(path, "utf8"), CLEAN);
  assert.throws(() => statSync(`${path}.bak`), { code: "ENOENT" });
});

test("migrate --in-place interrupted between the write and the rename: the original is intact", async () => {
  const path = file(V1);
  const fs = {
    ...realFs,
    rename: async () => {
      throw Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" });
    },
  };
  const r = await run(["migrate", "--in-place", path], { fs });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `session-tree migrate: ${path}: EIO: i/o error, rename; ${path} is unchanged\n`);
  assert.equal(readFileSync(path, "utf8"), V1);
  assert.deepEqual(leftovers(), [], "the temporary file is removed");
});

test("migrate --in-place interrupted half-way through the write (disk full): the original is intact", async () => {
  const path = file(V1);
  const fs = {
    ...realFs,
    open: async (p, ...rest) => {
      const handle = await realFs.open(p, ...rest);
      if (!p.endsWith(".tmp")) return handle;
      return {
        writeFile: async (data) => {
          await handle.writeFile(data.subarray(0, 10)); // a part reaches the disk, then:
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
        },
        sync: () => handle.sync(),
        close: () => handle.close(),
      };
    },
  };
  const r = await run(["migrate", "--in-place", path], { fs });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `session-tree migrate: ${path}: no space left on device; ${path} is unchanged\n`);
  assert.equal(readFileSync(path, "utf8"), V1);
  assert.deepEqual(leftovers(), []);
});

test("migrate --in-place: several files, one missing: the others are migrated, exit 2; --json", async () => {
  const [a, b] = [file(V1), file(CLEAN)];
  const missing = f.path("missing.jsonl");
  const r = await run(["migrate", "--in-place", "--json", a, missing, b]);
  assert.equal(r.code, 2);
  assert.deepEqual(JSON.parse(r.stdout), [
    { file: a, status: "migrated" },
    { file: missing, status: "error", error: `${missing}: no such file or directory` },
    { file: b, status: "current" },
  ]);
  assert.equal(r.stderr, `session-tree migrate: ${missing}: no such file or directory\n`);
  assert.equal(entries(readFileSync(a, "utf8"))[0].version, 3);
});

test("migrate --in-place through a symbolic link: the link stays, its target is migrated", async () => {
  const target = file(V1);
  const link = f.path("link.jsonl");
  symlinkSync(target, link);
  const r = await run(["migrate", "--in-place", link]);
  assert.equal(r.code, 0);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.equal(entries(readFileSync(target, "utf8"))[0].version, 3);
});

test("migrate: bad usage exits 2 with a one-line reason and touches nothing", async () => {
  const path = file(V1);
  for (const argv of [
    ["migrate"],
    ["migrate", path, "--backup"],
    ["migrate", path, "--json"],
    ["migrate", path, path],
    ["migrate", "--in-place", path, "-o", f.path("x.jsonl")],
    ["migrate", "--in-place", "-"],
    ["migrate", f.path("missing.jsonl")],
    ["migrate", path, "--force"],
  ]) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
  }
  assert.equal(readFileSync(path, "utf8"), V1);
});

// A signal kills the process mid-migration (the migration is synchronous: no JS
// handler could run); a guard of its own removes what it was writing.
const BIN = new URL("../../pkg/bin/session-tree.js", import.meta.url).pathname;

/** A v1 file of `count` messages (each about 100 bytes). */
function bigV1(count) {
  const lines = [V1.split("\n")[0]];
  const message = V1.split("\n")[1];
  for (let i = 0; i < count; i++) lines.push(message);
  return `${lines.join("\n")}\n`;
}

/** Resolves once `check()` is true, asking every few milliseconds; rejects after `limit` ms (a hang, not a timing). */
async function until(check, what, limit = 60_000) {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > limit) throw new Error(`never: ${what}`);
    await new Promise((done) => setTimeout(done, 2));
  }
}

for (const [signal, argv] of [
  ["SIGINT", ["--in-place"]],
  ["SIGTERM", ["--in-place", "--backup"]],
  ["SIGKILL", ["--in-place"]],
  ["SIGINT", ["-o"]],
]) {
  test(`migrate ${argv.join(" ")} killed by ${signal} mid-write: the file whole, nothing left beside it`, async () => {
    const d = folder();
    try {
      const text = bigV1(200_000);
      const path = d.path("big.jsonl");
      writeFileSync(path, text);
      const out = d.path("out.jsonl");
      const args = argv[0] === "-o" ? ["migrate", path, "-o", out] : ["migrate", ...argv, path];
      const child = spawn(process.execPath, [BIN, ...args], {
        // small pieces: the migration takes long enough to be caught in the middle
        env: { ...process.env, SESSION_TREE_PIECE_SIZE: "512" },
        stdio: "ignore",
        // a group of its own, as a shell job: a terminal's Ctrl-C goes to the whole group
        detached: true,
      });
      const exited = new Promise((done) => child.on("exit", (code, sig) => done(sig ?? code)));
      const writing = () =>
        readdirSync(d.dir).some((name) => name.endsWith(".tmp")) ||
        (argv[0] === "-o" && statSync(out, { throwIfNoEntry: false })?.size > 0);
      await until(writing, "the new file is being written");
      process.kill(signal === "SIGINT" ? -child.pid : child.pid, signal);
      assert.equal(await exited, signal, "the signal ended it, mid-write");
      await until(() => readdirSync(d.dir).length === 1, `only big.jsonl left: ${readdirSync(d.dir)}`);
      assert.equal(readFileSync(path, "utf8"), text, "the original is whole");
    } finally {
      d.cleanup();
    }
  });
}
