// The commands read a file through a file source, a piece at a time: with pieces of a few
// bytes (SESSION_TREE_PIECE_SIZE), info, inspect, tree, context, branch and list print what
// they print when the same file is read whole (an injected file system gives them bytes).
//
//   CLI_SOURCE_SEED=…   replays a run (default: random, printed)

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { after, test } from "node:test";
import { migrate, sessionInfo } from "session-tree";
import { UsageError, withInput } from "../../pkg/cli/io.js";
import { caseSeed, envSeed, Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";
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
const big = generateSession(caseSeed(MASTER, 99), { maxEntries: 40 }).text.trimEnd().split("\n");
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
