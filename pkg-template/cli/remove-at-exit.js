// Run by `migrate` as a child of its own (see `leftoverGuard` in io.js):
// reads `["watch", path]` and `["keep", path]`, one a line, on stdin (and
// answers each with a newline on stdout), and
// when stdin ends (the command is done, or was killed: Ctrl-C, `kill`, out of
// memory) removes the paths watched and not kept that still exist. The migration is synchronous, so the command itself
// runs no code of its own when a signal kills it; this process outlives it.
// A path the command renamed away (its temporary file, once it replaced the
// session) is simply no longer there.
import { rmSync } from "node:fs";

const paths = new Set();
let held = "";
// an answer to a command already gone fails (EPIPE): the sweep still runs
process.stdout.on("error", () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text) => {
  held += text;
  const lines = held.split("\n");
  held = lines.pop();
  for (const line of lines) {
    if (!line) continue;
    const [what, path] = JSON.parse(line);
    if (what === "watch") paths.add(path);
    else paths.delete(path);
    // the answer: the command goes on only once the guard has the line
    process.stdout.write("\n");
  }
});
const sweep = () => {
  for (const path of paths) {
    try {
      rmSync(path, { force: true });
    } catch {}
  }
  process.exit(0);
};
process.stdin.on("end", sweep);
process.stdin.on("error", sweep);
