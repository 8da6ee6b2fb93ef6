// The JavaScript the wasm bindings call (src/wasm/js.rs declares each export).
// Only `export function` declarations are exported: `make build` rewrites
// exactly those for the CommonJS (nodejs) glue.

// Whether a string has no lone surrogate: one call, where js-sys's
// is_valid_utf16 reads the string a code unit per call.
export function wellFormed(s) {
  return typeof s.isWellFormed === "function" ? s.isWellFormed() : !/\p{Cs}/u.test(s);
}

export function pick(source, indices, key) {
  const out = [];
  for (const i of indices) {
    if (i === 0xffffffff) out.push(undefined);
    else if (key === undefined) out.push(source[i]);
    else out.push(source[i] == null ? undefined : source[i][key]);
  }
  return out;
}

// The indices whose slot in `source` is still undefined, in one crossing
// (a wasm call per index cost a few hundred ns: getChildren of a root with
// 100,000 children took 30 ms).
export function unsetOf(source, indices) {
  const out = [];
  for (const i of indices) if (source[i] === undefined) out.push(i);
  return new Uint32Array(out);
}

// The string of eight ASCII bytes given as two little-endian words: an
// appended entry's id, made here in one call where the glue's decoding of a
// returned string (a view, a TextDecoder call, the buffer freed) cost
// several times more.
export function idText(a, b) {
  return String.fromCharCode(
    a & 255,
    (a >>> 8) & 255,
    (a >>> 16) & 255,
    a >>> 24,
    b & 255,
    (b >>> 8) & 255,
    (b >>> 16) & 255,
    b >>> 24,
  );
}

export function buildTree(objects, nodes, labels, children, roots) {
  const made = new Array(objects.length);
  for (const i of nodes) {
    const l = labels[i];
    const from = l < 0 ? undefined : objects[l];
    made[i] = { entry: objects[i], children: [], label: from?.label, labelTimestamp: from?.timestamp };
  }
  return link(made, children, roots);
}

// Fills in the children (runs of `parent, count, child...`) and gives the roots.
// An only child gets an array of one: a push onto an empty array reserves
// room for 17.
function link(made, children, roots) {
  for (let k = 0; k < children.length; ) {
    const node = made[children[k++]];
    const n = children[k++];
    if (n === 1) {
      node.children = [made[children[k++]]];
      continue;
    }
    const list = node.children;
    for (let j = 0; j < n; j++) list.push(made[children[k++]]);
  }
  return Array.from(roots, (r) => made[r]);
}

export function buildLazyTree(parts, at, nodes, labels, children, roots) {
  const entryAt = entryReader(parts, at);
  const made = new Array(at.length / 3);
  const labelEntries = new Map();
  for (const i of nodes) {
    const l = labels[i];
    let from;
    if (l >= 0) {
      from = labelEntries.get(l);
      if (from === undefined) {
        from = entryAt(l, true);
        labelEntries.set(l, from);
      }
    }
    made[i] = lazyNode(entryAt, i, from?.label, from?.timestamp);
  }
  return link(made, children, roots);
}

// Entry `i`, parsed from `parts`: JSON array texts, entry `i` being
// `parts[at[3i]].slice(at[3i + 1], at[3i + 2])`. The first reads parse just
// their entry; once they have parsed a 32nd of the text, a read parses the
// whole array its entry is in (much faster per entry), and that text is let
// go. The scope holds the texts and a copy of `at` (the view given points
// into wasm memory, which the next call reuses), not the tree.
function entryReader(parts, at) {
  const where = at.slice();
  const texts = Array.from(parts);
  const parsed = new Array(texts.length);
  // The first entry of each piece: entries fill the pieces in order.
  const first = new Array(texts.length).fill(0);
  for (let i = where.length / 3 - 1; i >= 0; i--) first[where[3 * i]] = i;
  let budget = 0;
  for (const t of texts) budget += t.length;
  budget >>= 5;
  return (i, alone) => {
    const p = where[3 * i];
    if (parsed[p] !== undefined) return parsed[p][i - first[p]];
    if (budget < 0 && !alone) {
      try {
        parsed[p] = JSON.parse(texts[p]);
        texts[p] = undefined;
        return parsed[p][i - first[p]];
      } catch {
        // Some entry JSON.parse refuses after all: each on its own, then.
        budget = Number.POSITIVE_INFINITY;
      }
    }
    budget -= where[3 * i + 2] - where[3 * i + 1];
    return JSON.parse(texts[p].slice(where[3 * i + 1], where[3 * i + 2]));
  };
}

