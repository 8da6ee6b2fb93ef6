// The `session-tree` command: parses the command name, `--help` and
// `--version`, and dispatches to a module of ./commands/. Each command module
// exports `{ name, summary, usage, options, allowPositionals, run }`; `run`
// gets the parsed `{ values, positionals }` and `io`, and returns the exit
// code: 0 ok, 1 problems found, 2 bad usage or unreadable input.
//
// `io` is `{ stdout, stderr, stdin, env, isTTY, cwd, fs? }`: stdout and stderr
// have `write(string | Uint8Array)` (and may have `isTTY`), `isTTY` tells
// whether stdout is a terminal, `fs` (optional) replaces node:fs/promises.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import branch from "./commands/branch.js";
import context from "./commands/context.js";
import info from "./commands/info.js";
import inspect from "./commands/inspect.js";
import list from "./commands/list.js";
import migrate from "./commands/migrate.js";
import serve from "./commands/serve.js";
import tree from "./commands/tree.js";
import usage from "./commands/usage.js";
import { line, printable, UsageError } from "./io.js";

/** Every command, in the order `--help` lists them. */
export const commands = [info, list, inspect, migrate, context, tree, branch, usage, serve];

const PROGRAM = "session-tree";

/** The package's version, from its package.json. */
export function version() {
  return JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
}

function programUsage() {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `usage: ${PROGRAM} <command> [options] [FILE…]`,
    "",
    "Reads pi coding agent sessions (JSONL files), as pi 1.6 does.",
    "",
    "commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "options:",
    "  -h, --help     this help; `session-tree <command> --help` for a command's",
    "  --version      the package's version",
    "",
    "FILE `-` reads standard input. Exit codes: 0 ok, 1 problems found,",
    "2 bad usage or unreadable input.",
  ].join("\n");
}

// A reason often names a file: one from a folder (a glob, a list) may hold
// control characters, which must not reach the terminal as escape sequences.
function oneLineReason(error) {
  return printable(
    String(error?.message ?? error)
      .replace(/\s*\n\s*/g, " ")
      .trim(),
  );
}

/** Runs the command line `argv` (without node and the script) and returns the exit code. */
export async function main(argv, io) {
  const [name, ...rest] = argv;
  if (name === undefined) {
    line(io.stderr, programUsage());
    return 2;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    const about = name === "help" && rest[0] !== undefined ? commands.find((c) => c.name === rest[0]) : undefined;
    if (name === "help" && rest[0] !== undefined && !about) {
      line(io.stderr, `${PROGRAM}: unknown command '${rest[0]}' (commands: ${commands.map((c) => c.name).join(", ")})`);
      return 2;
    }
    line(io.stdout, about ? about.usage : programUsage());
    return 0;
  }
  if (name === "--version" || name === "-v") {
    line(io.stdout, version());
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const what = name.startsWith("-") ? `unknown option '${name}'` : `unknown command '${name}'`;
    line(io.stderr, `${PROGRAM}: ${what} (commands: ${commands.map((c) => c.name).join(", ")}; see --help)`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: command.allowPositionals ?? true,
      strict: true,
    });
  } catch (error) {
    line(io.stderr, `${PROGRAM} ${name}: ${oneLineReason(error)} (see ${PROGRAM} ${name} --help)`);
    return 2;
  }
  if (parsed.values.help) {
    line(io.stdout, command.usage);
    return 0;
  }
  try {
    return await command.run(parsed, io);
  } catch (error) {
    if (error instanceof UsageError) {
      line(io.stderr, `${PROGRAM} ${name}: ${oneLineReason(error)}`);
      return error.exitCode;
    }
    line(io.stderr, `${PROGRAM} ${name}: unexpected error: ${oneLineReason(error)}`);
    if (io.env?.SESSION_TREE_DEBUG) line(io.stderr, String(error?.stack ?? ""));
    return 2;
  }
}
