// The commands read a file through a file source, a piece at a time: with pieces of a few
// bytes (SESSION_TREE_PIECE_SIZE), info, inspect, tree, context, branch and list print what
// they print when the same file is read whole (an injected file system gives them bytes).
//
//   CLI_SOURCE_SEED=…   replays a run (default: random, printed)

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { migrate, sessionInfo } from "session-tree";
import { UsageError, withInput } from "../../pkg/cli/io.js";
import { caseSeed, envSeed, Rng } from "../shared/rng.mjs";
import { generateSession, generateWithHeader } from "../shared/sessions.mjs";
import { BROKEN, CLEAN, folder, V1 } from "./fixtures.mjs";
import { run } from "./run.mjs";

process.env.TZ = "UTC";
const MASTER = envSeed("CLI_SOURCE_SEED");
const COUNT = 6;

const files = { "clean.jsonl": CLEAN, "broken.jsonl": BROKEN, "v1.jsonl": V1 };
for (let k = 0; k < COUNT; k++) {
  const seed = caseSeed(MASTER, k);
  const { text } = generateSession(seed, { maxEntries: 40, pi16: k % 2 === 0 });
  files[`gen-${k}.jsonl`] = k % 3 === 2 ? text : migrate(text);
}
// Over a MiB: `list` reads such a file through a source (smaller ones whole).
const big = generateWithHeader(caseSeed(MASTER, 99), { maxEntries: 40 }).text.trimEnd().split("\n");
const pad = { role: "user", content: "é".repeat(600_000), timestamp: 1 };
big.push(
  JSON.stringify({
    type: "message",
    id: "pad00001",
    parentId: null,
    timestamp: "2025-01-01T00:00:00.000Z",
    message: pad,
  }),
  // A second message of its own: a generated session may have none (about 2% of seeds).
  JSON.stringify({
    type: "message",
    id: "pad00002",
    parentId: "pad00001",
    timestamp: "2025-01-01T00:00:01.000Z",
    message: { role: "user", content: "ü", timestamp: 2 },
  }),
);
files["big.jsonl"] = migrate(`${big.join("\n")}\n`);
const f = folder(files);
after(f.cleanup);

/** What a branch prints, less what it draws afresh: the new header's id and time, new label ids. */
function settled(stdout) {
  let out = stdout.replace(/"id":"[0-9a-f-]{36}","timestamp":"[^"]*"/, '"id":"new","timestamp":"now"');
  const labels = [...stdout.matchAll(/"type":"label","id":"([0-9a-f]{8})"/g)].map((m) => m[1]);
  for (const [k, id] of labels.entries()) out = out.replaceAll(`"${id}"`, `"label${k}"`);
  return out;
}

/** Ids of some entries of a file: the first, the middle and the last with a string id. */
function someIds(text) {
  const ids = text
    .split("\n")
    .map((line) => /"id":"([^"]+)","parentId"/.exec(line)?.[1])
    .filter((id) => id !== undefined);
  return [...new Set([ids[0], ids[ids.length >> 1], ids.at(-1)])].filter((id) => id !== undefined);
}

test("the commands read files by piece and print what they print of the whole file", async () => {
  const rng = new Rng(MASTER);
  let compared = 0;
  for (const [name, text] of Object.entries(files)) {
    if (name === "big.jsonl") continue; // (a MiB in pieces of a few bytes: minutes)
    const path = f.path(name);
    const argvs = [
      ["info", "--json", path],
      ["info", path],
      ["inspect", "--json", path],
    ];
    // A v1 or v2 file gets fresh ids each time it is migrated: only info and inspect compare.
    const current = migrate(text) === text;
    if (current) {
      argvs.push(["tree", "--json", "--filter", "all", path], ["tree", path]);
      argvs.push(["context", "--json", "--system", path], ["context", path]);
    }
    for (const id of current ? someIds(text) : []) {
      argvs.push(["context", "--json", "--leaf", id, path], ["tree", "--leaf", id, path]);
      argvs.push(["branch", "--leaf", id, path]);
    }
    for (const argv of argvs) {
      const pieceSize = String(rng.int(1, 64));
      const whole = await run(argv, { fs: nodeFs });
      const pieces = await run(argv, { env: { SESSION_TREE_PIECE_SIZE: pieceSize } });
      const shown = (r) => [r.code, argv[0] === "branch" ? settled(r.stdout) : r.stdout, r.stderr];
      assert.deepEqual(
        shown(pieces),
        shown(whole),
        `${argv.join(" ")}, pieces of ${pieceSize} (CLI_SOURCE_SEED=${MASTER})`,
      );
      compared++;
    }
  }
  assert.ok(compared > 100);
});

