#!/usr/bin/env node
// The `session-tree` executable: runs ../cli/main.js with the real process.
import { describeFsError } from "../cli/io.js";
import { main } from "../cli/main.js";

// `session-tree list DIR | head`: a closed pipe ends the output quietly. Any
// other failure to write (a full disk, `> /dev/full`) is input/output the
// command cannot do: one line on stderr and exit 2, never a stack trace.
for (const [stream, name] of [
  [process.stdout, "standard output"],
  [process.stderr, "standard error"],
]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    if (stream !== process.stderr) {
      try {
        process.stderr.write(`session-tree: cannot write to ${describeFsError(name, error)}\n`);
      } catch {}
    }
    process.exit(2);
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
