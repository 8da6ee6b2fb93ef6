// A small static file server with no dependencies, used by the browser and
// consumer, README and viewer tests and by `make demo` (it lives outside tests/
// because the demo uses it).
//
//   node tools/static-server.mjs --root www --mount /pkg=pkg [--port 8080]
//
// As a module: `const server = await startStaticServer({ root, mounts, port })`
// gives `{ url, port, close() }`. Port 0 (the default) picks a free port.

import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";

const MIME_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".cjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".jsonl": "application/jsonl; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
};

function contentType(file) {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

/** Maps a URL path to a file below one of the served directories, or null. */
function resolveFile(urlPath, root, mounts) {
  // Longest mount prefix first, then the root.
  for (const [prefix, dir] of mounts) {
    if (urlPath === prefix || urlPath.startsWith(`${prefix}/`)) {
      return inside(dir, urlPath.slice(prefix.length));
    }
  }
  return inside(root, urlPath);
}

function inside(dir, rest) {
  const file = path.resolve(dir, `.${path.posix.normalize(`/${rest}`)}`);
  return file === dir || file.startsWith(dir + path.sep) ? file : null;
}

function send(res, status, text) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(text);
}

export async function startStaticServer({ root, mounts = {}, port = 0, host = "127.0.0.1", log = false } = {}) {
  const rootDir = path.resolve(root);
  const mountList = Object.entries(mounts)
    .map(([prefix, dir]) => [prefix.replace(/\/+$/, ""), path.resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);

  const server = createServer(async (req, res) => {
    try {
      if (req.method !== "GET" && req.method !== "HEAD") {
        res.setHeader("allow", "GET, HEAD");
        return send(res, 405, "method not allowed\n");
      }
      let urlPath;
      try {
        urlPath = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
      } catch {
        return send(res, 400, "bad request\n");
      }
      if (urlPath.includes("\0")) return send(res, 400, "bad request\n");
      let file = resolveFile(urlPath, rootDir, mountList);
      if (!file) return send(res, 403, "forbidden\n");
      let info = await stat(file).catch(() => null);
      if (info?.isDirectory()) {
        if (!urlPath.endsWith("/")) {
          res.writeHead(301, { location: `${urlPath}/` });
          return res.end();
        }
        file = path.join(file, "index.html");
        info = await stat(file).catch(() => null);
      }
      if (!info?.isFile()) {
        if (log) console.log(`404 ${urlPath}`);
        return send(res, 404, "not found\n");
      }
      res.writeHead(200, {
        "content-type": contentType(file),
        "content-length": info.size,
        "cache-control": "no-cache",
        "x-content-type-options": "nosniff",
      });
      if (req.method === "HEAD") return res.end();
      createReadStream(file)
        .on("error", () => res.destroy())
        .pipe(res);
      if (log) console.log(`200 ${urlPath}`);
    } catch (error) {
      send(res, 500, `internal error: ${error.message}\n`);
    }
  });

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const actualPort = server.address().port;
  return {
    server,
    port: actualPort,
    url: `http://${host}:${actualPort}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}

function parseArgs(argv) {
  const options = { root: ".", mounts: {}, port: Number(process.env.PORT ?? 8080) };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`missing value after ${arg}`);
      return argv[++i];
    };
    if (arg === "--root") options.root = value();
    else if (arg === "--port") options.port = Number(value());
    else if (arg === "--mount") {
      const spec = value();
      const eq = spec.indexOf("=");
      if (eq <= 0) throw new Error(`--mount expects /prefix=dir, got ${spec}`);
      options.mounts[spec.slice(0, eq)] = spec.slice(eq + 1);
    } else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`invalid port ${options.port}`);
  }
  return options;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = parseArgs(process.argv.slice(2));
  const { url } = await startStaticServer({ ...options, log: true });
  const mounted = Object.entries(options.mounts)
    .map(([p, d]) => `, ${p}/ from ${d}/`)
    .join("");
  console.log(`serving ${options.root}/${mounted}`);
  console.log(`open ${url}`);
  console.log("press Ctrl+C to stop");
}
