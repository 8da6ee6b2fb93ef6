// The harnesses checked against deliberately wrong implementations (lib/mutants.js): each suite
// that compares us with pi runs, in a child process, on a mutant, and this test passes only if
// that run fails and its report names the difference. A harness that cannot see a context edit
// ignored, siblings swapped, an id rewritten or a line dropped would pass anything.
//
// Also the other way: on the pi-based shim (lib/shim.js), which is pi, the same runs pass.
// Each run is small (a few dozen sessions or sequences) and takes seconds.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const TESTS = fileURLToPath(new URL("..", import.meta.url));
// the child is a test run of its own, not a subprocess of this one's runner
const baseEnv = { ...process.env, PI_FIXTURES_DIR: "/nonexistent", CONFORMANCE_COUNT: "60" };
delete baseEnv.NODE_TEST_CONTEXT;
delete baseEnv.CONFORMANCE_CASE_SEED;
delete baseEnv.CONFORMANCE_SESSION_CASE;

/** Runs one conformance file (with a name filter) on an implementation; exit code and output. */
function suite(file, impl, { pattern, env = {} } = {}) {
  const args = ["--test", "--test-reporter=spec", ...(pattern ? [`--test-name-pattern=${pattern}`] : []), file];
  const r = spawnSync(process.execPath, args, {
    cwd: TESTS,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...baseEnv, ...env, CONFORMANCE_IMPL: impl },
  });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** The run failed, and its report holds every one of `marks`. */
function caught(r, what, marks) {
  const tail = r.out.slice(-3000);
  assert.notEqual(r.code, 0, `${what}: the harness passed a wrong implementation\n${tail}`);
  for (const m of marks) assert.match(r.out, m, `${what}: the report does not name the difference\n${tail}`);
}

// generated.test.js reports "differences by function/form: {"getTree [string]": 3, …}"
const byFunction = (fn) => new RegExp(`differences by function/form: \\{[^}]*"${fn} \\[`);

