// The table of mutation scores of a `tools/mutants.sh` run, one row per
// module, as the README's "Mutation testing" shows it; then every mutant
// missed by `cargo test --lib`.
//
// Usage: node tools/mutants-report.mjs [target/mutation/all]
// Exits 1 if a module scores under 95% (issue 28's bar) or its run stopped
// before its end.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2] ?? "target/mutation/all";
const BAR = 95;

function outcomes(dir) {
  const file = join(dir, "mutants.out", "outcomes.json");
  if (!existsSync(file)) return null;
  // Only mutants: the unmutated baseline is an outcome of its own.
  return JSON.parse(readFileSync(file, "utf8")).outcomes.filter((o) => o.scenario?.Mutant);
}

const nameOf = (o) => o.scenario.Mutant.name;
const rows = [];
const missed = [];
let low = false;
for (const module of readdirSync(root).sort()) {
  const fast = outcomes(join(root, module, "fast"));
  if (fast === null) continue;
  const full = new Map((outcomes(join(root, module, "full")) ?? []).map((o) => [nameOf(o), o]));
  const count = { CaughtMutant: 0, Timeout: 0, MissedMutant: 0, Unviable: 0 };
  for (const o of fast) {
    // A mutant the first pass missed is scored by the second, with every test.
    const final = o.summary === "MissedMutant" ? (full.get(nameOf(o)) ?? o) : o;
    if (final.summary in count) count[final.summary]++;
    if (final.summary === "MissedMutant") missed.push(nameOf(o));
  }
  // A pass stopped before its end lists fewer outcomes than mutants.
  const planned = JSON.parse(readFileSync(join(root, module, "fast", "mutants.out", "mutants.json"), "utf8")).length;
  const stopped = fast.length < planned;
  const name = stopped ? `\`${module}\` (stopped: ${fast.length} of ${planned})` : `\`${module}\``;
  if (stopped) low = true;
  const viable = fast.length - count.Unviable;
  const score = viable === 0 ? 100 : (100 * (count.CaughtMutant + count.Timeout)) / viable;
  if (score < BAR) low = true;
  rows.push(
    `| ${name} | ${fast.length} | ${count.CaughtMutant} | ${count.Timeout} | ${count.MissedMutant} | ${count.Unviable} | ${score === 100 ? "100" : score.toFixed(1)}% |`,
  );
}

if (rows.length === 0) {
  console.error(`no mutants.out under ${root}: run tools/mutants.sh (make mutants) first`);
  process.exit(2);
}
console.log("| module | mutants | caught | timeouts | missed | unviable | score |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const row of rows) console.log(row);
console.log(missed.length === 0 ? "\nno mutant missed" : `\nmissed (${missed.length}):\n${missed.join("\n")}`);
if (low) {
  console.error(`\na module scores under ${BAR}%, or its run stopped before its end`);
  process.exit(1);
}
