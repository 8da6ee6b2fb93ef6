"use strict";
// CommonJS entry for Node. The wasm-bindgen `nodejs` glue compiles and
// instantiates the module synchronously while it is being required.
const glue = require("./node/session_tree.js");
const { recovering } = require("./recover.cjs");

const names = ["parseSession", "migrate", "getTree", "previewEntries", "buildSessionContext", "buildContextEntries", "buildSessionProjection", "currentSystemMessage", "inspectSession", "countEntries", "Session", "sessionInfo", "sessionUsage", "UsageLedger"];
// Test builds export `__forceTrap`, to check recovery from a trap.
if (glue.__forceTrap) names.push("__forceTrap");
const { fileSource } = require("./file-source.cjs");
module.exports = { ...recovering(glue, names), fileSource };
