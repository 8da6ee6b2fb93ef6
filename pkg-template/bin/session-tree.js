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

// Deno without --allow-env throws on reading a variable: one it may not read
// counts as unset (the command reads a few optional ones: NO_COLOR, HOME, …),
// and the error handler that asks for SESSION_TREE_DEBUG must not throw itself
// (the target is an empty object: a Proxy's checks of its target would ask Deno's
// process.env again, and throw)
const env = new Proxy(
  {},
  {
    get(_, name) {
      try {
        return process.env[name];
      } catch {
        return undefined;
      }
    },
  },
);

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env,
  isTTY: Boolean(process.stdout.isTTY),
  cwd: process.cwd(),
});
