// Deliberately wrong implementations, to check that each comparison harness reports a
// difference it should (harness.test.js runs the suites on them: each must fail, naming it).
// Loaded with CONFORMANCE_IMPL=mutant:<name>.
//
//   edit-ignored, siblings-swapped, id-rewritten, line-dropped
//       the pi-based shim (./shim.js), wrong in that one way (../../shared/package-mutants.mjs
//       says how): a harness that reports nothing on them would pass anything
//   session-<kind>
//       the package itself, made wrong by package-mutants.mjs (its functions and `Session`)
import { createRequire } from "node:module";
import {
  droppingLine,
  hasOmittingEdit,
  ignoreOmittingEdits,
  mutatePackage,
  renameLast,
  reverseSiblings,
} from "../../shared/package-mutants.mjs";
import * as shim from "./shim.js";

const { parseSession, migrate, getTree } = shim;

/** A context function of the shim that ignores omitting edits. */
const ignoringEdits =
  (fn) =>
  (source, ...leaf) => {
    const entries = Array.isArray(source) ? source : parseSession(source);
    if (!Array.isArray(source)) migrate(entries);
    return hasOmittingEdit(entries) ? fn(ignoreOmittingEdits(entries), ...leaf) : fn(source, ...leaf);
  };

const SHIM_MUTANTS = {
  "edit-ignored": () => ({
    ...shim,
    buildSessionContext: ignoringEdits(shim.buildSessionContext),
    buildContextEntries: ignoringEdits(shim.buildContextEntries),
    buildSessionProjection: ignoringEdits(shim.buildSessionProjection),
  }),
  "siblings-swapped": () => ({ ...shim, getTree: (source) => reverseSiblings(getTree(source)) }),
  "id-rewritten": () => ({ ...shim, parseSession: (source, o) => renameLast(parseSession(source, o)) }),
  "line-dropped": () => ({ ...shim, migrate: droppingLine(migrate) }),
};

/** The implementation of mutant `name`. */
export async function loadMutant(name) {
  // the CommonJS entry's exports object: an ES module namespace cannot be changed
  if (name.startsWith("session-")) return mutatePackage(createRequire(import.meta.url)("session-tree"), name.slice(8));
  const make = SHIM_MUTANTS[name];
  if (!make) throw new Error(`unknown mutant ${name}: one of ${Object.keys(SHIM_MUTANTS).join(", ")}, session-…`);
  return make();
}