// `entry` is an own, enumerable accessor shared by every node (one getter and
// setter for all: V8 keeps such nodes fast, where a getter of their own per
// node makes each a slow dictionary). It parses the entry on first read and
// keeps it; a write replaces it. JSON.stringify, structuredClone and deep
// equality read it like a data property. The node's index and reader live in
// private fields, which no reflection sees.
class Stamped {
  constructor(node) {
    // biome-ignore lint/correctness/noConstructorReturn: this is how private fields go on a plain object
    return node;
  }
}

class LazyEntry extends Stamped {
  // The tree's entry reader until the entry is read, then null (nodes are
  // many: three fields, no flag).
  #read;
  #i;
  #entry;

  constructor(node, read, i) {
    super(node);
    this.#read = read;
    this.#i = i;
    this.#entry = undefined;
  }

  static get(node) {
    if (!(#read in node)) return undefined; // the getter called on something else
    const read = node.#read;
    if (read !== null) {
      node.#entry = read(node.#i);
      node.#read = null;
    }
    return node.#entry;
  }

  static set(node, value) {
    if (!(#read in node)) return;
    node.#entry = value;
    node.#read = null;
  }
}

const lazyEntry = {
  get() {
    return LazyEntry.get(this);
  },
  set(value) {
    LazyEntry.set(this, value);
  },
  enumerable: true,
  configurable: true,
};

function lazyNode(entryAt, i, label, labelTimestamp) {
  const node = {};
  Object.defineProperty(node, "entry", lazyEntry);
  node.children = [];
  node.label = label;
  node.labelTimestamp = labelTimestamp;
  new LazyEntry(node, entryAt, i);
  return node;
}

// pi's nodes over a byte source: entry `i` is read by its byte range when
// its node's `entry` is first read (labels' entries at once: their text is
// the node's label). Each read gets exactly its bytes or throws, naming the
// source; nothing is kept of them but the parsed entry. With `previews`
// (getTree's `preview` option: each entry cut to the fields asked for,
// written while the index was read, entry `i`'s at `i`), each node also has its
// entry's `preview` and `range` ([offset, length] of its line), so a reader
// that only describes the nodes reads nothing again. With `details`
// (getTree's `detail` option: entry `i`'s second preview as JSON text, or
// what its `map` made of it; undefined where `where` does not pick it), each
// node also has `detail`.
export function buildSourceTree(source, name, starts, lengths, nodes, labels, children, roots, previews, details) {
  const from = starts.slice();
  const length = lengths.slice();
  const decoder = new TextDecoder();
  // Read when a node's `entry` is, after getTree has returned: its errors say
  // so, as getTree's own would.
  const entryAt = (i) => {
    const at = from[i];
    const bytes = readSource(source, at, length[i]);
    if (!isBytes(bytes)) {
      const got = bytes === null ? "null" : Array.isArray(bytes) ? "an array" : typeof bytes;
      throw new TypeError(`getTree: ${name}.read(…) must be a Uint8Array, got ${got}`);
    }
    const changed = (how) =>
      new Error(`getTree: ${name} changed while it was read (${how}); nothing read from it was used`);
    if (bytes.length !== length[i]) {
      throw changed(`it gave ${bytes.length} bytes at offset ${at} where ${length[i]} were asked`);
    }
    try {
      return JSON.parse(decoder.decode(bytes));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      throw changed(`bytes ${at} to ${at + length[i]} are no longer one entry`);
    }
  };
  const made = new Array(from.length);
  const kept = previews ?? null;
  const labelEntries = new Map();
  for (const i of nodes) {
    const l = labels[i];
    let label;
    if (l >= 0) {
      label = labelEntries.get(l);
      if (label === undefined) {
        label = entryAt(l);
        labelEntries.set(l, label);
      }
    }
    made[i] = lazyNode(entryAt, i, label?.label, label?.timestamp);
    if (kept) {
      made[i].preview = kept[i];
      made[i].range = [from[i], length[i]];
    }
    if (details) made[i].detail = details[i];
  }
  return link(made, children, roots);
}

// The previews come in several JSON texts, each parsed as it is complete
// (one text would pass a string's length limit on a file of millions of
// entries, and all of them would stay in the module's memory).
export function pushPreviews(kept, part) {
  const values = JSON.parse(part);
  for (let k = 0; k < values.length; k++) kept.push(values[k]);
}

// The lines of a text of `detail` previews, each ended by a line break
// (none is in a preview's JSON): split as the text is complete.
// An empty line (an entry not picked) is undefined; with `map`, each other
// is what `map(line)` gives.
export function pushLines(kept, part, map) {
  const lines = part.split("\n");
  for (let k = 0; k < lines.length - 1; k++) {
    const line = lines[k];
    kept.push(line === "" ? undefined : map === undefined ? line : map(line));
  }
}

// The numbers of an array, a typed array or another array-like (previewEntries'
// ranges), as a Float64Array; undefined for anything else, or when an
// element is not a number (a getter or a Proxy that throws throws here).
export function numbersOf(value) {
  if (ArrayBuffer.isView(value)) {
    const bigints = value instanceof BigInt64Array || value instanceof BigUint64Array;
    return value instanceof DataView || bigints ? undefined : Float64Array.from(value);
  }
  if (value === null || typeof value !== "object") return undefined;
  const n = value.length;
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff) return undefined;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = value[i];
    if (typeof x !== "number") return undefined;
    out[i] = x;
  }
  return out;
}

export function isByteSource(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    !ArrayBuffer.isView(value) &&
    typeof value.read === "function" &&
    "size" in value
  );
}

// Whether a value is a promise or another thenable (what an async function
// returns), which a callback that must finish before it returns cannot give.
export function isThenable(value) {
  return (
    value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function"
  );
}

export function readSource(source, offset, length) {
  return source.read(offset, length);
}

export function withContent(message, content) {
  return { ...message, content };
}

// A missing or primitive replacement has no content (pi reads undefined).
export function editedContent(replacement, wrap) {
  const content = replacement == null ? undefined : replacement.content;
  return wrap && typeof content === "string" ? [{ type: "text", text: content }] : content;
}

export function flatMessages(entries) {
  return entries.flatMap((e) => e.messages);
}

export function isArray(value) {
  return Array.isArray(value);
}

export function isBytes(value) {
  return value instanceof Uint8Array && Object.prototype.toString.call(value) === "[object Uint8Array]";
}

export function snapshot(array) {
  return Array.from(array);
}

export function copyBytes(view) {
  return new Uint8Array(view);
}

export function timeOf(value) {
  return new Date(value).getTime();
}

export function toNumber(value) {
  return +value;
}

// UTF-8 bytes of `s` as the bindings send it (a lone surrogate becomes a
// six-byte `\uXXXX` escape).
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if ((c & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else if ((c & 0xf800) === 0xd800) n += 6;
    else n += 3;
  }
  return n;
}

// `JSON.stringify(value)` as UTF-8 into wasm memory: `room` bytes at `ptr`.
// Gives the bytes written; -1 for no text (`undefined`); for a text that may
// not fit, -2 - its exact UTF-8 length, the text kept for `writeHeld` (so
// that `toJSON` and getters run once). Buffer's utf8Write or encodeInto copy
// far faster than the glue's loop over each character. The memory's buffer
// is read after stringifying: a `toJSON` may call into wasm and grow it.
// (JSON.stringify escapes lone surrogates: the text is well-formed UTF-16.)
let held;

export function stringifyInto(value, memory, ptr, room) {
  const text = JSON.stringify(value);
  if (typeof text !== "string") return -1;
  if (text.length * 3 <= room) return writeText(text, memory, ptr, room);
  held = text;
  return -2 - (Utf8Buffer === undefined ? utf8Length(text) : Utf8Buffer.byteLength(text, "utf8"));
}

export function writeHeld(memory, ptr, room) {
  const text = held;
  held = undefined;
  return writeText(text, memory, ptr, room);
}

const encoder = new TextEncoder();
let memoryBuffer;
let memoryView;

function writeText(text, memory, ptr, room) {
  const buffer = memory.buffer;
  if (buffer !== memoryBuffer) {
    memoryBuffer = buffer;
    memoryView = Utf8Buffer === undefined ? new Uint8Array(buffer) : Utf8Buffer.from(buffer);
  }
  if (Utf8Buffer !== undefined) return memoryView.utf8Write(text, ptr, room);
  return encoder.encodeInto(text, memoryView.subarray(ptr, ptr + room)).written;
}

// A decimal literal (already checked) as JS reads it.
export function decimalOf(raw) {
  return Number(raw);
}

// A finite number as `String(n)` writes it.
export function numberText(n) {
  return String(n);
}

// JSON built in wasm, a piece at a time, as a string: ASCII bytes or UTF-16.
export function pushAscii(parts, bytes) {
  parts.push(asciiText(bytes));
}

export function pushUtf16(parts, units) {
  parts.push(utf16Text(units));
}

// Where Buffer is native (Node, Bun), its latin1Slice and ucs2Slice copy bytes
// into a string several times faster than TextDecoder (Node 20, 4.6 MB of
// ASCII: 0.4 ms against 3 ms; 6 M UTF-16 units: 0.9 ms against 8.6 ms). A
// bundler's Buffer polyfill does it in JS, slower: TextDecoder then.
const NativeBuffer = nativeBuffer(["latin1Slice", "ucs2Slice"]);
// The same for writing UTF-8 (Buffer's utf8Write and byteLength).
const Utf8Buffer = nativeBuffer(["utf8Write"], ["byteLength"]);
const ascii = new TextDecoder();
const utf16 = new TextDecoder("utf-16le");

function nativeBuffer(methods, statics = []) {
  try {
    const B = globalThis.Buffer;
    const native = (f) =>
      typeof f === "function" && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(f));
    if (typeof B !== "function") return undefined;
    return methods.every((m) => native(B.prototype[m])) && statics.every((m) => typeof B[m] === "function")
      ? B
      : undefined;
  } catch {
    return undefined;
  }
}

