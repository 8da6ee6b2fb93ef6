// The JavaScript the wasm bindings call (src/wasm/js.rs declares each export).
// Only `export function` declarations are exported: `make build` rewrites
// exactly those for the CommonJS (nodejs) glue.

export function pick(source, indices, key) {
  const out = [];
  for (const i of indices) {
    if (i === 0xffffffff) out.push(undefined);
    else if (key === undefined) out.push(source[i]);
    else out.push(source[i] == null ? undefined : source[i][key]);
  }
  return out;
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
function link(made, children, roots) {
  for (let k = 0; k < children.length; ) {
    const list = made[children[k++]].children;
    for (let n = children[k++]; n > 0; n--) list.push(made[children[k++]]);
  }
  return Array.from(roots, (r) => made[r]);
}

export function buildLazyTree(parts, offsets, nodes, labels, children, roots) {
  const entryAt = entryReader(parts.length === 1 ? parts[0] : parts.join(""), offsets);
  const made = new Array(offsets.length >> 1);
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

// Entry `i`, parsed from `json`, the JSON array of all entries (`offsets`
// give each one's place in it). The first reads parse just their entry; once
// they have parsed a 32nd of the text, the rest are all parsed in one
// `JSON.parse` (much faster per entry), and the text is let go. The scope
// holds only the text and a copy of the offsets (the view given points into
// wasm memory, which the next call reuses): an engine that keeps a getter
// alive keeps these, not the tree.
// `json` may also be the array's UTF-8 bytes (text far from ASCII), decoded
// as it is read.
const utf8 = new TextDecoder();

function entryReader(json, offsets) {
  const at = offsets.slice();
  const bytes = typeof json !== "string";
  let text = json;
  let all;
  let budget = text.length >> 5;
  return (i, alone) => {
    if (all !== undefined) return all[i];
    if (budget < 0 && !alone) {
      try {
        all = JSON.parse(bytes ? utf8.decode(text) : text);
        text = undefined;
        return all[i];
      } catch {
        // Some entry JSON.parse refuses after all: each on its own, then.
        budget = Number.POSITIVE_INFINITY;
      }
    }
    const piece = bytes ? text.subarray(at[2 * i], at[2 * i + 1]) : text.slice(at[2 * i], at[2 * i + 1]);
    budget -= piece.length;
    return JSON.parse(bytes ? utf8.decode(piece) : piece);
  };
}

// `entry` is an own, enumerable accessor until first read (or written), then a
// plain data property: JSON.stringify, structuredClone and deep equality see
// the parsed entry.
function lazyNode(entryAt, i, label, labelTimestamp) {
  return {
    get entry() {
      return settle(this, entryAt(i));
    },
    set entry(value) {
      settle(this, value);
    },
    children: [],
    label,
    labelTimestamp,
  };
}

function settle(node, value) {
  Object.defineProperty(node, "entry", { value, writable: true, enumerable: true, configurable: true });
  return value;
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

// A decimal literal (already checked) as JS reads it.
export function decimalOf(raw) {
  return Number(raw);
}

// A finite number as `String(n)` writes it.
export function numberText(n) {
  return String(n);
}

// JSON built in wasm, a piece at a time, as a string: ASCII bytes or UTF-16.
const ascii = new TextDecoder();

export function pushAscii(parts, bytes) {
  parts.push(ascii.decode(bytes));
}

const utf16 = new TextDecoder("utf-16le");

export function pushUtf16(parts, units) {
  parts.push(utf16.decode(units));
}

export function parseJoined(parts) {
  return JSON.parse(parts.length === 1 ? parts[0] : parts.join(""));
}
