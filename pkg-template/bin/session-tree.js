#!/usr/bin/env node
// The `session-tree` executable: runs ../cli/main.js with the real process.
import { main } from "../cli/main.js";

// `session-tree list DIR | head`: a closed pipe ends the output quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
  cwd: process.cwd(),
});
