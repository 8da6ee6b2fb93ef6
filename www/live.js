// Following the open session as it is written: the bytes appended to its file
// arrive (from `session-tree serve` by Server-Sent Events, or by polling a
// file the File System Access API opened) and go to the viewer's worker, which
// feeds them to `Session.appendJsonl`. A file that shrinks or whose first bytes
// change was rewritten, not appended to: the page reloads it whole.
//
// No DOM here: the page passes EventSource and the file getter in.

// How the page tells a rewritten file from a grown one; `session-tree serve`
// answers with the same (its cli/serve/protocol.js re-exports these).
export const HEAD_BYTES = 4096;

/** FNV-1a (32 bits) of the first HEAD_BYTES of `bytes`, as 8 hex digits. */
export function headHash(bytes) {
  const n = Math.min(bytes.length, HEAD_BYTES);
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** base64 -> bytes. */
export function fromBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Follows `path` on a `session-tree serve` server from byte `offset` on.
 * `onAppend(bytes, offset)` for each chunk in order; `onReset()` once when the
 * file was rewritten (the follower has stopped by then).
 */
export class ServerFollower {
  constructor({ path, offset, head, onAppend, onReset, EventSourceImpl = globalThis.EventSource, base = "" }) {
    Object.assign(this, { path, offset, head, onAppend, onReset, EventSourceImpl, base });
    this.source = null;
  }

  url() {
    const q = new URLSearchParams({ path: this.path, offset: String(this.offset), head: this.head });
    return `${this.base}api/follow?${q}`;
  }

  start() {
    this.stop();
    const source = new this.EventSourceImpl(this.url());
    this.source = source;
    source.addEventListener("append", (event) => {
      if (this.source !== source) return;
      const bytes = fromBase64(JSON.parse(event.data));
      this.offset += bytes.length;
      this.onAppend(bytes, this.offset);
    });
    source.addEventListener("reset", () => {
      if (this.source !== source) return;
      this.stop();
      this.onReset();
    });
    // On a dropped connection EventSource reconnects by itself, but to the first
    // URL: reconnect with the offset reached instead.
    source.onerror = () => {
      if (this.source !== source) return;
      source.close();
      this.retry = setTimeout(() => {
        if (this.source === source) this.start();
      }, 1000);
    };
    return this;
  }

  stop() {
    clearTimeout(this.retry);
    this.source?.close();
    this.source = null;
  }

  get active() {
    return this.source !== null;
  }
}

/**
 * Follows a file by polling its size: `getFile()` gives a fresh `File` each time
 * (a FileSystemFileHandle's getFile). Same callbacks as ServerFollower.
 */
export class PollFollower {
  constructor({ getFile, offset, head, onAppend, onReset, interval = 1000 }) {
    Object.assign(this, { getFile, offset, head, onAppend, onReset, interval });
    this.timer = null;
    this.busy = false;
  }

  start() {
    this.stop();
    this.timer = setInterval(() => this.check(), this.interval);
    return this;
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  get active() {
    return this.timer !== null;
  }

  async check() {
    if (this.busy || !this.timer) return;
    this.busy = true;
    try {
      const file = await this.getFile();
      const n = Math.min(this.offset, HEAD_BYTES);
      const head = headHash(new Uint8Array(await file.slice(0, n).arrayBuffer()));
      if (file.size < this.offset || head !== this.head) {
        this.stop();
        this.onReset();
        return;
      }
      if (file.size > this.offset) {
        const bytes = new Uint8Array(await file.slice(this.offset, file.size).arrayBuffer());
        this.offset += bytes.length;
        if (n < HEAD_BYTES) {
          this.head = headHash(new Uint8Array(await file.slice(0, Math.min(this.offset, HEAD_BYTES)).arrayBuffer()));
        }
        this.onAppend(bytes, this.offset);
      }
    } catch {
      // Unreadable for now (being replaced): try again next time.
    } finally {
      this.busy = false;
    }
  }
}

/**
 * Runs async jobs one after another, in the order they were queued: appends
 * must reach the worker in file order.
 */
export class SerialQueue {
  constructor() {
    this.tail = Promise.resolve();
  }
  push(job) {
    const run = this.tail.then(job);
    this.tail = run.catch(() => {});
    return run;
  }
}

/**
 * What arrived since the user last looked: ids are marked new as they arrive
 * while the user is not looking, and `look()` clears them.
 */
export class NewMarker {
  constructor() {
    this.ids = new Set();
    this.order = [];
  }
  /** `ids`: the entries that arrived; `looking`: whether the user sees them arrive. */
  arrived(ids, looking) {
    if (looking) return;
    for (const id of ids) {
      if (this.ids.has(id)) continue;
      this.ids.add(id);
      this.order.push(id);
    }
  }
  has(id) {
    return this.ids.has(id);
  }
  get count() {
    return this.ids.size;
  }
  /** The oldest entry not yet seen, or null. */
  get first() {
    return this.order[0] ?? null;
  }
  look() {
    this.ids.clear();
    this.order = [];
  }
}

/** The ids in `after` that `before` (a Set or array) lacks, in `after`'s order. */
export function addedIds(before, after) {
  const had = before instanceof Set ? before : new Set(before);
  return after.filter((id) => !had.has(id));
}

/**
 * The Follow switch: while on, each append selects the newest entry; a
 * selection the user makes (anything the follower did not pick) turns it off.
 */
export class FollowSwitch {
  constructor(on = true) {
    this.on = on;
    this.picked = null;
  }
  /** The entry to select after an append, or null when paused. */
  pick(newestId) {
    if (!this.on || !newestId) return null;
    this.picked = newestId;
    return newestId;
  }
  /** Tells the switch the leaf changed; returns whether that paused it. */
  selected(id) {
    if (!this.on || id === this.picked) return false;
    this.on = false;
    return true;
  }
  toggle() {
    this.on = !this.on;
    this.picked = null;
    return this.on;
  }
}
