// The skip reporter (skip-reporter.mjs) on small test files run by `node --test` in a child
// process with the Makefile's reporter flags: the run fails on each kind of unrequested skip and
// on any todo, and passes with only the allowed skips or a name filter.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ALLOWED_SKIPS, allowedSkip } from "./skip-reporter.mjs";

const REPORTER = fileURLToPath(new URL("./skip-reporter.mjs", import.meta.url));
const dir = mkdtempSync(join(os.tmpdir(), "session-tree-skip-reporter-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// the child is a test run of its own, not a subprocess of this one's runner
const env = { ...process.env };
delete env.NODE_TEST_CONTEXT;

let n = 0;
/** Runs `body` (a test file's text after its import) under both reporters; exit code and stderr. */
function run(body, extraArgs = []) {
  const file = join(dir, `case-${n++}.test.mjs`);
  writeFileSync(file, `import { describe, it, test } from "node:test";\n${body}\n`);
  const r = spawnSync(
    process.execPath,
    [
      "--test",
      ...extraArgs,
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      `--test-reporter=${REPORTER}`,
      "--test-reporter-destination=stderr",
      file,
    ],
    { encoding: "utf8", timeout: 60_000, env },
  );
  return { code: r.status, err: r.stderr };
}

test("only passing tests and allowed skips: the run passes and says which skips it allowed", () => {
  const r = run(`
test("a", () => {});
test("long", { skip: "RELIABILITY_FULL=1" }, () => {});
test("fixtures", { skip: "no *.jsonl in /x/fixtures/ (set PI_FIXTURES_DIR)" }, () => {});`);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /allowed skips: 1 × opt-in longer mode, 1 × optional input a clone lacks/);
  assert.doesNotMatch(r.err, /FAILED/);
});

test("a skip for any other reason fails the run and names the test", () => {
  const r = run(`
test("a", () => {});
test("needs 1.6", { skip: "the package lacks appendContextEdit" }, () => {});`);
  assert.equal(r.code, 1);
  assert.match(r.err, /FAILED: 1 unrequested/);
  assert.match(r.err, /skip: .*case-\d+\.test\.mjs: needs 1\.6 \(the package lacks appendContextEdit\)/);
});

test("t.skip() inside a test, a skipped suite and a skip without a reason each fail it", () => {
  const r = run(`
test("inner", (t) => t.skip("not today"));
describe("suite", { skip: "switched off" }, () => { it("x", () => {}); });
test("bare", { skip: true }, () => {});`);
  assert.equal(r.code, 1);
  assert.match(r.err, /FAILED: 3 unrequested/);
  assert.match(r.err, /inner \(not today\)/);
  assert.match(r.err, /suite \(switched off\)/);
  assert.match(r.err, /bare \(no reason given\)/);
});

test("a todo fails the run, whether it passes or fails", () => {
  for (const body of [
    'test("later", { todo: "some day" }, () => {});',
    'test("later", { todo: true }, () => { throw new Error("x"); });',
  ]) {
    const r = run(body);
    assert.equal(r.code, 1, body);
    assert.match(r.err, /todo: .*: later/, body);
  }
});

test("an allowed skip beside an unrequested one still fails", () => {
  const r = run(`
test("long", { skip: "RELIABILITY_FULL=1" }, () => {});
test("gated", { skip: "RELIABILITY_FULL=1 or the package lacks it" }, () => {});`);
  assert.equal(r.code, 1);
  assert.match(r.err, /gated \(RELIABILITY_FULL=1 or the package lacks it\)/);
});

test("a name filter (--test-name-pattern) is a requested skip", () => {
  const r = run(`test("one", () => {});\ntest("two", () => {});`, ["--test-name-pattern=one"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /1 × filtered by --test-name-pattern/);
});

test("a failing test still fails the run through node:test, reporter or not", () => {
  const r = run('test("broken", () => { throw new Error("boom"); });');
  assert.equal(r.code, 1);
});

test("allowedSkip: anchored patterns, strings only", () => {
  assert.equal(allowedSkip("RELIABILITY_FULL=1"), "opt-in longer mode");
  assert.equal(allowedSkip(" RELIABILITY_FULL=1"), null);
  assert.equal(allowedSkip(true), null);
  assert.equal(allowedSkip(undefined), null);
  assert.ok(ALLOWED_SKIPS.length <= 4, "the allow-list stays short: each entry is documented in tests/README.md");
});
