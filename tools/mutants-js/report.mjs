// The mutants a `make mutants-js` run left alive (and its counts), from Stryker's JSON report:
//   node tools/mutants-js/report.mjs target/mutants-js/www-model/mutation.json [Timeout]
// A second argument lists the mutants of that status instead (Timeout, NoCoverage, ...).
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
const status = process.argv[3] ?? "Survived";
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const counts = {};
  for (const m of mutants) counts[m.status] = (counts[m.status] ?? 0) + 1;
  console.log(`${file}: ${mutants.length} mutants, ${JSON.stringify(counts)}`);
  const lines = source.split("\n");
  for (const m of mutants.filter((x) => x.status === status)) {
    const { start, end } = m.location;
    const line = lines[start.line - 1];
    console.log(`  ${start.line}:${start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement)}`);
    if (start.line === end.line) console.log(`      ${line.trim()}`);
  }
}
