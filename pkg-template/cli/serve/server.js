// `session-tree serve`: the viewer and the sessions of one folder over HTTP,
// read-only, for the machine it runs on.
//
//   /                 the viewer (pkg/viewer/index.html, told that a server is behind it)
//   /<asset>          the viewer's own files; /pkg/<file> the package files it imports
//   /files/<rel>      a session's bytes (Range, or ?offset=N for the bytes from N); with
//                     an `x-session-tree-since: SIZE HEAD` header, only while the file is
//                     the one of SIZE bytes whose first bytes hash to HEAD, or grew from
//                     it by appends (protocol.js), else 412: a page reading a large file
//                     by range never mixes two versions of it
//   /api/list         Server-Sent Events: a `row` per session as it is read, `progress`
//                     while the folder is first read, then `row`/`remove` as files change
//   /api/search?q=    JSON: the entries matching the query, as { path, entryId, … }
//   /api/follow?path=REL&offset=N&head=H   Server-Sent Events: appended bytes (protocol.js)
//   /api/usage?since=&until=&timeZone=&bars=   JSON: the Usage view's data (usage-data.js)
//
// Security: GET and HEAD only; the Host header must name a loopback address
// with the server's port (or the --host given); paths are checked by paths.js.

import { constants, watch } from "node:fs";
import { open, readFile, realpath, stat } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { FolderIndex } from "./folder-index.js";
import { allowedHosts, Refused, rawSegments, relSegments, resolveInside, resolveSession } from "./paths.js";
import { HEAD_BYTES, headHash } from "./protocol.js";
import { PIECE_SIZE } from "./read-lines.js";

const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".wasm": "application/wasm",
  ".jsonl": "application/jsonl; charset=utf-8",
};

// The package files the viewer imports (the wasm build and the pure modules).
const PKG_ALLOWED = [
  /^browser\.js$/,
  /^blob-source\.js$/,
  /^recover\.js$/,
  /^web\/.+\.(js|wasm)$/,
  /^cli\/lineage\.js$/,
  /^cli\/serve\/(search-text|protocol|usage-data)\.js$/,
];

// Every path the server opens is a real path, checked inside its root: one that
// has become a symbolic link since (a followed session replaced by a link out of
// DIR) is not opened. (O_NOFOLLOW is undefined on Windows: 0 there.)
const READ_NOFOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

const CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
  "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const baseHeaders = (type) => ({
  "content-type": type,
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
  "content-security-policy": CSP,
});

function sendText(res, status, text) {
  if (res.headersSent) return res.destroy();
  res.writeHead(status, baseHeaders("text/plain; charset=utf-8"));
  res.end(`${text}\n`);
}

