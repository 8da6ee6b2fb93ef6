// The command under hostile use (docs/hunt-cli-serve.md): pipes and devices
// where a file is expected, a FIFO in a sessions folder, an output that cannot
// be written. Run as a child process: these are the process's own streams.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CLEAN, folder, V1 } from "./fixtures.mjs";

const bin = fileURLToPath(new URL("../../pkg/bin/session-tree.js", import.meta.url));
const f = folder({ "clean.jsonl": CLEAN, "v1.jsonl": V1 });
after(f.cleanup);
const linux = process.platform === "linux";
// A hang is the bug some of these look for: a time limit turns it into a failure.
const cli = (args, { input, shell = false } = {}) =>
  shell
    ? spawnSync("bash", ["-c", args], { input, encoding: "utf8", timeout: 20_000, env: { ...process.env, BIN: bin } })
    : spawnSync(process.execPath, [bin, ...args], { input, encoding: "utf8", timeout: 20_000 });
const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;

test("a pipe as FILE (<(…), /dev/stdin) reads as `-` does", { skip: !linux }, () => {
  for (const [args, file] of [
    [["tree"], "clean.jsonl"],
    [["context", "--json"], "clean.jsonl"],
    [["inspect"], "clean.jsonl"],
    [["migrate"], "v1.jsonl"],
    [["branch", "--leaf", "a1"], "clean.jsonl"],
    [["usage", "--by", "branch"], "clean.jsonl"],
  ]) {
    const what = `${args.join(" ")} ${file}`;
    const bytes = file === "v1.jsonl" ? V1 : CLEAN;
    const stdin = cli([...args, "-"], { input: bytes });
    const piped = cli(`node "$BIN" ${args.map(q).join(" ")} <(cat ${q(f.path(file))})`, { shell: true });
    const devStdin = cli(`cat ${q(f.path(file))} | node "$BIN" ${args.map(q).join(" ")} /dev/stdin`, { shell: true });
    for (const [how, r] of [
      ["<(…)", piped],
      ["/dev/stdin", devStdin],
    ]) {
      assert.equal(r.status, stdin.status, `${what} ${how}: ${r.stderr}`);
      if (args[0] === "migrate") {
        // v1 ids are drawn at random: the same lines, the same shape
        assert.equal(r.stdout.split("\n").length, stdin.stdout.split("\n").length, `${what} ${how}`);
        assert.match(r.stdout, /"version":3/, `${what} ${how}`);
      } else if (args[0] === "branch") {
        // a new header (id, time) each run; the path's entries are the same
        assert.deepEqual(r.stdout.split("\n").slice(1), stdin.stdout.split("\n").slice(1), `${what} ${how}`);
      } else if (args[0] === "inspect") {
        assert.equal(r.stdout.replace(/^[^:]*:/, ""), stdin.stdout.replace(/^[^:]*:/, ""), `${what} ${how}`);
      } else assert.equal(r.stdout, stdin.stdout, `${what} ${how}`);
    }
  }
});

test("a FIFO or a link to a device in a sessions folder is skipped, not waited on", { skip: !linux }, () => {
  const d = folder({ "clean.jsonl": CLEAN });
  try {
    execFileSync("mkfifo", [d.path("pipe.jsonl")]);
    symlinkSync("/dev/zero", d.path("zero.jsonl"));
    const list = cli(["list", "--json", d.dir]);
    assert.equal(list.status, 1, list.stderr);
    const out = JSON.parse(list.stdout);
    assert.deepEqual(
      out.sessions.map((s) => s.path),
      [d.path("clean.jsonl")],
    );
    assert.deepEqual(out.skipped.map((s) => s.path).sort(), [d.path("pipe.jsonl"), d.path("zero.jsonl")]);
    const usage = cli(["usage", "--json", d.dir]);
    assert.equal(usage.status, 1, usage.stderr);
    assert.match(usage.stderr, /pipe\.jsonl/);
    assert.match(usage.stderr, /zero\.jsonl/);
    const inPlace = cli(["migrate", "--in-place", d.path("pipe.jsonl")]);
    assert.equal(inPlace.status, 2);
    assert.equal(inPlace.stderr, `session-tree migrate: ${d.path("pipe.jsonl")}: not a regular file\n`);
  } finally {
    d.cleanup();
  }
});

