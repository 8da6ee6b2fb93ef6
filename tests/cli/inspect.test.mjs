// `session-tree inspect`: each problem with its line, and the exit codes.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { BROKEN, CLEAN, folder } from "./fixtures.mjs";
import { run } from "./run.mjs";

const f = folder({ "clean.jsonl": CLEAN, "broken.jsonl": BROKEN, "bom.jsonl": `\ufeff${CLEAN}` });
after(f.cleanup);

test("inspect: a clean file prints ok and exits 0", async () => {
  const r = await run(["inspect", f.path("clean.jsonl")]);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, `${f.path("clean.jsonl")}: ok\n`, ""]);
});

test("inspect: a broken file prints each problem with its line number and exits 1", async () => {
  const r = await run(["inspect", f.path("broken.jsonl")]);
  assert.equal(r.code, 1);
  const lines = r.stdout.trimEnd().split("\n");
  // BROKEN: line 3 is cut off mid-object; line 4's parent "nope" does not exist
  assert.equal(lines.length, 2);
  assert.ok(lines[0].startsWith(`${f.path("broken.jsonl")}:3: malformed-line: column `), lines[0]);
  assert.ok(lines[1].startsWith(`${f.path("broken.jsonl")}:4: orphan: `), lines[1]);
  assert.match(lines[1], /"nope"/);
  assert.equal(r.stderr, "");
});

test("inspect: a whole-file problem has no line number; several files; stdin", async () => {
  const r = await run(["inspect", f.path("bom.jsonl"), "-", f.path("clean.jsonl")], { stdin: BROKEN });
  assert.equal(r.code, 1);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^\S+bom\.jsonl(:1)?: bom: /);
  assert.ok(lines[1].startsWith("<stdin>:3: malformed-line: "));
  assert.ok(lines[2].startsWith("<stdin>:4: orphan: "));
  assert.equal(lines[3], `${f.path("clean.jsonl")}: ok`);
});

test("inspect --json: the diagnostics per file", async () => {
  const r = await run(["inspect", "--json", f.path("broken.jsonl"), f.path("clean.jsonl")]);
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(
    report.map((x) => [x.file, x.problems.map((p) => [p.kind, p.line, p.entryId])]),
    [
      [
        f.path("broken.jsonl"),
        [
          ["malformed-line", 3, undefined],
          ["orphan", 4, "a1"],
        ],
      ],
      [f.path("clean.jsonl"), []],
    ],
  );
});

test("inspect: a missing or unreadable file exits 2 with a one-line reason; the others are still checked", async () => {
  const r = await run(["inspect", f.path("missing.jsonl"), f.path("broken.jsonl")]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `session-tree inspect: ${f.path("missing.jsonl")}: no such file or directory\n`);
  assert.match(r.stdout, /:3: malformed-line/);
  const dir = await run(["inspect", f.dir]);
  assert.deepEqual([dir.code, dir.stderr], [2, `session-tree inspect: ${f.dir}: is a directory\n`]);
  const json = await run(["inspect", "--json", f.path("missing.jsonl")]);
  assert.equal(json.code, 2);
  assert.deepEqual(JSON.parse(json.stdout), [
    { file: f.path("missing.jsonl"), error: `${f.path("missing.jsonl")}: no such file or directory` },
  ]);
  const none = await run(["inspect"]);
  assert.deepEqual([none.code, none.stdout], [2, ""]);
});

test("inspect: colour only on a TTY without NO_COLOR", async () => {
  const plain = await run(["inspect", f.path("broken.jsonl")]);
  const tty = await run(["inspect", f.path("broken.jsonl")], { isTTY: true });
  const noColor = await run(["inspect", f.path("broken.jsonl")], { isTTY: true, env: { NO_COLOR: "yes" } });
  assert.ok(tty.stdout.includes("\x1b[31mmalformed-line\x1b[39m"));
  assert.ok(!plain.stdout.includes("\x1b["));
  assert.equal(noColor.stdout, plain.stdout);
});
