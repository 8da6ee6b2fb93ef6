// Starting the real `session-tree serve` command (pkg/bin/session-tree.js) as a
// child process, and raw HTTP requests to it (node:net, so the Host header and
// the request path are exactly what the test wrote); its event streams; a
// large session written to disk; search queries drawn from a session.

import { spawn } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { entryText, tokenize } from "../../pkg/cli/serve/search-text.js";

export const BIN = fileURLToPath(new URL("../../pkg/bin/session-tree.js", import.meta.url));

/** Servers started and not yet exited: a test that fails before its `stop()` leaves one running. */
const running = new Set();
// Under node:test, each file stops what its failed tests left running once they are done:
// otherwise the server keeps the file's process, and the whole run, waiting for good.
if (process.env.NODE_TEST_CONTEXT) {
  const { after } = await import("node:test");
  after(() => {
    for (const child of running) child.kill("SIGKILL");
  });
}

/** Runs `session-tree serve DIR --port 0 …`; resolves to `{ url, port, stop() }` once it printed its URL. */
export function startServe(dir, args = [], { env = process.env } = {}) {
  const child = spawn(process.execPath, [BIN, "serve", dir, "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
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

/**
 * Reads the Server-Sent Events of `url` (api/list, api/follow). `next(type,
 * { timeout, ok })` resolves with the next event of that type (whose data
 * passes `ok`) as `{ type, id, data }`, data parsed; `events` holds those not
 * taken yet; `close()` ends the stream.
 */
export function sseStream(url) {
  const events = [];
  const waiters = new Set();
  let buf = "";
  const req = request(url, (res) => {
    res.setEncoding("utf8");
    res.on("data", (d) => {
      buf += d;
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const ev = {};
        for (const line of buf.slice(0, i).split("\n")) {
          if (line.startsWith("event: ")) ev.type = line.slice(7);
          else if (line.startsWith("id: ")) ev.id = Number(line.slice(4));
          else if (line.startsWith("data: ")) ev.data = JSON.parse(line.slice(6));
        }
        buf = buf.slice(i + 2);
        if (ev.type) events.push(ev);
      }
      for (const w of [...waiters]) w();
    });
  });
  req.on("error", () => {});
  req.end();
  const next = (type, { timeout = 5000, ok = () => true } = {}) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const i = events.findIndex((e) => e.type === type && ok(e.data));
        if (i < 0) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(events.splice(i, 1)[0]);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${type} event in ${timeout} ms: ${JSON.stringify(events).slice(0, 500)}`));
      }, timeout);
      waiters.add(check);
      check();
    });
  return { next, events, close: () => req.destroy() };
}

/**
 * Writes a version 3 session of a little over `bytes` to `file`, step by
 * step: a user message, and beside it a tool result of `resultBytes` of
 * non-ASCII text; the last entry a user message saying `last`. Returns
 * `{ size, first, last }`: the bytes written, the first result's id, the
 * last entry's id.
 */
export function writeLargeSession(file, bytes, { resultBytes = 1 << 20, last = "the end" } = {}) {
  const fd = openSync(file, "w");
  const at = (s) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const text = "ü".repeat(resultBytes / 2);
  let size = 0;
  const put = (entry) => {
    size += writeSync(fd, `${JSON.stringify(entry)}\n`);
  };
  try {
    put({ type: "session", version: 3, id: "big", timestamp: at(0), cwd: "/big" });
    let step = 0;
    const user = (content, parentId) =>
      put({
        type: "message",
        id: `u${step}`,
        parentId,
        timestamp: at(2 * step + 1),
        message: { role: "user", content },
      });
    for (; size < bytes; step++) {
      user(`step ${step}`, step ? `u${step - 1}` : null);
      const result = {
        role: "toolResult",
        toolCallId: `c${step}`,
        toolName: "read",
        content: [{ type: "text", text }],
      };
      put({ type: "message", id: `r${step}`, parentId: `u${step}`, timestamp: at(2 * step + 2), message: result });
    }
    user(last, `u${step - 1}`);
    return { size, first: "r0", last: `u${step}` };
  } finally {
    closeSync(fd);
  }
}

/**
 * A query drawn from one line of JSONL `lines`, or null when the line has no
 * searchable words: a word, two words, or a quoted phrase of 2 or 3 words.
 */
export function drawQuery(rng, lines) {
  let entry;
  try {
    entry = JSON.parse(rng.pick(lines));
  } catch {
    return null;
  }
  const words = tokenize(entryText(entry)).filter(Boolean);
  if (!words.length) return null;
  const at = rng.int(0, words.length - 1);
  const phrase = words.slice(at, at + rng.int(2, 3));
  return rng.pick([words[at], `${words[at]} ${rng.pick(words)}`, `"${phrase.join(" ")}"`]);
}
