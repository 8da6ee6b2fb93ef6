// The package as a user gets it: `npm pack` of pkg/, installed from the
// tarball into an empty scratch project (no link, no workspace). There it is
// imported as ESM and CJS, type-checked by tsc (node16 and bundler), linted by
// publint and @arethetypeswrong/cli, and its `session-tree` command runs the
// checks of issue 14's "Done when" list.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BROKEN, CLEAN, V1 } from "../cli/fixtures.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));
const bins = fileURLToPath(new URL("../node_modules/.bin/", import.meta.url));
const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const scratch = mkdtempSync(join(os.tmpdir(), "session-tree-tarball-"));
const project = join(scratch, "project");
let tarball;
let api;

before(() => {
  // The tarball, as `npm publish` would upload it.
  const packed = JSON.parse(
    execFileSync(npm, ["pack", pkgDir, "--json", "--pack-destination", scratch], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  tarball = join(scratch, packed[0].filename);
  // An empty project that installs it: a copy in node_modules, not a link.
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, version: "1.0.0" }));
  execFileSync(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarball], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const name of readdirSync(join(here, "consumer")))
    copyFileSync(join(here, "consumer", name), join(project, name));
  copyFileSync(join(project, "consumer.ts"), join(project, "consumer.mts"));
  copyFileSync(join(project, "consumer.ts"), join(project, "consumer.cts"));
  mkdirSync(join(project, "sessions"));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const installed = () => join(project, "node_modules", "session-tree");
/** Runs a command in the scratch project: `{ status, stdout, stderr }`. */
const inProject = (command, args, input) =>
  spawnSync(command, args, { cwd: project, input, encoding: "utf8", maxBuffer: 1 << 26 });
/** The installed `session-tree` command, through the bin link npm made (what npx runs). */
const cli = (args, input) => inProject(join(project, "node_modules", ".bin", "session-tree"), args, input);
const write = (name, text) => {
  writeFileSync(join(project, name), text);
  return join(project, name);
};

