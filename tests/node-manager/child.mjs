// A second process for the manager suite, run by the same runtime as the
// suite (Node, Bun or Deno):
//   child.mjs append FILE SEED DURABILITY  opens FILE for writing and appends
//     messages (sizes drawn from SEED) until it is killed, printing "ready",
//     then the sequence number of each append once it has returned;
//   child.mjs hold FILE MS  opens FILE for writing, prints "ready", holds it
//     MS milliseconds (forever if 0), then closes it and exits;
//   child.mjs try FILE  opens FILE for writing and appends a message, printing
//     "appended", or the error's name and message.
import { writeSync } from "node:fs";
import { SessionManager } from "session-tree/node";
import { Rng } from "../shared/rng.mjs";

const [mode, file, arg, durability] = process.argv.slice(2);
const say = (text) => writeSync(1, `${text}\n`);

if (mode === "append") {
  const rng = new Rng(Number(arg));
  const manager = SessionManager.open(file, undefined, undefined, { durability });
  say("ready");
  for (let seq = 1; ; seq++) {
    // mostly small lines, some large enough that a kill can land inside one write
    const size = rng.chance(0.2) ? rng.int(64 * 1024, 512 * 1024) : rng.int(10, 2000);
    manager.appendMessage({ role: "user", content: "x".repeat(size), timestamp: seq, seq, pid: process.pid });
    say(String(seq));
  }
} else if (mode === "hold") {
  const manager = SessionManager.open(file);
  say("ready");
  const ms = Number(arg);
  if (ms > 0)
    setTimeout(() => {
      manager.close();
      process.exit(0);
    }, ms);
  else setInterval(() => {}, 1 << 30);
} else if (mode === "try") {
  try {
    const manager = SessionManager.open(file);
    manager.appendMessage({ role: "user", content: "from a second writer", timestamp: 2 });
    manager.close();
    say("appended");
  } catch (error) {
    say(`${error?.name}: ${error?.message}`);
  }
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
