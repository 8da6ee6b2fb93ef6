// `make mutants-js MUTANTS_JS_GROUPS=www` (groups.mjs, base.mjs).
import { config } from "./base.mjs";

export default config("www");
