// The StrykerJS configuration of one group of groups.mjs (`make mutants-js`, tests/README.md).
// Stryker runs from the repository's root and copies www/, tests/ and pkg/ (nothing else: the
// rest is build output or not JavaScript) into a sandbox under target/mutants-js/, then runs
// run-tests.mjs there once per mutant. MUTANTS_JS_MUTATE (comma-separated paths or globs)
// narrows the files mutated; MUTANTS_JS_JOBS is the number of sandboxes run at once;
// MUTANTS_JS_TIMEOUT the milliseconds added to a run's time before it counts as a hang.
// MUTANTS_JS_TAG is added to the report folder's name (a second run of the same file).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GROUPS } from "./groups.mjs";

const here = dirname(fileURLToPath(import.meta.url));

export function config(name) {
  const group = GROUPS[name];
  const narrowed = (process.env.MUTANTS_JS_MUTATE ?? "").split(",").filter(Boolean);
  // One report folder per run: the group's, or the narrowed files' (www-model for www/model.js).
  const slug = narrowed.map((f) => f.replace(/^.*\//, "").replace(/\W*\.c?js$|\W+/g, "")).join("-");
  const tag = process.env.MUTANTS_JS_TAG ? `-${process.env.MUTANTS_JS_TAG}` : "";
  const out = `target/mutants-js/${name}${slug ? `-${slug}` : ""}${tag}`;
  // A pkg/ copy older than its pkg-template/ file would be mutated in place of the source.
  for (const file of group.copies ?? []) {
    if (readFileSync(file, "utf8") !== readFileSync(file.replace(/^pkg\//, "pkg-template/"), "utf8")) {
      throw new Error(`${file} differs from its pkg-template/ source: run make build`);
    }
  }
  return {
    testRunner: "command",
    commandRunner: { command: `node ${join(here, "run-tests.mjs")} ${name}` },
    mutate: narrowed.length > 0 ? narrowed : group.mutate,
    ignorePatterns: ["/*", "!/www", "!/tests", "!/pkg"],
    symlinkNodeModules: false,
    tempDirName: `${out}.tmp`,
    cleanTempDir: true,
    concurrency: Number(process.env.MUTANTS_JS_JOBS || 2),
    // Beyond 1.5 times the first run plus this, a mutant counts as a hang (killed). Ten seconds:
    // on a shared, loaded machine a run that passes can take twice its first time.
    timeoutMS: Number(process.env.MUTANTS_JS_TIMEOUT || 10000),
    reporters: ["clear-text", "progress", "json", "html"],
    jsonReporter: { fileName: `${out}/mutation.json` },
    htmlReporter: { fileName: `${out}/mutation.html` },
    clearTextReporter: { allowColor: false, reportScoreTable: true, reportMutants: true },
  };
}
