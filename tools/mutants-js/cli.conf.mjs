// `make mutants-js MUTANTS_JS_GROUPS=cli` (groups.mjs, base.mjs).
import { config } from "./base.mjs";

export default config("cli");
