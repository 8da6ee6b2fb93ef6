// Module hooks (module.register) of mutant-preload.mjs for a viewer mutant: the module named by
// VIEWER_MUTANTS[kind] is served, to every importer, as itself with one export replaced. The
// served module re-exports the real one (loaded under a `?unmutated` URL) and shadows the one
// name with the wrong version (a local export wins over `export *`).
import { VIEWER_MUTANTS } from "./package-mutants.mjs";

let mutant;

export function initialize({ kind }) {
  mutant = VIEWER_MUTANTS[kind];
}

export async function load(url, context, nextLoad) {
  if (url !== mutant.module) return nextLoad(url, context);
  const real = JSON.stringify(`${url}?unmutated`);
  const source = [
    `import * as real from ${real};`,
    `export * from ${real};`,
    `export const ${mutant.name} = (${mutant.wrap})(real.${mutant.name});`,
  ].join("\n");
  return { format: "module", source, shortCircuit: true };
}