test("an output that cannot be written is one line on stderr and exit 2, not a stack", { skip: !linux }, () => {
  for (const args of [
    ["tree", f.path("clean.jsonl")],
    ["info", f.path("clean.jsonl")],
    ["context", "--json", f.path("clean.jsonl")],
    ["migrate", f.path("v1.jsonl")],
    ["migrate", f.path("clean.jsonl")],
    ["usage", f.path("clean.jsonl")],
    ["--help"],
  ]) {
    const r = cli(`node "$BIN" ${args.map(q).join(" ")} > /dev/full`, { shell: true });
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /^session-tree( \w+)?: cannot write to standard output: no space left on device\n$/,
      args.join(" "),
    );
  }
});

test("a closed pipe ends the output quietly, exit 0", { skip: !linux }, () => {
  const big = `${f.path("big.jsonl")}`;
  const lines = [CLEAN.trimEnd()];
  for (let i = 0; i < 5000; i++)
    lines.push(
      JSON.stringify({
        type: "custom",
        id: `x${i}`,
        parentId: i ? `x${i - 1}` : "a3",
        timestamp: "2025-03-01T10:01:00.000Z",
        customType: "pad",
        data: "y".repeat(200),
      }),
    );
  spawnSync("bash", ["-c", `cat > ${q(big)}`], { input: `${lines.join("\n")}\n` });
  for (const args of [
    ["tree", "--filter", "all", big],
    ["migrate", big],
    ["context", "--json", big],
  ]) {
    const r = cli(`node "$BIN" ${args.map(q).join(" ")} | head -c 10 > /dev/null; echo "\${PIPESTATUS[0]}"`, {
      shell: true,
    });
    assert.equal(r.stdout.trim(), "0", `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr, "", args.join(" "));
  }
});

test("a file name's control characters never reach the terminal as escape sequences", async () => {
  const { run } = await import("./run.mjs");
  const names = ["e\x1b[31mred\x07.jsonl", "t\x1b]0;title\x07.jsonl", "nl\nx.jsonl"];
  const d = folder(Object.fromEntries(names.map((n) => [n, "not json\n"])));
  try {
    const cases = [
      ...names.map((n) => ["info", d.path(n)]),
      ...names.map((n) => ["tree", d.path(n)]),
      ...names.map((n) => ["context", d.path(`missing-${n}`)]),
      ...names.map((n) => ["inspect", d.path(`missing-${n}`)]),
      ["list", d.dir],
      ["usage", d.dir],
      ["serve", d.path("missing\x1b[2J")],
    ];
    for (const argv of cases) {
      const r = await run(argv);
      // every error is one line of its own; no ESC, BEL or other control character in either stream
      for (const l of r.stderr.split("\n").slice(0, -1)) assert.match(l, /^session-tree /, JSON.stringify(argv));
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
      assert.doesNotMatch(r.stderr + r.stdout, /[\x00-\x09\x0b-\x1f\x7f]/, JSON.stringify(argv));
    }
  } finally {
    d.cleanup();
  }
});

test("a bad SESSION_TREE_PIECE_SIZE is a usage error naming it, for every command that reads", async () => {
  const { run } = await import("./run.mjs");
  for (const piece of ["abc", "0", "1.5", " ", "-4"]) {
    for (const argv of [
      ["info", f.path("clean.jsonl")],
      ["tree", f.path("clean.jsonl")],
      ["context", f.path("clean.jsonl")],
      ["branch", f.path("clean.jsonl"), "--leaf", "a1"],
      ["migrate", f.path("v1.jsonl")],
    ]) {
      const r = await run(argv, { env: { SESSION_TREE_PIECE_SIZE: piece } });
      assert.equal(r.code, 2, `${piece} ${argv[0]}`);
      assert.match(
        r.stderr,
        new RegExp(`^session-tree ${argv[0]}: (.*: )?SESSION_TREE_PIECE_SIZE must be a whole number of bytes`),
        `${piece} ${argv[0]}: ${r.stderr}`,
      );
      assert.doesNotMatch(r.stderr, /unexpected error/);
    }
  }
});