test("the tarball holds the package's files and installs as a real folder", () => {
  assert.ok(!lstatSync(installed()).isSymbolicLink(), "installed, not linked");
  const files = JSON.parse(
    execFileSync(npm, ["pack", pkgDir, "--dry-run", "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
  )[0].files.map((f) => f.path);
  // cli/remove-at-exit.js: without it a killed `migrate` would leave its temporary file
  for (const path of [
    "bin/session-tree.js",
    "cli/main.js",
    "cli/lineage.js",
    "cli/remove-at-exit.js",
    "node.cjs",
    "node.js",
    "browser.js",
  ]) {
    assert.ok(files.includes(path), `${path} in the tarball`);
  }
  assert.ok(files.includes("node/session_tree_bg.wasm") && files.includes("web/session_tree_bg.wasm"));
  assert.ok(!files.some((f) => f.startsWith("tests/") || f === ".stamp"), "no test or build leftovers");
});

test("imports as ESM and as CJS from the installed copy", () => {
  const esm = inProject(process.execPath, ["esm.mjs"]);
  assert.equal(esm.status, 0, esm.stderr);
  assert.deepEqual(JSON.parse(esm.stdout), {
    lines: 2,
    version: 3,
    roots: 1,
    messages: 1,
    sessionEntries: 1,
    first: "hi",
  });
  const cjs = inProject(process.execPath, ["cjs.cjs"]);
  assert.equal(cjs.status, 0, cjs.stderr);
  assert.deepEqual(JSON.parse(cjs.stdout), { lines: 2, version: 3, roots: 1, messages: 1, sessionEntries: 1 });
});

test("session-tree/node imports as ESM and as CJS from the installed copy", () => {
  const esm = inProject(process.execPath, ["node-esm.mjs"]);
  assert.equal(esm.status, 0, esm.stderr);
  assert.deepEqual(JSON.parse(esm.stdout), { entries: 1, listed: 1, first: "hi" });
  const cjs = inProject(process.execPath, ["node-cjs.cjs"]);
  assert.equal(cjs.status, 0, cjs.stderr);
  assert.deepEqual(JSON.parse(cjs.stdout), { entries: 1, persisted: false });
});

test("tsc type-checks a consumer under module node16 (ESM and CJS) and under moduleResolution bundler", () => {
  for (const config of ["tsconfig.node16.json", "tsconfig.bundler.json"]) {
    const r = inProject(process.execPath, [tsc, "-p", config]);
    assert.equal(r.status, 0, `${config}:\n${r.stdout}${r.stderr}`);
  }
});

test("publint reports nothing on the tarball, warnings included", () => {
  const r = inProject(join(bins, "publint"), ["run", tarball, "--strict"]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /All good!/);
});

test("@arethetypeswrong/cli finds no problem: the main entry under every resolution, browser.js as ESM", () => {
  // "." is checked under every resolution (node10, node16 from CJS and ESM,
  // bundler); "./browser.js" is the browser build, an ES module, checked where
  // ES modules are imported (the esm-only profile); the .wasm export is an
  // asset for bundlers, no module to type.
  const main = inProject(join(bins, "attw"), [tarball, "--entrypoints", ".", "--format", "ascii"]);
  assert.equal(main.status, 0, main.stdout + main.stderr);
  assert.match(main.stdout, /No problems found/);
  const browser = inProject(join(bins, "attw"), [
    tarball,
    "--entrypoints",
    "./browser.js",
    "--profile",
    "esm-only",
    "--format",
    "ascii",
  ]);
  assert.equal(browser.status, 0, browser.stdout + browser.stderr);
  // session-tree/node is a subpath export for Node 20+, Bun and Deno: checked
  // under node16 (CJS and ESM) and bundler; node10 resolution knows no subpath exports
  const node = inProject(join(bins, "attw"), [
    tarball,
    "--entrypoints",
    "./node",
    "--profile",
    "node16",
    "--format",
    "ascii",
  ]);
  assert.equal(node.status, 0, node.stdout + node.stderr);
  assert.match(node.stdout, /node16 \(from CJS\): 🟢 \(CJS\)\nnode16 \(from ESM\): 🟢 \(ESM\)\nbundler: 🟢/);
});

test("npx session-tree --help, and --help for every command", () => {
  const r = inProject("npx", ["--no-install", "session-tree", "--help"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^usage: session-tree <command>/);
  for (const name of ["info", "list", "inspect", "migrate", "context", "tree", "branch"]) {
    const help = cli([name, "--help"]);
    assert.equal(help.status, 0, name);
    assert.match(help.stdout, new RegExp(`^usage: session-tree ${name}\\b`));
  }
});

test("inspect: each problem with its line number and exit 1; a clean file exits 0", () => {
  const broken = inProject("npx", ["--no-install", "session-tree", "inspect", write("broken.jsonl", BROKEN)]);
  assert.equal(broken.status, 1);
  const lines = broken.stdout.trimEnd().split("\n");
  assert.deepEqual(
    lines.map((l) => l.slice(project.length + 1).split(": ")[0]),
    ["broken.jsonl:3", "broken.jsonl:4"],
  );
  assert.match(lines[0], /: malformed-line: /);
  assert.match(lines[1], /: orphan: /);
  const clean = cli(["inspect", write("clean.jsonl", CLEAN)]);
  assert.equal(clean.status, 0);
});

test("migrate of a v1 file: the bytes of the API's migrate(), ids aside", async () => {
  api ??= await import(pathToFileURL(join(installed(), "node.js")).href);
  const r = cli(["migrate", write("v1.jsonl", V1)]);
  assert.equal(r.status, 0);
  const ids = (text) => text.replace(/"(id|parentId)":"[0-9a-f]{8}"/g, '"$1":"…"');
  assert.equal(ids(r.stdout), ids(Buffer.from(api.migrate(Buffer.from(V1))).toString("utf8")));
  assert.notEqual(ids(r.stdout), r.stdout);
});

test("context --json equals buildSessionContext from the API", async () => {
  api ??= await import(pathToFileURL(join(installed(), "node.js")).href);
  for (const leaf of [undefined, "a2"]) {
    const r = cli(["context", "--json", write("clean.jsonl", CLEAN), ...(leaf ? ["--leaf", leaf] : [])]);
    assert.equal(r.status, 0);
    assert.deepEqual(JSON.parse(r.stdout), JSON.parse(JSON.stringify(api.buildSessionContext(CLEAN, leaf))));
  }
});

test("tree prints one line per shown entry", () => {
  const path = write("clean.jsonl", CLEAN);
  // by hand (tests/cli/tree.test.mjs draws it): default shows u1 u3 a3 r1 a2 u2; all adds the
  // label l1 and the name n1, and not a1, an assistant message without text that is not the leaf
  for (const [filter, ids] of [
    ["default", ["u1", "u3", "a3", "r1", "a2", "u2"]],
    ["all", ["u1", "u3", "a3", "r1", "a2", "l1", "u2", "n1"]],
    ["user-only", ["u1", "u3", "u2"]],
  ]) {
    const text = cli(["tree", path, "--filter", filter]);
    assert.equal(text.status, 0);
    assert.equal(text.stdout.trimEnd().split("\n").length, ids.length, filter);
    const json = cli(["tree", path, "--filter", filter, "--json"]);
    assert.deepEqual(
      JSON.parse(json.stdout).map((r) => r.id),
      ids,
    );
  }
});

test("list shows every session of a folder, newest first, forks under their parents", () => {
  const at = (m) => `2025-05-05T05:${String(m).padStart(2, "0")}:00.000Z`;
  const session = (id, minute, parentSession) =>
    [
      { type: "session", version: 3, id, timestamp: at(0), cwd: "/p", ...(parentSession ? { parentSession } : {}) },
      {
        type: "message",
        id: "m",
        parentId: null,
        timestamp: at(minute),
        message: { role: "user", content: `q ${id}`, timestamp: Date.parse(at(minute)) },
      },
    ]
      .map((e) => `${JSON.stringify(e)}\n`)
      .join("");
  const dir = join(project, "sessions");
  writeFileSync(join(dir, "old.jsonl"), session("old", 1));
  writeFileSync(join(dir, "mid.jsonl"), session("mid", 5));
  writeFileSync(join(dir, "fork.jsonl"), session("fork", 3, join(dir, "old.jsonl"))); // makes old's subtree 05:03
  writeFileSync(join(dir, "new.jsonl"), session("new", 9));
  const r = cli(["list", dir]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(
    r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => l.split(/\s+/).at(-1)),
    ["new.jsonl", "mid.jsonl", "old.jsonl", "fork.jsonl"],
  );
  assert.match(r.stdout.trimEnd().split("\n")[3], /└─ q fork/);
});

test("bad usage and missing files exit 2 with a one-line reason", () => {
  for (const args of [
    ["frobnicate"],
    ["inspect", "--frob"],
    ["inspect", join(project, "missing.jsonl")],
    ["context", join(project, "missing.jsonl")],
    ["tree", write("clean.jsonl", CLEAN), "--filter", "nope"],
    ["list", join(project, "missing")],
    ["branch", write("clean.jsonl", CLEAN)],
  ]) {
    const r = cli(args);
    assert.equal(r.status, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
  }
});

test("the installed package.json names the command", () => {
  const manifest = JSON.parse(readFileSync(join(installed(), "package.json"), "utf8"));
  assert.deepEqual(manifest.bin, { "session-tree": "./bin/session-tree.js" });
});
