// `node --import ./tests/shared/mutant-preload.mjs file.test.mjs` with PACKAGE_MUTANT=<kind>: the
// package, made wrong as package-mutants.mjs describes, for every import of it in the process
// (the ESM entry reads the CommonJS entry's exports object, which is patched here first).
import { createRequire } from "node:module";
import { mutatePackage } from "./package-mutants.mjs";

mutatePackage(createRequire(import.meta.url)("session-tree"), process.env.PACKAGE_MUTANT);
