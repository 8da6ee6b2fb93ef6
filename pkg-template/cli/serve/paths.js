// Which files `session-tree serve` may send. Every request path goes through
// here; anything doubtful is refused rather than cleaned up, and the reasons
// given never name a path outside DIR.

import { realpath, stat } from "node:fs/promises";
import path from "node:path";

export class Refused extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// Encoded separators, encoded "%" (double encoding) and NUL stay encoded in a
// raw path only to smuggle something past a check; none is needed by a real
// session name.
const SMUGGLED = /%(2f|5c|25|00)/i;

/** The segments of a raw (still percent-encoded) URL path below a prefix. */
export function rawSegments(raw) {
  if (raw.includes("\\") || SMUGGLED.test(raw)) throw new Refused(400, "bad path");
  let decoded;
  try {
    decoded = raw.split("/").map((s) => decodeURIComponent(s));
  } catch {
    throw new Refused(400, "bad path");
  }
  return checkSegments(decoded);
}

/** The segments of an already decoded relative path (a query parameter). */
export function relSegments(rel) {
  if (typeof rel !== "string" || rel.includes("\\") || rel.startsWith("/")) throw new Refused(400, "bad path");
  return checkSegments(rel.split("/"));
}

function checkSegments(segments) {
  for (const s of segments) {
    // "%" left after decoding means the path was encoded twice.
    if (!s || s === "." || s === ".." || /[\\/\0%]/.test(s)) throw new Refused(400, "bad path");
  }
  if (!segments.length) throw new Refused(400, "bad path");
  return segments;
}

/**
 * The real path of a regular file named by `segments` inside `rootReal` (itself a
 * real path), or a Refused error: 404 when there is no such file, 403 when it
 * resolves outside the root (a symlink leading out).
 */
export async function resolveInside(rootReal, segments) {
  const joined = path.join(rootReal, ...segments);
  let real;
  try {
    real = await realpath(joined);
  } catch {
    throw new Refused(404, "not found");
  }
  if (!real.startsWith(rootReal + path.sep)) throw new Refused(403, "forbidden");
  let st;
  try {
    st = await stat(real);
  } catch {
    throw new Refused(404, "not found");
  }
  if (!st.isFile()) throw new Refused(404, "not found");
  return real;
}

/** A session file inside DIR: `.jsonl` only. */
export async function resolveSession(rootReal, segments) {
  if (!segments[segments.length - 1].endsWith(".jsonl")) throw new Refused(403, "only .jsonl files are served");
  return resolveInside(rootReal, segments);
}

const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

/** The Host header values the server answers to (DNS rebinding: any other name is refused). */
export function allowedHosts(port, host) {
  const names = new Set(LOOPBACK);
  if (host && !["127.0.0.1", "localhost", "::1"].includes(host)) names.add(host.includes(":") ? `[${host}]` : host);
  return new Set([...names].map((n) => `${n}:${port}`.toLowerCase()));
}
