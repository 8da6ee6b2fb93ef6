// Loads the implementation under test.
//   default                        the `session-tree` package (file:../../pkg, built by `make build`)
//   CONFORMANCE_IMPL=shim          the pi-based shim in ./shim.js (validates the harness itself)
//   CONFORMANCE_IMPL=/abs/path.js  any module exporting the functions below
//   CONFORMANCE_IMPL=mutant:NAME   a deliberately wrong implementation (./mutants.js), for harness.test.js
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";

const choice = process.env.CONFORMANCE_IMPL ?? "";
export const implName =
  choice === "shim" || choice.startsWith("mutant:") || isAbsolute(choice) ? choice : "session-tree";

/** What every implementation under test must export (the package exports more: `Session`, …). */
export const FUNCTIONS = [
  "parseSession",
  "migrate",
  "getTree",
  "buildSessionContext",
  "buildContextEntries",
  "buildSessionProjection",
  "currentSystemMessage",
];

async function load() {
  let mod;
  if (choice === "shim") mod = await import("./shim.js");
  else if (choice.startsWith("mutant:")) mod = await (await import("./mutants.js")).loadMutant(choice.slice(7));
  else if (isAbsolute(choice)) mod = await import(pathToFileURL(choice).href);
  else mod = await import("session-tree");
  // the nodejs build is CommonJS; named exports may only be reachable through `default`
  const api = typeof mod.parseSession === "function" ? mod : mod.default;
  // a missing function is a failure that names it, never a comparison left out
  for (const fn of FUNCTIONS) {
    if (typeof api?.[fn] !== "function") throw new Error(`${implName} does not export ${fn}()`);
  }
  return api;
}

export const ours = await load();
