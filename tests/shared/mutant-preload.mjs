// `node --import ./tests/shared/mutant-preload.mjs file.test.mjs` with PACKAGE_MUTANT=<kind>: the
// package, made wrong as package-mutants.mjs describes, for every import of it in the process
// (the ESM entry reads the CommonJS entry's exports object, which is patched here first); or, for
// a viewer mutant, its www/ module served wrong by mutant-hooks.mjs. It runs in each worker too.
import { createRequire, register } from "node:module";
import { mutatePackage, VIEWER_MUTANTS } from "./package-mutants.mjs";

const kind = process.env.PACKAGE_MUTANT;
if (Object.hasOwn(VIEWER_MUTANTS, kind)) register("./mutant-hooks.mjs", import.meta.url, { data: { kind } });
else mutatePackage(createRequire(import.meta.url)("session-tree"), kind);
