// `session-tree serve [DIR]`: the viewer over every session in DIR, live, on
// http://127.0.0.1:<port>/ (see serve/server.js for what it serves and refuses).

import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { printable, readOptions } from "../io.js";
import { startServer } from "../serve/server.js";

const DEFAULT_PORT = 8377;

/** Opens `url` in the system browser where there is one; says nothing otherwise. */
function openBrowser(url, platform = process.platform) {
  const [cmd, args] =
    platform === "darwin"
      ? ["open", [url]]
      : platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(cmd, args, { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {}
}

export default {
  name: "serve",
  summary: "browse every session of a folder in the viewer, live",
  usage: `usage: session-tree serve [DIR] [--port N] [--host H] [--open]

Serves the session viewer with every session under DIR (default:
~/.pi/agent/sessions) behind it, read-only: a list grouped by project with
forks under the session they came from, search across sessions, and the open
session followed live as it is written. Prints the URL and runs until stopped.

  --port N   the port (default ${DEFAULT_PORT}, or a free one if it is taken;
             0: any free port)
  --host H   the address to listen on (default 127.0.0.1, loopback only)
  --open     open the page in the system browser, where there is one

Security: it answers GET and HEAD only, to requests whose Host header is
127.0.0.1, localhost or [::1] with its port (or H when --host is given), and
sends only the viewer's own files and the .jsonl files inside DIR (no "..", no
encoded separators, no symlink leading out of DIR). Exit codes: 0 stopped;
2 bad usage, a DIR that is not a directory, or a port it cannot listen on.`,
  options: {
    port: { type: "string" },
    host: { type: "string" },
    open: { type: "boolean" },
  },
  allowPositionals: true,

  async run({ values, positionals }, io) {
    if (positionals.length > 1) {
      io.stderr.write("session-tree serve: at most one DIR\n");
      return 2;
    }
    const home = io.env?.HOME || io.env?.USERPROFILE || "";
    // without a home, the default would be a folder under the working directory
    if (positionals[0] === undefined && !home) {
      io.stderr.write("session-tree serve: no home folder (HOME is not set): give a DIR\n");
      return 2;
    }
    const dir = path.resolve(io.cwd ?? ".", positionals[0] ?? path.join(home, ".pi", "agent", "sessions"));
    try {
      if (!(await stat(dir)).isDirectory()) throw new Error();
    } catch {
      io.stderr.write(`session-tree serve: not a directory: ${printable(dir)}\n`);
      return 2;
    }
    let port = DEFAULT_PORT;
    if (values.port !== undefined) {
      if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
        io.stderr.write(`session-tree serve: --port must be a number from 0 to 65535, not ${values.port}\n`);
        return 2;
      }
      port = Number(values.port);
    }
    const host = values.host ?? "127.0.0.1";
    // serve reads files by piece itself (search, follow) as well as through the package.
    const { pieceSize } = readOptions(io);
    let server;
    try {
      server = await startServer({ dir, port, host, pieceSize });
    } catch (error) {
      if (error?.code === "EADDRINUSE" && values.port === undefined)
        server = await startServer({ dir, port: 0, host, pieceSize });
      else {
        io.stderr.write(`session-tree serve: cannot listen on ${host}:${port}: ${error?.code ?? error?.message}\n`);
        return 2;
      }
    }
    io.stdout.write(`session-tree serving ${dir}\n${server.url}\n`);
    if (values.open) openBrowser(server.url);
    // Runs until the process is stopped, or until io.signal (tests) aborts.
    await new Promise((resolve) => {
      if (io.signal) io.signal.addEventListener("abort", resolve, { once: true });
    });
    await server.close();
    return 0;
  },
};