/** The Usage view's options from the query; a 400 for a value the ledger would refuse. */
function usageOptions(params) {
  const options = {};
  for (const key of ["since", "until"]) {
    const v = params.get(key);
    if (!v) continue;
    // Date.parse takes 2026-02-31 (as March 3); the ledger does not: a day must read back as itself.
    const day = /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T00:00:00Z`) : null;
    if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== v)
      throw new Refused(400, `${key} must be a date as YYYY-MM-DD`);
    options[key] = v;
  }
  const zone = params.get("timeZone");
  if (zone) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
    } catch {
      throw new Refused(400, "timeZone must be a time zone such as Europe/Paris or UTC");
    }
    options.timeZone = zone;
  }
  const bars = params.get("bars") ?? "auto";
  if (!["auto", "day", "week", "month"].includes(bars)) throw new Refused(400, "bars must be auto, day, week or month");
  options.bars = bars;
  return options;
}

/** Reads `buf.length` bytes of `fh` from `from` on (fewer where the file ends). */
async function readAt(fh, buf, from) {
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
    if (!bytesRead) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/**
 * Whether the file open as `fh`, of `size` bytes now, is still the one a
 * reader opened at `since` (`"SIZE HEAD"`: its size then and protocol.js's
 * hash of its first bytes) or grew from it by appends.
 */
async function sameSince(fh, size, since) {
  const m = /^(\d+) ([0-9a-f]{8})$/.exec(since);
  if (!m) throw new Refused(400, "x-session-tree-since must be a size and a head hash");
  const then = Number(m[1]);
  if (size < then) return false;
  return headHash(await readAt(fh, Buffer.alloc(Math.min(then, HEAD_BYTES)), 0)) === m[2];
}

/**
 * Starts the server. `dir`: the sessions folder; `viewerDir`/`pkgDir`: where the
 * viewer and the package files are (default: this package's); `pieceSize`: how
 * many bytes each read of a session takes (listing, search, follow); `pingMs`: how
 * often an idle event stream gets a `: ping` comment (tests make it short). Resolves to
 * `{ url, port, host, close() }`.
 */
export async function startServer({
  dir,
  port = 0,
  host = "127.0.0.1",
  viewerDir,
  pkgDir,
  pieceSize = PIECE_SIZE,
  pingMs = 15_000,
} = {}) {
  const root = await realpath(path.resolve(dir));
  if (!(await stat(root)).isDirectory()) throw new Error(`not a directory: ${dir}`);
  const viewerRoot = await realpath(viewerDir ?? path.join(PACKAGE_DIR, "viewer"));
  const pkgRoot = await realpath(pkgDir ?? PACKAGE_DIR);
  const index = new FolderIndex(root, { pieceSize });
  const streams = new Set();
  let hosts = new Set();

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (error instanceof Refused) sendText(res, error.status, error.message);
      else sendText(res, 500, "internal error");
    });
  });

  async function handle(req, res) {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      throw new Refused(405, "method not allowed");
    }
    if (!hosts.has(String(req.headers.host ?? "").toLowerCase())) throw new Refused(421, "unknown host");
    const raw = req.url ?? "";
    if (!raw.startsWith("/")) throw new Refused(400, "bad request");
    const q = raw.indexOf("?");
    const rawPath = q < 0 ? raw : raw.slice(0, q);
    const params = new URLSearchParams(q < 0 ? "" : raw.slice(q + 1));

    if (rawPath === "/" || rawPath === "/index.html") return sendIndex(res, req.method);
    if (rawPath === "/api/list") return listStream(req, res);
    if (rawPath === "/api/search") return sendJson(res, await index.search(params.get("q") ?? ""));
    if (rawPath === "/api/follow") return follow(req, res, params);
    if (rawPath === "/api/usage") return sendJson(res, await index.usage(usageOptions(params)));
    if (rawPath.startsWith("/files/")) {
      const file = await resolveSession(root, rawSegments(rawPath.slice(7)));
      return sendFile(req, res, file, params);
    }
    if (rawPath.startsWith("/pkg/")) {
      const segments = rawSegments(rawPath.slice(5));
      if (!PKG_ALLOWED.some((re) => re.test(segments.join("/")))) throw new Refused(404, "not found");
      return sendFile(req, res, await resolveInside(pkgRoot, segments), params);
    }
    const segments = rawSegments(rawPath.slice(1));
    const ext = path.extname(segments[segments.length - 1]);
    // The viewer's only .jsonl is its sample; sessions come from /files/.
    if (!TYPES[ext] || (ext === ".jsonl" && segments.join("/") !== "sample.jsonl")) throw new Refused(404, "not found");
    return sendFile(req, res, await resolveInside(viewerRoot, segments), params);
  }

  async function sendIndex(res, method) {
    const html = await readFile(path.join(viewerRoot, "index.html"), "utf8");
    // Tells the page that a server is behind it (folder.js reads it).
    const body = html.replace("<head>", '<head>\n  <meta name="session-tree-serve" content="1">');
    res.writeHead(200, baseHeaders(TYPES[".html"]));
    res.end(method === "HEAD" ? undefined : body);
  }

  function sendJson(res, value) {
    res.writeHead(200, baseHeaders("application/json; charset=utf-8"));
    res.end(JSON.stringify(value));
  }

  async function sendFile(req, res, file, params) {
    // One descriptor for the checks and the bytes: a file replaced meanwhile is not mixed in.
    const fh = await open(file, READ_NOFOLLOW).catch(() => {
      throw new Refused(404, "not found");
    });
    try {
      await sendOpenFile(req, res, file, fh, params);
    } finally {
      await fh.close();
    }
  }

  async function sendOpenFile(req, res, file, fh, params) {
    const size = (await fh.stat()).size;
    const since = req.headers["x-session-tree-since"];
    if (since !== undefined && !(await sameSince(fh, size, String(since)))) {
      throw new Refused(412, "the file changed: it is no longer the one being read");
    }
    const headers = baseHeaders(TYPES[path.extname(file)] ?? "application/octet-stream");
    headers["accept-ranges"] = "bytes";
    let start = 0;
    let end = size - 1;
    let status = 200;
    let range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    // Ignored, as RFC 9110 lets a server: a range that ends before it starts is
    // invalid, and an empty file has no bytes a 206 could name in Content-Range.
    if (range && ((range[1] && range[2] && Number(range[2]) < Number(range[1])) || size === 0)) range = null;
    const offset = params.get("offset");
    if (range && (range[1] || range[2])) {
      if (range[1]) {
        start = Number(range[1]);
        if (range[2]) end = Math.min(Number(range[2]), size - 1);
      } else start = Math.max(0, size - Number(range[2]));
      status = 206;
    } else if (offset !== null) {
      if (!/^\d+$/.test(offset)) throw new Refused(400, "bad offset");
      start = Number(offset);
      status = 206;
    }
    if (status === 206) {
      if (start > size || (start === size && size > 0 && range) || start > end + 1) {
        res.writeHead(416, { ...baseHeaders("text/plain; charset=utf-8"), "content-range": `bytes */${size}` });
        return res.end();
      }
      if (start <= end) headers["content-range"] = `bytes ${start}-${end}/${size}`;
    }
    headers["content-length"] = String(Math.max(0, end - start + 1));
    headers["x-file-size"] = String(size);
    res.writeHead(status, headers);
    if (req.method === "HEAD" || end < start) return res.end();
    // pipeline settles even for a client already gone, so the caller always closes `fh`.
    await pipeline(fh.createReadStream({ start, end, autoClose: false }), res).catch(() => {});
  }

  /**
   * Opens an event stream, or gives null when its client is already gone: one
   * that hangs up while the request awaits the file system has closed `res`
   * before a listener could be added, and a listener added then never fires
   * (its timers and watcher would run for ever). The caller sets `stop` before
   * it next awaits.
   */
  function sseStart(res) {
    if (res.closed || res.destroyed) return null;
    res.writeHead(200, { ...baseHeaders("text/event-stream; charset=utf-8"), connection: "keep-alive" });
    res.write(": session-tree\n\n");
    // A comment now and then keeps proxies and the browser from closing an idle stream. Not
    // to a client that has not taken what was written before: the stream is not idle, and
    // one that never reads would make every ping wait in this process for good.
    const ping = setInterval(() => {
      if (!(res.writableLength > 0)) res.write(": ping\n\n");
    }, pingMs);
    const entry = { res, stop: () => {} };
    streams.add(entry);
    res.once("close", () => {
      clearInterval(ping);
      streams.delete(entry);
      entry.stop();
    });
    return entry;
  }

  /** Resolves when `res` can take more (or is closed). */
  const drained = (res) =>
    new Promise((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });

  const event = (res, type, data, id) =>
    res.write(`event: ${type}\n${id !== undefined ? `id: ${id}\n` : ""}data: ${JSON.stringify(data)}\n\n`);

  /**
   * The list as events, sent as fast as the client reads them: nothing is
   * written while `res` says its buffer is full, until it drains. What is
   * not sent yet waits as the latest row (or removal) per path plus the
   * latest progress, references to the index's own rows: a client that
   * never reads costs the server no copy of the list, only this map.
   */
  function listStream(req, res) {
    const entry = sseStart(res);
    if (!entry) return;
    if (req.method === "HEAD") return res.end();
    const REMOVED = null;
    const pending = new Map();
    for (const row of index.rows()) pending.set(row.path, row);
    let progress = { ...index.progress };
    let blocked = false;
    let closed = false;
    const send = () => {
      while (!blocked && !closed) {
        let ok;
        if (pending.size > 0) {
          const [path, row] = pending.entries().next().value;
          pending.delete(path);
          ok = row === REMOVED ? event(res, "remove", { path }) : event(res, "row", row);
        } else if (progress !== null) {
          ok = event(res, "progress", progress);
          progress = null;
        } else return;
        if (!ok) {
          blocked = true;
          res.once("drain", () => {
            blocked = false;
            send();
          });
        }
      }
    };
    const stop = index.subscribe((e) => {
      if (e.type === "row") {
        // a row sent again moves to the end, after the rows it came after
        pending.delete(e.row.path);
        pending.set(e.row.path, e.row);
      } else if (e.type === "remove") {
        pending.delete(e.path);
        pending.set(e.path, REMOVED);
      } else if (e.type === "progress") {
        const { type, ...rest } = e;
        progress = rest;
      }
      send();
    });
    entry.stop = () => {
      closed = true;
      stop();
    };
    send();
  }

  async function follow(req, res, params) {
    const segments = relSegments(params.get("path") ?? "");
    const file = await resolveSession(root, segments);
    const offsetText = params.get("offset") ?? "0";
    if (!/^\d+$/.test(offsetText)) throw new Refused(400, "bad offset");
    let pos = Number(offsetText);
    const entry = sseStart(res);
    if (!entry) return;
    if (req.method === "HEAD") return res.end();
    let closed = false;
    let busy = false;
    let again = false;
    // The client's first bytes, as protocol.js hashes them: a change means a rewrite.
    let headLen = Math.min(pos, HEAD_BYTES);
    let head = params.get("head");
    const readRange = (fh, from, to) => readAt(fh, Buffer.alloc(Math.max(0, to - from)), from);
    const reset = () => {
      event(res, "reset", {});
      finish();
    };
    const check = async () => {
      if (closed) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      let fh;
      try {
        fh = await open(file, READ_NOFOLLOW);
        // A folder on its path replaced by a link: the file may now be outside DIR.
        if ((await realpath(file)) !== file) return;
        const size = (await fh.stat()).size;
        if (size < pos) return reset();
        const headNow = headHash(await readRange(fh, 0, headLen));
        if (head === null) head = headNow;
        else if (headNow !== head) return reset();
        // From the last offset on, a piece at a time: the file is never read whole again.
        while (size > pos && !closed) {
          const chunk = await readRange(fh, pos, Math.min(size, pos + pieceSize));
          if (!chunk.length) break;
          // Cut or rewritten while read: nothing of the new version goes out.
          if ((await fh.stat()).size < pos + chunk.length) return reset();
          if (headLen && headHash(await readRange(fh, 0, headLen)) !== head) return reset();
          pos += chunk.length;
          // a client that reads slowly (or never) holds the next read back:
          // the file must not pile up in this process
          if (!event(res, "append", chunk.toString("base64"), pos)) await drained(res);
        }
        if (headLen < HEAD_BYTES && pos > headLen) {
          headLen = Math.min(pos, HEAD_BYTES);
          head = headHash(await readRange(fh, 0, headLen));
        }
      } catch {
        // The file is gone (being replaced, say): the next check decides.
      } finally {
        await fh?.close();
        busy = false;
        if (again && !closed) {
          again = false;
          check();
        }
      }
    };
    let watcher = null;
    try {
      watcher = watch(file, () => check());
      watcher.on("error", () => {});
    } catch {}
    const poll = setInterval(check, 500);
    const finish = () => {
      if (closed) return;
      closed = true;
      clearInterval(poll);
      watcher?.close();
      res.end();
    };
    entry.stop = finish;
    check();
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actualPort = server.address().port;
  hosts = allowedHosts(actualPort, host);
  index.start();
  const shownHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    url: `http://${shownHost}:${actualPort}/`,
    port: actualPort,
    host,
    root,
    index,
    close() {
      index.stop();
      for (const s of streams) {
        s.stop();
        s.res.destroy();
      }
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
    },
  };
}
