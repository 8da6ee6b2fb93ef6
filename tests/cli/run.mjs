// Runs the command in-process with fake streams: `run(argv, options)` gives
// `{ code, stdout, stderr, bytes }` (bytes: stdout as a Buffer). `extra` adds
// to `io` (list's `progressAfterMs` and `now`).
import { Readable } from "node:stream";
import { main } from "../../pkg/cli/main.js";

function sink(isTTY) {
  const chunks = [];
  return {
    isTTY,
    chunks,
    write(data) {
      chunks.push(
        typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
      );
      return true;
    },
  };
}

export async function run(
  argv,
  { stdin, env = {}, isTTY = false, stderrTTY = false, cwd = process.cwd(), fs, extra = {} } = {},
) {
  const stdout = sink(isTTY);
  const stderr = sink(stderrTTY);
  const io = {
    stdout,
    stderr,
    stdin: Readable.from(stdin === undefined ? [] : [Buffer.from(stdin)]),
    env,
    isTTY,
    cwd,
  };
  if (fs) io.fs = fs;
  Object.assign(io, extra);
  const code = await main(argv, io);
  const bytes = Buffer.concat(stdout.chunks);
  return { code, stdout: bytes.toString("utf8"), stderr: Buffer.concat(stderr.chunks).toString("utf8"), bytes };
}
