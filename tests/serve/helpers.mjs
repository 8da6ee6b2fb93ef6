// Starting the real `session-tree serve` command (pkg/bin/session-tree.js) as a
// child process, and raw HTTP requests to it (node:net, so the Host header and
// the request path are exactly what the test wrote).

import { spawn } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../pkg/bin/session-tree.js", import.meta.url));

/** Runs `session-tree serve DIR --port 0 …`; resolves to `{ url, port, stop() }` once it printed its URL. */
export function startServe(dir, args = [], { env = process.env } = {}) {
  const child = spawn(process.execPath, [BIN, "serve", dir, "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL: ${out} ${err}`)), 15_000);
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    child.stdout.on("data", (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[0],
        port: Number(m[1]),
        pid: child.pid,
        output: () => out,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

/**
 * Sends `GET <target> HTTP/1.1` with the given Host (null: none) and resolves
 * to `{ status, headers, body }` (body as a string).
 */
export function rawGet(port, target, { host = `127.0.0.1:${port}`, method = "GET", headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks = [];
    socket.on("data", (d) => chunks.push(d));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const head = text.slice(0, split).split("\r\n");
      const status = Number(head[0].split(" ")[1]);
      const hdrs = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(":");
        hdrs[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers: hdrs, body: Buffer.from(text.slice(split + 4), "latin1").toString("utf8") });
    });
    const lines = [`${method} ${target} HTTP/1.1`];
    if (host !== null) lines.push(`Host: ${host}`);
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    lines.push("Connection: close", "", "");
    socket.write(lines.join("\r\n"));
  });
}
