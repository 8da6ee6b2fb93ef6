// `session-tree info` and the program's own options (--help, --version,
// unknown commands and options).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { BROKEN, CLEAN, folder } from "./fixtures.mjs";
import { run } from "./run.mjs";

process.env.TZ = "UTC";
// oh-my-pi writes a title line before the header
const TITLE =
  '{"type":"title","v":1,"title":"Build fix","source":"auto","updatedAt":"2025-03-01T10:00:00Z","pad":"  "}';
const f = folder({
  "clean.jsonl": CLEAN,
  "broken.jsonl": BROKEN,
  "omp.jsonl": `${TITLE}\n${CLEAN}`,
  "no-header.jsonl": `${TITLE}\n{"type":"label"}\n`,
});
after(f.cleanup);
const COMMANDS = ["info", "list", "inspect", "migrate", "context", "tree", "branch"];
const pkgVersion = JSON.parse(readFileSync(new URL("../../pkg/package.json", import.meta.url), "utf8")).version;

test("no arguments: usage on stderr, exit 2", async () => {
  const r = await run([]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^usage: session-tree <command>/);
});

test("--help, -h and help list every command; --version prints the package's", async () => {
  for (const argv of [["--help"], ["-h"], ["help"]]) {
    const r = await run(argv);
    assert.equal(r.code, 0);
    for (const name of COMMANDS) {
      assert.match(r.stdout, new RegExp(`^  ${name} `, "m"), `${argv}: ${name}`);
    }
  }
  const v = await run(["--version"]);
  assert.deepEqual([v.code, v.stdout], [0, `${pkgVersion}\n`]);
});

test("every command has --help, -h and `help NAME`, on stdout with exit 0", async () => {
  for (const name of COMMANDS) {
    for (const argv of [
      [name, "--help"],
      [name, "-h"],
      ["help", name],
    ]) {
      const r = await run(argv);
      assert.equal(r.code, 0, argv.join(" "));
      assert.match(r.stdout, new RegExp(`^usage: session-tree ${name}\\b`), argv.join(" "));
      assert.equal(r.stderr, "");
    }
  }
});

test("unknown command, unknown option, missing argument: exit 2 with a one-line reason", async () => {
  for (const argv of [
    ["frobnicate"],
    ["--frob"],
    ["help", "frobnicate"],
    ["info", "--frob", f.path("clean.jsonl")],
    ["info"],
  ]) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").length, 2, `one line: ${JSON.stringify(r.stderr)}`);
    assert.match(r.stderr, /^session-tree/);
  }
});

test("info: the summary of a file", async () => {
  const r = await run(["info", f.path("clean.jsonl")]);
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    [
      f.path("clean.jsonl"),
      "id:            sess-clean",
      "name:          Build fix",
      "cwd:           /work/app",
      "created:       2025-03-01 10:00",
      "modified:      2025-03-01 10:00",
      "messages:      7",
      "first message: Fix the build",
      "",
    ].join("\n"),
  );
  assert.equal(r.stderr, "");
});

test("info: a title line before the header (oh-my-pi) does not hide the session", async () => {
  const [clean, omp] = await Promise.all([run(["info", f.path("clean.jsonl")]), run(["info", f.path("omp.jsonl")])]);
  assert.equal(omp.code, 0);
  assert.equal(omp.stderr, "");
  assert.equal(omp.stdout, clean.stdout.replace(f.path("clean.jsonl"), f.path("omp.jsonl")));
  assert.match(omp.stdout, /^id: +sess-clean$/m);
});

test("info --json: several files, stdin included; dates as ISO strings", async () => {
  const r = await run(["info", "--json", f.path("clean.jsonl"), "-"], { stdin: BROKEN });
  assert.equal(r.code, 0);
  assert.deepEqual(JSON.parse(r.stdout), [
    {
      file: f.path("clean.jsonl"),
      info: {
        id: "sess-clean",
        name: "Build fix",
        cwd: "/work/app",
        parentSession: null,
        created: "2025-03-01T10:00:00.000Z",
        modified: "2025-03-01T10:00:09.000Z",
        messageCount: 7,
        firstMessage: "Fix the build",
      },
    },
    {
      file: "-",
      info: {
        id: "sess-broken",
        name: null,
        cwd: "/work/app",
        parentSession: null,
        created: "2025-03-01T10:00:00.000Z",
        modified: "2025-03-01T10:00:02.000Z",
        messageCount: 2,
        firstMessage: "hi",
      },
    },
  ]);
});

test("info: a file that is no session exits 1; a missing file exits 2, the others still shown", async () => {
  const notSession = await run(["info", f.path("no-header.jsonl")]);
  assert.equal(notSession.code, 1);
  assert.match(notSession.stderr, /no-header\.jsonl: not a pi session \(no session header\)/);
  const missing = await run(["info", f.path("nope.jsonl"), f.path("clean.jsonl")]);
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, `session-tree info: ${f.path("nope.jsonl")}: no such file or directory\n`);
  assert.match(missing.stdout, /sess-clean/);
  const dir = await run(["info", f.dir]);
  assert.equal(dir.code, 2);
  assert.match(dir.stderr, /is a directory/);
});

test("info: colour only on a TTY, and not with NO_COLOR", async () => {
  const plain = await run(["info", f.path("clean.jsonl")]);
  assert.ok(!plain.stdout.includes("\x1b["));
  const tty = await run(["info", f.path("clean.jsonl")], { isTTY: true });
  assert.ok(tty.stdout.includes("\x1b[1m"));
  const noColor = await run(["info", f.path("clean.jsonl")], { isTTY: true, env: { NO_COLOR: "1" } });
  assert.equal(noColor.stdout, plain.stdout);
  const emptyNoColor = await run(["info", f.path("clean.jsonl")], { isTTY: true, env: { NO_COLOR: "" } });
  assert.equal(emptyNoColor.stdout, tty.stdout);
});
