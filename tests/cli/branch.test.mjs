// `session-tree branch`: the path to a leaf as a new session (pi's
// createBranchedSession), to stdout or a new file.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { after, test } from "node:test";
import { Session } from "session-tree";
import { CLEAN, folder } from "./fixtures.mjs";
import { run } from "./run.mjs";

const f = folder({ "clean.jsonl": CLEAN });
after(f.cleanup);
const entries = (text) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

test("branch --leaf: header, the path chained, the path's label re-added at the end (by hand)", async () => {
  const r = await run(["branch", f.path("clean.jsonl"), "--leaf", "a2"]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  const [header, ...rest] = entries(r.stdout);
  assert.equal(header.type, "session");
  assert.equal(header.version, 3);
  assert.equal(header.cwd, "/work/app");
  assert.equal(header.parentSession, f.path("clean.jsonl"));
  assert.notEqual(header.id, "sess-clean");
  // the path to a2 is u1 → a1 → r1 → a2; l1 labels a2 and comes back last, with a new id
  assert.deepEqual(
    rest.map((e) => [e.type, e.parentId]),
    [
      ["message", null],
      ["message", "u1"],
      ["message", "a1"],
      ["message", "r1"],
      ["label", "a2"],
    ],
  );
  assert.deepEqual(
    rest.slice(0, 4).map((e) => e.id),
    ["u1", "a1", "r1", "a2"],
  );
  assert.equal(rest[4].targetId, "a2");
  assert.equal(rest[4].label, "diagnosis");
});

test("branch: the same entries as Session.createBranchedSession of the API, header ids and times aside", async () => {
  const r = await run(["branch", f.path("clean.jsonl"), "--leaf", "a3"]);
  const api = Session.open(CLEAN).createBranchedSession("a3", { parentSession: f.path("clean.jsonl") });
  const strip = (text) => entries(text).map((e) => (e.type === "session" ? { ...e, id: "…", timestamp: "…" } : e));
  assert.deepEqual(strip(r.stdout), strip(api));
});

test("branch -o OUT writes a new file; an existing OUT is refused; stdin has no parentSession", async () => {
  const out = f.path("branch.jsonl");
  const r = await run(["branch", f.path("clean.jsonl"), "--leaf", "u3", "-o", out]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "");
  assert.deepEqual(
    entries(readFileSync(out, "utf8"))
      .map((e) => e.id)
      .slice(1),
    ["u1", "u3"],
  );
  writeFileSync(f.path("taken.jsonl"), "mine");
  const taken = await run(["branch", f.path("clean.jsonl"), "--leaf", "u3", "-o", f.path("taken.jsonl")]);
  assert.equal(taken.code, 2);
  assert.equal(taken.stderr, `session-tree branch: ${f.path("taken.jsonl")}: already exists\n`);
  assert.equal(readFileSync(f.path("taken.jsonl"), "utf8"), "mine");
  const stdin = await run(["branch", "-", "--leaf", "u1"], { stdin: CLEAN });
  assert.equal(entries(stdin.stdout)[0].parentSession, undefined);
});

test("branch: no --leaf, an unknown leaf, missing file, two files: exit 2 with one line", async () => {
  for (const argv of [
    ["branch", f.path("clean.jsonl")],
    ["branch", f.path("clean.jsonl"), "--leaf", "zzz"],
    ["branch", f.path("missing.jsonl"), "--leaf", "u1"],
    ["branch", f.path("clean.jsonl"), f.path("clean.jsonl"), "--leaf", "u1"],
    ["branch"],
  ]) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
  }
});
