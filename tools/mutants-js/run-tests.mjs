// The test command StrykerJS runs for each mutant (`make mutants-js`, tests/README.md).
// Its working folder is Stryker's sandbox, a copy of www/, tests/ and pkg/ in which the
// files under test carry every mutant at once (one is switched on per run by
// __STRYKER_ACTIVE_MUTANT__). It runs only the test files that import, directly or
// through relative imports, a file being mutated: a mutant no such test reaches can
// only survive, and the rest of the suite would cost seconds per mutant.
//
//   node run-tests.mjs <group>      MUTANTS_JS_MUTATE: the mutated files, comma-separated
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GROUPS } from "./groups.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const group = GROUPS[process.argv[2]];
if (!group) throw new Error(`unknown group ${process.argv[2]}; one of ${Object.keys(GROUPS).join(", ")}`);
const mutated = (process.env.MUTANTS_JS_MUTATE || group.mutate.join(",")).split(",").filter(Boolean);

// Stryker's own node_modules linking (off in base.mjs) would link the real tests/node_modules,
// whose `session-tree` is the real pkg/: the tests would never see a mutant of a pkg/ file.
// Here the sandbox gets a folder of links to the real packages, `session-tree` to its own pkg/.
const modules = "tests/node_modules";
if (!existsSync(modules) || lstatSync(modules).isSymbolicLink()) {
  rmSync(modules, { force: true, recursive: true });
  mkdirSync(modules);
  for (const name of readdirSync(join(root, modules))) {
    if (name === "session-tree") symlinkSync("../../pkg", join(modules, name));
    else symlinkSync(join(root, modules, name), join(modules, name));
  }
}

/** The files `file` imports by relative specifier (a regex: the tree's own import style). */
function directImports(file) {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import|require)\s*\(?\s*["'](\.\.?\/[^"']+)["']/g)].map((m) =>
    resolve(dirname(file), m[1]),
  );
}

/** The same, transitively. */
function imports(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const f of directImports(file)) imports(f, seen);
  return seen;
}

// The test files that import a mutated file themselves: a module's own tests. Only when none
// does, those that reach it through other modules (model.js is under most of the viewer's
// tests, which would cost 8 s a mutant).
const wanted = new Set(mutated.map((f) => resolve(f)));
const candidates = [];
for (const dir of group.testDirs) {
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name);
    if (/\.test\.m?js$/.test(name) && !group.skipTests.includes(file)) candidates.push(file);
  }
}
const direct = candidates.filter((t) => directImports(resolve(t)).some((f) => wanted.has(f)));
const tests = [
  ...(group.tests ?? []),
  ...(direct.length > 0 ? direct : candidates.filter((t) => [...imports(resolve(t))].some((f) => wanted.has(f)))),
];
if (tests.length === 0) {
  console.error(`no test in ${group.testDirs.join(", ")} imports ${mutated.join(", ")}`);
  process.exit(2);
}
console.log(`running ${tests.map((t) => relative(".", t)).join(" ")}`);
// Fixed seeds: a mutant is killed or survives the same way on every run.
for (const name of group.seeds) process.env[name] = "1";
// The test files run in this process, one after another (node:test runs the tests of an
// imported file and sets a failing exit code): a process per file, as `node --test` starts,
// would add a quarter to each mutant's time.
for (const file of tests) await import(pathToFileURL(resolve(file)).href);
