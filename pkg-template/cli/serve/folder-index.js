// The server's picture of DIR: one row per session file (what the list shows)
// and a Bloom filter of its words (what search narrows with), built by reading
// each file once, newest first, and kept up to date by fs.watch plus a
// periodic rescan. No file's bytes are kept: a search reads the few files the
// filters let through. Every read is by piece (read-lines.js), so a file of
// any size is listed, indexed and searched in memory that does not grow with it.

import { watch } from "node:fs";
import { lstat, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { findSessions } from "../../files/folder.cjs";
import * as lib from "../../node.js";
import { forEachLine, openSession, PIECE_SIZE } from "./read-lines.js";
import { LineSearch, parseQuery, queryTokens, WordCollector } from "./search-text.js";
import { FolderUsage } from "./usage-data.js";

const { inspectSession, sessionInfo } = lib;

const RESCAN_MS = 2000;
const CONCURRENCY = 4;

/** Every `*.jsonl` file under `root` (a real path), symlinked files kept only when they resolve inside it. */
export async function walkSessions(root) {
  let paths;
  try {
    paths = await findSessions(root, { recursive: true, confine: root });
  } catch {
    return [];
  }
  const found = [];
  for (const abs of paths) {
    try {
      const st = await stat(abs);
      if (st.isFile())
        found.push({
          rel: path.relative(root, abs).split(path.sep).join("/"),
          abs,
          size: st.size,
          mtimeMs: st.mtimeMs,
        });
    } catch {}
  }
  return found;
}

/** Whether the file `f` of a walk is no longer as the walk saw it (or gone). */
async function changedSince(f) {
  try {
    const now = await stat(f.abs);
    return now.size !== f.size || now.mtimeMs !== f.mtimeMs;
  } catch {
    return true;
  }
}

const iso = (d) => (d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : null);

/**
 * The list row of one file (never throws): `input` is its bytes or a byte
 * source (read by piece; `options.pieceSize` as the package takes it).
 * `problems` is null when the package could not check the file (too big to
 * inspect whole, say): its row is listed all the same.
 */
export function describeFile(root, rel, input, mtimeMs, options = {}) {
  const size = input.size ?? input.length;
  const row = { path: rel, size, mtime: new Date(mtimeMs).toISOString(), info: null, problems: 0 };
  try {
    try {
      row.problems = inspectSession(input, options).length;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      row.problems = null;
    }
    const info = sessionInfo(input, { ...options, mtime: new Date(mtimeMs) });
    if (!info) row.error = "not a session file: no session header";
    else {
      let parentPath = null;
      if (typeof info.parentSession === "string" && path.isAbsolute(info.parentSession)) {
        const p = path.resolve(info.parentSession);
        if (p.startsWith(root + path.sep))
          parentPath = p
            .slice(root.length + 1)
            .split(path.sep)
            .join("/");
      }
      row.info = {
        id: info.id,
        cwd: info.cwd,
        name: info.name ?? null,
        parentSession: info.parentSession ?? null,
        parentPath,
        created: iso(info.created),
        modified: iso(info.modified),
        messageCount: info.messageCount,
        firstMessage: info.firstMessage,
      };
    }
  } catch (error) {
    row.error = `could not read the session: ${error?.message ?? error}`;
  }
  return row;
}

export class FolderIndex {
  /** `root`: the real path of DIR; `pieceSize`: how many bytes each read of a file takes. */
  constructor(root, { pieceSize = PIECE_SIZE } = {}) {
    this.root = root;
    this.pieceSize = pieceSize;
    this.files = new Map(); // rel -> { row, bloom, size, mtimeMs }
    this.listeners = new Set();
    // Rows read of the first scan, then files indexed for search.
    this.progress = { done: 0, total: 0, rowsReady: false, indexed: 0, indexTotal: 0, ready: false };
    this.scanning = null;
    this.again = false;
    // Bumped by every row read or removed: the Usage view's ledger is rebuilt when it moved.
    this.version = 0;
    this.usageCache = null;
  }

  /** `listener({ type: "row"|"remove"|"progress", … })`; returns the unsubscribe function. */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event) {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {}
    }
  }

  rows() {
    return Array.from(this.files.values(), (f) => f.row);
  }

  start() {
    this.rescan();
    try {
      this.watcher = watch(this.root, { recursive: true }, () => this.rescanSoon());
      this.watcher.on("error", () => {});
    } catch {
      this.watcher = null; // the periodic rescan still sees every change
    }
    this.timer = setInterval(() => this.rescan(), RESCAN_MS);
    this.timer.unref?.();
  }

  stop() {
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.soon);
  }

  rescanSoon() {
    clearTimeout(this.soon);
    this.soon = setTimeout(() => this.rescan(), 100);
  }

  /** Walks DIR and reads every new or changed file; one scan at a time. */
  rescan() {
    if (this.scanning) {
      this.again = true;
      return this.scanning;
    }
    this.scanning = this.scan().finally(() => {
      this.scanning = null;
      if (this.again) {
        this.again = false;
        this.rescan();
      }
    });
    return this.scanning;
  }

  async scan() {
    const found = await walkSessions(this.root);
    const seen = new Set(found.map((f) => f.rel));
    for (const rel of [...this.files.keys()]) {
      if (!seen.has(rel)) {
        this.files.delete(rel);
        this.version++;
        this.emit({ type: "remove", path: rel });
      }
    }
    const todo = found
      .filter((f) => {
        const known = this.files.get(f.rel);
        return !known || known.size !== f.size || known.mtimeMs !== f.mtimeMs;
      })
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    // The first scan reports its progress: the rows first (so the whole list is
    // there soon), then the search index, a second read of each file.
    const first = !this.progress.ready;
    const p = this.progress;
    if (first) Object.assign(p, { done: 0, total: todo.length, indexed: 0, indexTotal: todo.length });
    const report = (n, of) => first && (n % 20 === 0 || n === of) && this.emit({ type: "progress", ...p });
    await this.pool(todo, async (f) => {
      await this.readOne(f);
      if (first) report(++p.done, p.total);
    });
    if (first) {
      p.rowsReady = true;
      this.emit({ type: "progress", ...p });
    }
    await this.pool(todo, async (f) => {
      await this.indexOne(f);
      if (first) report(++p.indexed, p.indexTotal);
    });
    if (first) {
      p.ready = true;
      this.emit({ type: "progress", ...p });
    }
  }

  async pool(items, fn) {
    let next = 0;
    const work = async () => {
      while (next < items.length) await fn(items[next++]);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, work));
  }

  /** Opens a file that is inside DIR (a symlink only if it resolves inside) as a byte source, or null. */
  sourceOf(f) {
    return openSession(this.root, f.abs, f.rel ?? f.row.path);
  }

  /**
   * Reads a file that is inside DIR (a symlink only if it resolves inside), or
   * null. Only the Usage view reads files whole: the package's usage
   * functions take bytes, not a byte source.
   */
  async bytesOf(f) {
    try {
      const st = await lstat(f.abs);
      if (st.isSymbolicLink()) {
        const real = await realpath(f.abs);
        if (!real.startsWith(this.root + path.sep)) return null;
      }
      return await readFile(f.abs);
    } catch {
      return null; // gone or unreadable since the walk: the next rescan decides
    }
  }

  async readOne(f) {
    const source = await this.sourceOf(f);
    if (!source) return; // gone or unreadable since the walk: the next rescan decides
    let row;
    try {
      row = describeFile(this.root, f.rel, source, f.mtimeMs, { pieceSize: this.pieceSize });
    } finally {
      source.close();
    }
    // Written to while it was read (a live session): the next rescan reads it again.
    if (row.error && (await changedSince(f))) return;
    this.files.set(f.rel, { row, bloom: null, size: f.size, mtimeMs: f.mtimeMs, abs: f.abs });
    this.version++;
    this.emit({ type: "row", row });
  }

  async indexOne(f) {
    const known = this.files.get(f.rel);
    if (!known || known.size !== f.size || known.mtimeMs !== f.mtimeMs) return;
    const source = await this.sourceOf(f);
    if (!source) return;
    try {
      const words = new WordCollector();
      await forEachLine(source, (raw) => words.line(raw), { pieceSize: this.pieceSize });
      known.bloom = words.bloom();
    } catch {
      // Changed while read: the file is searched unfiltered until the rescan indexes it again.
    } finally {
      source.close();
    }
  }

  /**
   * The Usage view's data (usage-data.js) over the files listed so far, each
   * added under its absolute path (what forks' `parentSession` names). The
   * files are read again only when the folder changed since the last call.
   */
  async usage(options) {
    const version = this.version;
    if (this.usageCache?.version !== version) {
      const next = (async () => {
        const usage = new FolderUsage(lib);
        const files = [...this.files.values()].sort((a, b) => (a.row.path < b.row.path ? -1 : 1));
        for (const f of files) {
          const bytes = await this.bytesOf(f);
          if (bytes) usage.add(f.abs, f.row.path, bytes);
        }
        return usage;
      })();
      const previous = this.usageCache;
      this.usageCache = { version, usage: next };
      previous?.usage.then((u) => u.free()).catch(() => {});
    }
    return (await this.usageCache.usage).view(options);
  }

  /**
   * Entries matching `query` across DIR, newest sessions first:
   * `{ results: [{ path, entryId, line, role, snippet, title }], truncated, skipped }`.
   * Each file is read by piece; one that changed under the read (an append
   * to a live session, say) is read again, and named in `skipped` with the
   * reason if it changed again, never searched half old and half new.
   */
  async search(queryText, { limit = 200, perFile = 20 } = {}) {
    const query = parseQuery(queryText);
    const tokens = queryTokens(query);
    if (!tokens.length) return { results: [], truncated: false, skipped: [] };
    // A file not indexed yet is read like one whose filter says yes.
    const candidates = [...this.files.values()]
      .filter((f) => !f.bloom || f.bloom.hasAll(tokens))
      .sort((a, b) => (b.row.info?.modified ?? b.row.mtime).localeCompare(a.row.info?.modified ?? a.row.mtime));
    const results = [];
    const skipped = [];
    for (const f of candidates) {
      if (results.length >= limit) return { results, truncated: true, skipped };
      const title = f.row.info?.name || f.row.info?.firstMessage || f.row.path;
      let found;
      for (let attempt = 0; !found; attempt++) {
        try {
          found = await this.searchFile(f, query, Math.min(perFile, limit - results.length));
        } catch (error) {
          if (attempt < 1) continue;
          skipped.push({ path: f.row.path, error: String(error?.message ?? error) });
          break;
        }
      }
      for (const hit of found ?? []) results.push({ path: f.row.path, title, ...hit });
    }
    return { results, truncated: false, skipped };
  }

  /** The hits of one file, read by piece (from file-order lines); [] when it is gone. */
  async searchFile(f, query, limit) {
    const source = await this.sourceOf(f);
    if (!source) return [];
    try {
      const search = new LineSearch(query, limit);
      await forEachLine(source, (raw) => search.line(raw), { pieceSize: this.pieceSize, done: () => search.full });
      return search.hits;
    } finally {
      source.close();
    }
  }
}
