"use strict";
// Where pi keeps sessions, and how it compares paths. pi names a project's
// session folder after its cwd: `<agent dir>/sessions/--<cwd, separators as
// dashes>--`, the agent dir being $PI_CODING_AGENT_DIR or ~/.pi/agent.

const { existsSync, mkdirSync } = require("node:fs");
const { homedir } = require("node:os");
const path = require("node:path");
const { fileURLToPath } = require("node:url");

/** `~`, `~/x` and `file://` URLs expanded (as pi does), not yet made absolute. */
function expandPath(input) {
  if (typeof input !== "string") throw new TypeError(`a path must be a string, not ${typeof input}`);
  if (input === "~") return homedir();
  if (input.startsWith("~/") || (process.platform === "win32" && input.startsWith("~\\")))
    return path.join(homedir(), input.slice(2));
  if (/^file:\/\//.test(input)) return fileURLToPath(input);
  return input;
}

/** An absolute path: `expandPath`, then resolved against the process's cwd. */
function resolvePath(input) {
  return path.resolve(expandPath(input));
}

/** Whether two paths name the same place (case-folded on Windows), without touching the disk. */
function pathsEqual(a, b) {
  const key = (p) => (process.platform === "win32" ? path.resolve(p).toLowerCase() : path.resolve(p));
  return key(a) === key(b);
}

/** pi's agent folder: $PI_CODING_AGENT_DIR (with `~` expanded), else ~/.pi/agent. */
function getAgentDir() {
  const env = process.env.PI_CODING_AGENT_DIR;
  return env ? expandPath(env) : path.join(homedir(), ".pi", "agent");
}

/** The folder pi keeps `cwd`'s sessions in, without creating it. */
function sessionDirPath(cwd, agentDir = getAgentDir()) {
  const safe = `--${resolvePath(cwd)
    .replace(/^[/\\]/, "")
    .replace(/[/\\:]/g, "-")}--`;
  return path.join(resolvePath(agentDir), "sessions", safe);
}

/** The folder pi keeps `cwd`'s sessions in, created if missing (pi's `getDefaultSessionDir`). */
function getDefaultSessionDir(cwd, agentDir) {
  const dir = sessionDirPath(cwd, agentDir);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return dir;
}

/** A new session's file name: `<ISO time with : and . as ->_<id>.jsonl`. */
function sessionFileName(timestamp, id) {
  return `${String(timestamp).replace(/[:.]/g, "-")}_${id}.jsonl`;
}

module.exports = {
  expandPath,
  resolvePath,
  pathsEqual,
  getAgentDir,
  sessionDirPath,
  getDefaultSessionDir,
  sessionFileName,
};
