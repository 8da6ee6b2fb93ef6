// The groups of `make mutants-js`: the files StrykerJS mutates, the folders whose test files
// may cover them (run-tests.mjs keeps those that import a mutated file) or else the test
// files named, the test files left
// out for their time (seconds each, run per mutant), and the seed variables fixed to 1.
//
// The pkg-template files are mutated as their copies in pkg/ (`make build` copies them as
// they are, and run-tests.mjs points the sandbox's `session-tree` at the sandbox's pkg/), so
// the tests, which import pkg/, see each mutant; the line numbers are pkg-template's.
export const GROUPS = {
  www: {
    // markdown.js and app.js: not DOM-free (app.js) or tested on its own (markdown.test.mjs, 11 s).
    mutate: [
      "www/model.js",
      "www/layout.js",
      "www/controller.js",
      "www/compare.js",
      "www/composition.js",
      "www/analysis.js",
      "www/redact.js",
      "www/store.js",
      "www/large.js",
      "www/live.js",
      "www/a11y.js",
    ],
    testDirs: ["tests/viewer/unit"],
    skipTests: ["tests/viewer/unit/markdown.test.mjs"],
    seeds: ["COMPOSITION_SEED", "LARGE_SEED", "PROJECTION_SEED", "REDACT_SEED", "USAGE_SEED", "FUZZ_SEED"],
  },
  cli: {
    mutate: ["pkg/cli/tree-view.js", "pkg/cli/lineage.js"],
    copies: ["pkg/cli/tree-view.js", "pkg/cli/lineage.js"],
    testDirs: ["tests/cli", "tests/viewer/unit"],
    // Property runs and child processes of 5 to 11 s: tree.test.mjs compares with pi's /tree already.
    skipTests: [
      "tests/cli/hunt.test.mjs",
      "tests/cli/tree-preview.test.mjs",
      "tests/cli/migrate.test.mjs",
      "tests/cli/source.test.mjs",
      "tests/cli/bin.test.mjs",
      "tests/cli/readme.test.mjs",
      "tests/viewer/unit/markdown.test.mjs",
    ],
    seeds: ["CLI_TREE_SEED", "CLI_SOURCE_SEED", "USAGE_SEED"],
  },
  files: {
    mutate: ["pkg/files/*.cjs"],
    copies: ["folder", "index", "lock", "manager", "paths", "write"].map((n) => `pkg/files/${n}.cjs`),
    // Bare `session-tree/node` imports, which the import scan does not follow: named here.
    // node-manager.test.mjs takes about 70 s a run, so this group takes hours.
    tests: ["tests/node-manager/node-manager.test.mjs", "tests/cli/folder.test.mjs", "tests/node/read-usage.test.mjs"],
    testDirs: [],
    skipTests: [],
    seeds: ["KILL_SEED", "FUZZ_SEED"],
  },
};
