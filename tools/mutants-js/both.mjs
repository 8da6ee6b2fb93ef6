// The mutants left alive by two runs of the same file with different test files (a run before
// new tests, and a run of the new tests alone): a mutant survives both only if no test kills it.
//   node tools/mutants-js/both.mjs before/mutation.json after/mutation.json
import { readFileSync } from "node:fs";

const [before, after] = process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, "utf8")));
const key = (m) =>
  `${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement}`;
for (const [file, { source, mutants }] of Object.entries(before.files)) {
  const later = new Map((after.files[file]?.mutants ?? []).map((m) => [key(m), m.status]));
  const alive = mutants.filter((m) => m.status === "Survived" && later.get(key(m)) === "Survived");
  const lines = source.split("\n");
  console.log(`${file}: ${mutants.length} mutants, ${alive.length} alive after both runs`);
  for (const m of alive) {
    const { start } = m.location;
    console.log(`  ${start.line}:${start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement)}`);
    console.log(`      ${lines[start.line - 1].trim()}`);
  }
}