test("generated sessions: the shim (pi itself) passes, with pi 1.6 sessions among them", () => {
  const r = suite("conformance/generated.test.js", "shim");
  assert.equal(r.code, 0, r.out.slice(-3000));
  assert.match(r.out, /60 sessions compared .* 0 with differences/);
  const [, pi16, edits] = r.out.match(/pi 1\.6 sessions: (\d+) \((\d+) with context edits/);
  assert.ok(Number(pi16) > 0 && Number(edits) > 0, `pi 1.6 sessions: ${pi16}, with edits: ${edits}`);
});

// An ignored edit shows only where the omitted entry is on a compared path: about one generated
// session in ten (214 of 2,000 with the emit mutation), so 200 make a miss a 1e-9 event.
for (const [mutant, fns, count] of [
  ["edit-ignored", ["buildSessionContext", "buildContextEntries", "buildSessionProjection"], "200"],
  ["siblings-swapped", ["getTree"], "60"],
  ["id-rewritten", ["parseSession"], "60"],
  ["line-dropped", ["migrate"], "60"],
])
  test(`generated sessions: the ${mutant} mutant is reported (${fns.join(", ")})`, () => {
    const r = suite("conformance/generated.test.js", `mutant:${mutant}`, { env: { CONFORMANCE_COUNT: count } });
    caught(r, mutant, fns.map(byFunction));
  });

// pi's scenarios but "save-entry and file": there a v1 file's ids are kept by us and renewed by
// pi, a documented difference the shim (pi itself) does not make
const SCENARIOS = "build-context scenarios|migration scenarios|tree traversal scenarios|label scenarios";

test("pi's scenarios: the shim passes; a tree with swapped siblings and a dropped line are reported", () => {
  const ok = suite("conformance/scenarios.test.js", "shim", { pattern: SCENARIOS });
  assert.equal(ok.code, 0, ok.out.slice(-3000));
  const swapped = suite("conformance/scenarios.test.js", "mutant:siblings-swapped", { pattern: SCENARIOS });
  caught(swapped, "siblings-swapped", [/✖ tree traversal scenarios/]);
  const dropped = suite("conformance/scenarios.test.js", "mutant:line-dropped", { pattern: SCENARIOS });
  caught(dropped, "line-dropped", [/✖ migration scenarios/]);
});

// the scenarios (deterministic: edits, branches) and 30 random call sequences
const SESSION_REPLAYS = "Session vs SessionManager: (scenarios|random call sequences)";
const shown = (pattern) => (pattern === SESSION_REPLAYS ? "scenarios, random call sequences" : pattern);
const SEQUENCES = { CONFORMANCE_SESSION_COUNT: "30" };
for (const [mutant, pattern, marks] of [
  ["edit-ignored", SESSION_REPLAYS, [/: (buildSessionContext\(\)|context\(\$\d+\))\n/, /appendContextEdit\(/]],
  ["siblings-swapped", SESSION_REPLAYS, [/: getTree\(\)\n/]],
  ["id-rewritten", "random call sequences", [/: getEntries\(\)\n/, /-renamed/]],
  ["line-dropped", "persistence", [/pi's file vs everything takePendingLines\(\) returned/]],
  ["info-wrong", "sessionInfo vs SessionManager.list", [/messageCount: pi \d+, ours \d+/]],
])
  test(`Session vs SessionManager (${shown(pattern)}): the session-${mutant} mutant is reported`, () => {
    caught(
      suite("conformance/session.test.js", `mutant:session-${mutant}`, { pattern, env: SEQUENCES }),
      mutant,
      marks,
    );
  });

// The other suites that compare the package (or the viewer's modules) with pi, each run on the
// package or a www/ module made wrong by ../shared/mutant-preload.mjs (node --import, workers
// included): the comparison with pi must fail, and the report hold every mark.
const PRELOAD = fileURLToPath(new URL("../shared/mutant-preload.mjs", import.meta.url));
const FEW = { FUZZ_COUNT: "20" };
for (const [file, mutant, marks, env = {}] of [
  ["node/projection.test.mjs", "edit-ignored", [/✖ null edits and kept ranges: the same as pi 1\.6\.0/]],
  ["node/session-pi16.test.mjs", "edit-ignored", [/AssertionError \[ERR_ASSERTION\]: buildSessionContext\(\)/]],
  ["node/session-pi16.test.mjs", "siblings-swapped", [/AssertionError \[ERR_ASSERTION\]: getTree\(\)/]],
  ["cli/tree.test.mjs", "siblings-swapped", [/✖ tree equals pi 1\.6\.0's \/tree view/], { CLI_TREE_COUNT: "10" }],
  ["reliability/parse-vs-pi.test.mjs", "id-rewritten", [/\d+ parse differences from pi/], { FUZZ_COUNT: "60" }],
  ["reliability/session-info.test.mjs", "info-wrong", [/✖ sessionInfo equals pi 1\.6\.0's session list/]],
  [
    "conformance/list.test.js",
    "info-wrong",
    [/✖ generated folders: the list path vs pi 1\.6\.0's listAll/],
    { CONFORMANCE_LIST_COUNT: "20" },
  ],
  // the file loader's choices: each comparison also runs migrate, which must keep every line
  [
    "reliability/loader-vs-pi.test.mjs",
    "line-dropped",
    [/✖ falsy lines: pi's loader skips them/, /migrateKeeps: false/],
  ],
  // pi runs in a worker there: the preload mutates the package in the worker too
  ["reliability/timestamps.test.mjs", "siblings-swapped", [/✖ tree order and context timestamps/, /what: 'tree'/], FEW],
  [
    "reliability/timestamps.test.mjs",
    "timestamp-shifted",
    [/✖ context timestamps: NaN exactly where/, /✖ tree order and context timestamps/, /what: 'context at /],
    FEW,
  ],
  ["reliability/hostile.test.mjs", "id-rewritten", [/✖ CRLF, CR alone, NUL bytes/, /-renamed/]],
  // (its diff is of a long session, cut before the renamed id: the failing call names it)
  [
    "reliability/recovery.test.mjs",
    "id-rewritten",
    [/✖ every export, every hostile argument/, /: parseSession after /],
  ],
  [
    "viewer/unit/projection.test.mjs",
    "edit-ignored",
    [
      /✖ projectionView matches pi 1\.6\.0's projection at every entry/,
      /✖ projectionView matches pi 1\.6\.0's projection on random/,
    ],
  ],
  [
    "viewer/unit/projection.test.mjs",
    "edit-unmarked",
    [/✖ projectionView matches pi 1\.6\.0's projection at every entry/, /expected: 'omit'/],
  ],
  [
    "viewer/unit/composition.test.mjs",
    "estimate-off-by-one",
    [/✖ each message's estimate equals pi 1\.6\.0's estimateTokens/, /(\d+) !== (?!\1)\d+/],
  ],
])
  test(`${file}: the ${mutant} mutant is reported`, () => {
    const r = spawnSync(process.execPath, ["--import", PRELOAD, "--test", "--test-reporter=spec", file], {
      cwd: TESTS,
      encoding: "utf8",
      timeout: 300_000,
      env: { ...baseEnv, ...env, PACKAGE_MUTANT: mutant },
    });
    caught({ code: r.status, out: `${r.stdout}\n${r.stderr}` }, `${file} on ${mutant}`, marks);
  });
