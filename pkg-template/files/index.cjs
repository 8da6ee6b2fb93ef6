"use strict";
// `session-tree/node` for CommonJS: pi's file-backed SessionManager and the
// session folder as an API, for Node 20+, Bun and Deno. The main entry stays
// free of the file system (browsers); this one is built on it.

const { SessionManager, loadEntriesFromFile, findMostRecentSession, getDefaultSessionDir } = require("./manager.cjs");
const { listSessions } = require("./folder.cjs");
const { SessionLockedError } = require("./lock.cjs");
// cli/lineage.js, which the browser viewer also loads, as CommonJS (make build writes it)
const { buildLineage, flattenLineage, orderSessions } = require("../cli/lineage.cjs");

module.exports = {
  SessionManager,
  SessionLockedError,
  loadEntriesFromFile,
  findMostRecentSession,
  getDefaultSessionDir,
  listSessions,
  buildLineage,
  flattenLineage,
  orderSessions,
};