test("list reads a file over a MiB by piece, with what its bytes give", async () => {
  const whole = await run(["list", "--json", f.dir], { fs: nodeFs });
  const pieces = await run(["list", "--json", f.dir], { env: { SESSION_TREE_PIECE_SIZE: "7" } });
  assert.equal(pieces.code, whole.code);
  assert.equal(pieces.stdout, whole.stdout);
  const row = JSON.parse(pieces.stdout).sessions.find((r) => r.path.endsWith("big.jsonl"));
  assert.ok(row.messageCount > 1, "the big file is listed with its messages");
});

test("a file that cannot be opened is named, exit 2", async () => {
  for (const command of ["inspect", "tree", "context", "info"]) {
    const r = await run([command, f.path("missing.jsonl")]);
    assert.equal(r.code, 2, command);
    assert.match(r.stderr, /missing\.jsonl: no such file or directory/, command);
  }
});

test("a file rewritten while a command reads it is an error of its input, naming it", async () => {
  const path = f.path("changing.jsonl");
  writeFileSync(path, CLEAN);
  const io = { cwd: f.dir, env: {} };
  await assert.rejects(
    withInput(io, path, (input) => {
      writeFileSync(path, CLEAN.replaceAll("a", "b"));
      return sessionInfo(input);
    }),
    (error) => error instanceof UsageError && error.message.includes(`${path} changed while it was read`),
  );
});

test("a context too long for a JS string is an error of its input, naming the file", async () => {
  // The library's error when a value is longer than any JS string (its test is in
  // reliability/scale.test.mjs; a real one needs over 512 MiB of text).
  const limit = new RangeError(
    "buildSessionContext: the context could not be read back: 900 MB of JSON, its largest value 900 MB (Invalid string length)",
  );
  const path = f.path("clean.jsonl");
  writeFileSync(path, CLEAN);
  await assert.rejects(
    withInput({ cwd: f.dir, env: {} }, path, () => {
      throw limit;
    }),
    (error) => error instanceof UsageError && error.message === `${path}: ${limit.message}`,
  );
  // Any other RangeError is the program's own fault, passed on as it is.
  const overflow = new RangeError("Maximum call stack size exceeded");
  await assert.rejects(
    withInput({ cwd: f.dir, env: {} }, path, () => {
      throw overflow;
    }),
    (error) => error === overflow,
  );
});

// ---- migrate: streamed by piece, in bounded memory

/** Old files: the v1 fixture and generated v1 and v2 sessions, each longer than a piece. */
const old = { "v1.jsonl": V1 };
for (let k = 200; Object.keys(old).length < 5; k++) {
  const { text, version } = generateSession(caseSeed(MASTER, k), { maxEntries: 30 });
  if (version < 3 && text.length > 64) old[`old-${k}-v${version}.jsonl`] = text;
}

const NEW_ID = /"[0-9a-f]{8}"/g;
/** `text` with the ids a migration drew (the 8-hex ids not in `input`) named by rank. */
function drawnIdsRanked(text, input) {
  const kept = new Set(input.match(NEW_ID) ?? []);
  const rank = new Map();
  return text.replace(NEW_ID, (id) => {
    if (kept.has(id)) return id;
    if (!rank.has(id)) rank.set(id, `"new#${rank.size + 1}"`);
    return rank.get(id);
  });
}

