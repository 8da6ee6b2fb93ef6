// A node:test reporter that fails the run on any skip or todo nobody asked for.
//
// A test may skip only for an opt-in longer mode or for an optional input that a user's clone
// lacks; never because of what the implementation does (tests/README.md, "Skips"). Every
// `node --test` line of the Makefile runs this reporter beside `spec`:
//
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./tests/shared/skip-reporter.mjs --test-reporter-destination=stderr …
//
// It sets a non-zero exit code when a test is skipped for a reason outside ALLOWED_SKIPS, or is
// marked todo (a todo's failure does not fail a run: it is a switched-off test). It lists them,
// and the allowed skips, at the end.

/** Skip reasons that are requested, each with why: the reason must match one of these. */
export const ALLOWED_SKIPS = [
  // the opt-in longer mode of the reliability suite (tests/reliability/scale.test.mjs)
  [/^RELIABILITY_FULL=1$/, "opt-in longer mode"],
  // pi's own session files: an optional input outside the repository (conformance/generated.test.js)
  [/^no \*\.jsonl in .+ \(set PI_FIXTURES_DIR\)$/, "optional input a clone lacks"],
  // a run asked for a subset: --test-name-pattern, or --test-only with `only` tests
  [/^test name does not match pattern$/, "filtered by --test-name-pattern"],
  [/^'only' option not set$/, "filtered by --test-only"],
];

/** Why a skip reason is allowed, or null. `true` (a skip without a reason) never is. */
export function allowedSkip(reason) {
  if (typeof reason !== "string") return null;
  return ALLOWED_SKIPS.find(([re]) => re.test(reason))?.[1] ?? null;
}

/** Exit code when an unrequested skip or a todo is found (what node:test uses for a failure). */
const FAILURE = 1;

export default async function* skipReporter(source) {
  const refused = [];
  const allowed = new Map();
  for await (const event of source) {
    // pass and fail are each test's last word (a failing todo is a `test:fail` with `todo`)
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { name, file, skip, todo } = event.data;
    const where = `${file ? `${file}: ` : ""}${name}`;
    if (todo !== undefined && todo !== false)
      refused.push(`todo: ${where}${typeof todo === "string" ? ` (${todo})` : ""}`);
    if (skip === undefined || skip === false) continue;
    const why = allowedSkip(skip);
    if (why) allowed.set(why, (allowed.get(why) ?? 0) + 1);
    else refused.push(`skip: ${where} (${skip === true ? "no reason given" : skip})`);
  }
  const kept = [...allowed].map(([why, n]) => `${n} × ${why}`).join(", ");
  if (kept) yield `skip check: allowed skips: ${kept}\n`;
  if (refused.length) {
    yield `skip check: FAILED: ${refused.length} unrequested skip(s) or todo(s); a test may skip only for an opt-in mode or an optional input (tests/README.md, "Skips"):\n`;
    for (const r of refused) yield `  ${r}\n`;
    process.exitCode = FAILURE;
  }
}
