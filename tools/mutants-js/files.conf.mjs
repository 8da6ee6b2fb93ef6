// `make mutants-js MUTANTS_JS_GROUPS=files` (groups.mjs, base.mjs).
import { config } from "./base.mjs";

export default config("files");
