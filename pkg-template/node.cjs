"use strict";
// CommonJS entry for Node. The wasm-bindgen `nodejs` glue compiles and
// instantiates the module synchronously while it is being required.
const glue = require("./node/session_tree.js");

exports.parseSession = glue.parseSession;
exports.migrate = glue.migrate;
exports.getTree = glue.getTree;
exports.buildSessionContext = glue.buildSessionContext;
exports.inspectSession = glue.inspectSession;
exports.Session = glue.Session;
exports.sessionInfo = glue.sessionInfo;
