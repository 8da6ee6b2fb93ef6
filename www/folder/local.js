// "Open folder…" without a server: the same rows and search as `session-tree
// serve`, computed in the page from a folder the user picked (the directory
// picker, a `webkitdirectory` input, or a dropped folder). Keeps `File`s and
// each file's Bloom filter of words, never the files' bytes.

/**
 * A picked file: `{ path, size, lastModified, getFile() }`, `path` relative to
 * the folder with `/` separators, `getFile()` a fresh File (so a file handle is
 * read again each time).
 */

/** Files from a `webkitdirectory` input: the picked folder's own name is dropped from each path. */
export function filesFromList(fileList) {
  const out = [];
  for (const file of fileList) {
    const rel = (file.webkitRelativePath || file.name).split("/").slice(1).join("/") || file.name;
    if (!rel.endsWith(".jsonl")) continue;
    out.push({ path: rel, size: file.size, lastModified: file.lastModified, getFile: async () => file });
  }
  return out;
}

/** Files under a FileSystemDirectoryHandle (the directory picker or a dropped folder's handle). */
export async function filesFromHandle(dir, prefix = "", out = []) {
  for await (const [name, handle] of dir.entries()) {
    const rel = prefix ? `${prefix}/${name}` : name;
    if (handle.kind === "directory") await filesFromHandle(handle, rel, out);
    else if (name.endsWith(".jsonl")) {
      const file = await handle.getFile();
      out.push({
        path: rel,
        size: file.size,
        lastModified: file.lastModified,
        getFile: () => handle.getFile(),
        handle,
      });
    }
  }
  return out;
}

/** Files under a dropped folder's FileSystemDirectoryEntry (webkitGetAsEntry). */
export async function filesFromEntry(dir, prefix = "", out = []) {
  const reader = dir.createReader();
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const entry of batch) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) await filesFromEntry(entry, rel, out);
      else if (entry.name.endsWith(".jsonl")) {
        const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
        out.push({ path: rel, size: file.size, lastModified: file.lastModified, getFile: async () => file });
      }
    }
  }
  return out;
}

const iso = (d) => (d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : null);

export class LocalFolder {
  /** `lib`: the package (sessionInfo, inspectSession); `text`: its cli/serve/search-text.js. */
  constructor(files, lib, text) {
    this.files = new Map(files.map((f) => [f.path, f]));
    this.lib = lib;
    this.text = text;
    this.blooms = new Map();
  }

  /** Reads every file, newest first: `onRow(row)` for each, `onProgress(done, total)`. */
  async load(onRow, onProgress = () => {}) {
    const todo = [...this.files.values()].sort((a, b) => b.lastModified - a.lastModified);
    let done = 0;
    for (const f of todo) {
      onRow(await this.describe(f));
      onProgress(++done, todo.length);
    }
  }

  async describe(f) {
    const row = { path: f.path, size: f.size, mtime: new Date(f.lastModified).toISOString(), info: null, problems: 0 };
    try {
      const bytes = new Uint8Array(await (await f.getFile()).arrayBuffer());
      row.problems = this.lib.inspectSession(bytes).length;
      const info = this.lib.sessionInfo(bytes, { mtime: new Date(f.lastModified) });
      if (!info) row.error = "not a session file: no session header";
      else {
        row.info = {
          id: info.id,
          cwd: info.cwd,
          name: info.name ?? null,
          parentSession: info.parentSession ?? null,
          parentPath: null,
          created: iso(info.created),
          modified: iso(info.modified),
          messageCount: info.messageCount,
          firstMessage: info.firstMessage,
        };
      }
      this.blooms.set(f.path, this.text.bloomOfText(new TextDecoder().decode(bytes)));
    } catch (error) {
      row.error = `could not read the session: ${error?.message ?? error}`;
    }
    return row;
  }

  /** Like the server's /api/search: `{ results: [{ path, entryId, line, role, snippet }] }`. */
  async search(queryText, order, { limit = 200, perFile = 20 } = {}) {
    const query = this.text.parseQuery(queryText);
    const tokens = this.text.queryTokens(query);
    const results = [];
    if (!tokens.length) return { results, truncated: false };
    for (const path of order) {
      if (!this.blooms.get(path)?.hasAll(tokens)) continue;
      const text = await (await this.files.get(path).getFile()).text();
      for (const hit of this.text.searchText(text, query, perFile)) {
        results.push({ path, ...hit });
        if (results.length >= limit) return { results, truncated: true };
      }
    }
    return { results, truncated: false };
  }

  /**
   * The Usage view's data (../pkg/cli/serve/usage-data.js) over every file,
   * each added under the name its forks give it (`names`, from the list's
   * model), so that copies count once; built once, on the first call.
   */
  usage(names, onProgress = () => {}) {
    this.usageData ??= (async () => {
      const { FolderUsage } = await import("../pkg/cli/serve/usage-data.js");
      const usage = new FolderUsage(this.lib);
      const paths = [...this.files.keys()].sort();
      let done = 0;
      for (const path of paths) {
        try {
          usage.add(names.get(path) ?? path, path, new Uint8Array(await this.bytes(path)));
        } catch (error) {
          usage.skipped.push({ path, error: String(error?.message ?? error) });
        }
        onProgress(++done, paths.length);
      }
      return usage;
    })();
    return this.usageData;
  }

  async bytes(path) {
    return (await this.files.get(path).getFile()).arrayBuffer();
  }

  /** Whether the file can be read again as it grows (a File System Access handle). */
  canFollow(path) {
    return Boolean(this.files.get(path)?.handle);
  }
}