function asciiText(bytes) {
  if (NativeBuffer === undefined) return ascii.decode(bytes);
  return NativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).latin1Slice(0, bytes.length);
}

function utf16Text(units) {
  if (NativeBuffer === undefined) return utf16.decode(units);
  const n = units.byteLength;
  return NativeBuffer.from(units.buffer, units.byteOffset, n).ucs2Slice(0, n);
}

export function parseJoined(parts) {
  return JSON.parse(parts.length === 1 ? parts[0] : parts.join(""));
}

// The values of JSON array texts, in order, as one array.
export function parsePieces(parts) {
  if (parts.length === 1) return JSON.parse(parts[0]);
  const out = [];
  for (const part of parts) {
    const values = JSON.parse(part);
    for (let k = 0; k < values.length; k++) out.push(values[k]);
  }
  return out;
}

// One formatter per time zone: making one costs far more than using it.
const zoneFormats = new Map();

// The offset of `timeZone` (undefined: the local zone) at `ms`, in minutes.
export function zoneOffset(timeZone, ms) {
  if (timeZone === undefined) return -new Date(ms).getTimezoneOffset();
  // UTC is UTC at every instant: no formatter to ask (`usage --utc`, the bench).
  if (timeZone === "UTC") return 0;
  let format = zoneFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    zoneFormats.set(timeZone, format);
  }
  const at = Math.floor(ms / 1000) * 1000;
  const parts = {};
  for (const p of format.formatToParts(new Date(at))) parts[p.type] = p.value;
  const year = parts.era === "BC" || parts.era === "B" ? 1 - Number(parts.year) : Number(parts.year);
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second));
  return (wall.getTime() - at) / 60000;
}