test("migrate by piece, to stdout, -o and in place: migrate() of the bytes, new ids aside", async () => {
  const rng = new Rng(MASTER);
  for (const [name, text] of Object.entries(old)) {
    const expected = drawnIdsRanked(Buffer.from(migrate(Buffer.from(text))).toString("utf8"), text);
    assert.notEqual(expected, text, `${name} is old`);
    const env = { SESSION_TREE_PIECE_SIZE: String(rng.int(1, 64)) };
    const why = `${name}, pieces of ${env.SESSION_TREE_PIECE_SIZE} (CLI_SOURCE_SEED=${MASTER})`;
    const path = f.path(name);
    writeFileSync(path, text);
    const stdout = await run(["migrate", path], { env });
    assert.equal(stdout.code, 0, why);
    assert.equal(stdout.stderr, "", why);
    assert.equal(drawnIdsRanked(stdout.stdout, text), expected, why);
    const out = f.path(`${name}.out`);
    const o = await run(["migrate", path, "-o", out], { env });
    assert.equal(o.code, 0, why);
    assert.equal(drawnIdsRanked(readFileSync(out, "utf8"), text), expected, why);
    const copy = f.path(`${name}.copy`);
    writeFileSync(copy, text);
    const inPlace = await run(["migrate", "--in-place", copy], { env });
    assert.equal(inPlace.stdout, `${copy}: migrated to version 3\n`, why);
    assert.equal(drawnIdsRanked(readFileSync(copy, "utf8"), text), expected, why);
    assert.equal(readFileSync(path, "utf8"), text, "the source is never written");
  }
  // A current file: stdout and -o give its bytes as they are; in place, it is not rewritten.
  const clean = f.path("clean.jsonl");
  const env = { SESSION_TREE_PIECE_SIZE: "5" };
  assert.equal((await run(["migrate", clean], { env })).stdout, CLEAN);
  await run(["migrate", clean, "-o", f.path("clean.out")], { env });
  assert.equal(readFileSync(f.path("clean.out"), "utf8"), CLEAN);
  const mtime = statSync(clean).mtimeMs;
  const r = await run(["migrate", "--in-place", clean], { env });
  assert.equal(r.stdout, `${clean}: already version 3, not rewritten\n`);
  assert.equal(statSync(clean).mtimeMs, mtime);
  assert.deepEqual(
    readdirSync(f.dir).filter((n) => n.endsWith(".tmp")),
    [],
  );
});

test("migrate --in-place where it cannot write: exit 2, the file as it was, nothing left", () => {
  // Root writes anywhere: as root the command runs as the unprivileged user `nobody`.
  const NOBODY = 65534;
  const dir = mkdtempSync(join(os.tmpdir(), "session-tree-ro-"));
  try {
    const path = join(dir, "old.jsonl");
    writeFileSync(path, V1, { mode: 0o644 });
    chmodSync(dir, 0o555);
    const bin = new URL("../../pkg/bin/session-tree.js", import.meta.url).pathname;
    const asNobody = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
    const r = spawnSync(process.execPath, [bin, "migrate", "--in-place", path], {
      encoding: "utf8",
      env: { ...process.env, SESSION_TREE_PIECE_SIZE: "7" },
      ...asNobody,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `session-tree migrate: ${path}: permission denied; ${path} is unchanged\n`);
    assert.equal(readFileSync(path, "utf8"), V1);
    assert.deepEqual(readdirSync(dir), ["old.jsonl"]);
  } finally {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file truncated or rewritten while migrate reads it: its clear error, nothing written", async () => {
  const changes = {
    truncated: (path) => writeFileSync(path, V1.slice(0, 40)),
    rewritten: (path) => writeFileSync(path, V1.replaceAll("a", "b")),
  };
  for (const [how, change] of Object.entries(changes)) {
    for (const argv of [[], ["--in-place"], ["-o", f.path(`${how}.out`)]]) {
      const path = f.path(`${how}.jsonl`);
      writeFileSync(path, V1);
      // The progress meter writes at the first read (a terminal, no delay): the file changes then.
      let changed = false;
      const stderr = {
        isTTY: true,
        text: "",
        write(data) {
          if (!changed) change(path);
          changed = true;
          this.text += String(data);
        },
      };
      const r = await run(["migrate", ...argv, path], {
        env: { SESSION_TREE_PIECE_SIZE: "16" },
        extra: { stderr, progressAfterMs: 0 },
      });
      const why = `${how}, ${argv.join(" ") || "stdout"}`;
      assert.ok(changed, why);
      assert.equal(r.code, 2, why);
      assert.match(stderr.text, new RegExp(`${path} changed while it was read \\(it `), why);
      assert.equal(r.stdout, "", why);
      assert.deepEqual(
        readdirSync(f.dir).filter((n) => n.endsWith(".tmp") || n === `${how}.out`),
        [],
        why,
      );
    }
  }
});
