// What cross-session search looks at, shared by `session-tree serve` (Node) and
// the viewer's "Open folder…" (the browser): the searchable text of an entry,
// the query syntax, and a Bloom filter of a file's words. Plain ESM with no
// `node:` imports, so the browser loads it from the package as well.
//
// Words match whole words (case-insensitive, letters and digits); "quoted
// phrases" match those words in a row. Every term of a query must be in the
// same entry.

const WORD_CHAR = /[\p{L}\p{N}_]/u;

// Between the parts of one entry's text (a text block, a tool call's name, its
// arguments…): a phrase never runs across it.
const PART = "\n\u001e\n";
const wide = new Map(); // code point >= 128 -> whether it is a word character

function isWordChar(cp) {
  if (cp < 128) return (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90) || (cp >= 48 && cp <= 57) || cp === 95;
  let yes = wide.get(cp);
  if (yes === undefined) {
    yes = WORD_CHAR.test(String.fromCodePoint(cp));
    if (wide.size < 65536) wide.set(cp, yes);
  }
  return yes;
}

/**
 * Calls `fn(word)` for each word of `text` in order: a run of letters, digits
 * and `_` (Unicode classes L and N), lower-cased. A loop over char codes
 * rather than a regular expression: indexing reads every byte of a folder.
 * With `breaks`, an ASCII record separator (between the parts of an entry's
 * text) gives an empty word, so that no phrase matches across it.
 */
export function forEachWord(text, fn, breaks = false) {
  if (typeof text !== "string") return;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    let width = 1;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        width = 2;
      }
    }
    if (isWordChar(cp)) {
      if (start < 0) start = i;
    } else {
      if (start >= 0) {
        fn(text.slice(start, i).toLowerCase());
        start = -1;
      }
      if (cp === 0x1e && breaks) fn("");
    }
    i += width - 1;
  }
  if (start >= 0) fn(text.slice(start).toLowerCase());
}

/** The lower-cased words of `text`, in order (see forEachWord). */
export function tokenize(text) {
  const out = [];
  forEachWord(text, (w) => out.push(w), true);
  return out;
}

/** `"a phrase" word` -> `{ phrases: [["a", "phrase"]], words: ["word"] }`; empty terms dropped. */
export function parseQuery(query) {
  const phrases = [];
  const rest = String(query ?? "").replace(/"([^"]*)"?/g, (_, inner) => {
    const words = tokenize(inner);
    if (words.length) phrases.push(words);
    return " ";
  });
  const words = [...new Set(tokenize(rest))];
  return { phrases, words };
}

/** Every distinct word a query needs (for the Bloom filter). */
export function queryTokens({ phrases, words }) {
  return [...new Set([...words, ...phrases.flat()])];
}

const isEmpty = (q) => q.words.length === 0 && q.phrases.length === 0;

/** Whether the words of one entry hold every term of the query. */
export function matchTokens(tokens, query) {
  if (isEmpty(query)) return false;
  const set = new Set(tokens);
  for (const w of query.words) if (!set.has(w)) return false;
  for (const p of query.phrases) if (!hasRun(tokens, p)) return false;
  return true;
}

function hasRun(tokens, run) {
  outer: for (let i = 0; i + run.length <= tokens.length; i++) {
    for (let j = 0; j < run.length; j++) if (tokens[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts = [];
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    if (typeof part.text === "string") parts.push(part.text);
    if (part.type === "toolCall") {
      if (typeof part.name === "string") parts.push(part.name);
      if (part.arguments !== undefined) parts.push(safeJson(part.arguments));
    }
  }
  return parts.join(PART);
}

function safeJson(v) {
  try {
    return typeof v === "string" ? v : (JSON.stringify(v) ?? "");
  } catch {
    return "";
  }
}

/**
 * The searchable text of one parsed JSONL entry: message text, tool calls (name
 * and arguments), tool names, bash commands and output, summaries, session names
 * and labels. Thinking is left out. "" for anything else.
 */
export function entryText(entry) {
  if (!entry || typeof entry !== "object") return "";
  switch (entry.type) {
    case "message": {
      const m = entry.message;
      if (!m || typeof m !== "object") return "";
      const out = [contentText(m.content)];
      if (typeof m.toolName === "string") out.push(m.toolName);
      if (typeof m.command === "string") out.push(m.command);
      if (typeof m.output === "string") out.push(m.output);
      if (typeof m.summary === "string") out.push(m.summary);
      return out.filter(Boolean).join(PART);
    }
    case "custom_message":
      return contentText(entry.content);
    case "branch_summary":
    case "compaction":
      return typeof entry.summary === "string" ? entry.summary : "";
    case "session_info":
      return typeof entry.name === "string" ? entry.name : "";
    case "label":
      return typeof entry.label === "string" ? entry.label : "";
    default:
      return "";
  }
}

/** A short piece of `text` around the first query word, on one line. */
export function snippet(text, query, width = 140) {
  const flat = text.split(PART).join(" ").replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  const first = query.phrases[0]?.[0] ?? query.words[0];
  let at = first ? lower.indexOf(first) : 0;
  if (at < 0) at = 0;
  const start = Math.max(0, at - Math.floor(width / 3));
  const piece = flat.slice(start, start + width);
  return (start > 0 ? "…" : "") + piece + (start + width < flat.length ? "…" : "");
}

// --------------------------------------------------------------- Bloom filter

function fnv(word, seed) {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const HASHES = 4;

/**
 * A fixed-size set of words that may answer "yes" wrongly (about 1 in 100 at 10
 * bits a word) but never "no" wrongly: a file's words in a few KB, so the index
 * of a large folder holds no file's text.
 */
export class Bloom {
  constructor(words = 0, bits = null) {
    this.bits = bits ?? new Uint32Array(Math.max(2, Math.ceil((Math.max(words, 16) * 10) / 32)));
    this.size = this.bits.length * 32;
  }
  static of(words) {
    const set = words instanceof Set ? words : new Set(words);
    const b = new Bloom(set.size);
    for (const w of set) b.add(w);
    return b;
  }
  add(word) {
    const h1 = fnv(word, 0);
    const h2 = fnv(word, 0x5bd1e995) | 1;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) >>> 0;
      const at = bit % this.size;
      this.bits[at >>> 5] |= 1 << (at & 31);
    }
  }
  has(word) {
    const h1 = fnv(word, 0);
    const h2 = fnv(word, 0x5bd1e995) | 1;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) >>> 0;
      const at = bit % this.size;
      if ((this.bits[at >>> 5] & (1 << (at & 31))) === 0) return false;
    }
    return true;
  }
  hasAll(words) {
    return words.every((w) => this.has(w));
  }
}

// Lines are cut as `text.split(LINE_BREAK)` cuts them, whether the text is
// whole or arrives in pieces (LineCutter): line numbers agree either way.
export const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Cuts bytes that arrive in pieces, cut anywhere (mid-line, mid-character),
 * into the lines `new TextDecoder().decode(whole).split(LINE_BREAK)` gives:
 * `push(bytes)` returns the lines each piece completes, `end()` the rest
 * (always at least one line, as split gives). A line longer than a piece is
 * kept until its end arrives.
 */
export class LineCutter {
  constructor() {
    this.decoder = new TextDecoder();
    this.carry = "";
  }
  push(bytes) {
    const text = this.decoder.decode(bytes, { stream: true });
    // No line ends here: no split of the (maybe long) line so far.
    if (!/[\r\n]/.test(text)) {
      this.carry += text;
      return [];
    }
    return this.cut(this.carry + text, false);
  }
  end() {
    return this.cut(this.carry + this.decoder.decode(), true);
  }
  cut(text, last) {
    // A final \r may be the first half of a \r\n: it waits for the next piece.
    const hold = !last && text.endsWith("\r") ? 1 : 0;
    const lines = text.slice(0, text.length - hold).split(LINE_BREAK);
    this.carry = last ? "" : lines.pop() + (hold ? "\r" : "");
    return lines;
  }
}

/**
 * The parsed entry of one JSONL line, or null for a line that is not a JSON
 * object (the list reports those as problems).
 */
function lineEntry(raw) {
  if (!raw.trim()) return null;
  let v;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  return v && typeof v === "object" && !Array.isArray(v) ? v : null;
}

/**
 * Splits JSONL text into parsed entries with their line numbers (1-based);
 * lines that are not JSON objects are skipped (the list reports them as problems).
 */
export function* jsonlEntries(text) {
  let line = 0;
  for (const raw of text.split(LINE_BREAK)) {
    line++;
    const entry = lineEntry(raw);
    if (entry) yield { entry, line };
  }
}

/**
 * The words of a session's searchable text, fed a line at a time
 * (`line(raw)`, in file order); `bloom()` is their Bloom filter.
 */
export class WordCollector {
  constructor() {
    this.words = new Set();
    this.add = (w) => this.words.add(w);
  }
  line(raw) {
    const entry = lineEntry(raw);
    if (entry) forEachWord(entryText(entry), this.add);
  }
  bloom() {
    return Bloom.of(this.words);
  }
}

/** The Bloom filter of every searchable word of a session's text. */
export function bloomOfText(text) {
  const words = new WordCollector();
  for (const raw of text.split(LINE_BREAK)) words.line(raw);
  return words.bloom();
}

/**
 * The entries of one session that match `query` (from parseQuery), fed a
 * line at a time (`line(raw)`, in file order, every line): `hits` holds
 * `{ entryId, line, role, snippet }`, at most `limit`; `full` says the limit
 * is reached (the rest of the file changes nothing).
 */
export class LineSearch {
  constructor(query, limit = 50) {
    this.query = query;
    this.limit = limit;
    this.hits = [];
    this.needed = queryTokens(query);
    // Each phrase as it can stand in a JSON line: its words, between them only
    // what is not a word (escapes such as \n included).
    const literal = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const sep = String.raw`(?:\\[nrtbf"\\/]|[^\p{L}\p{N}_\\])+`;
    this.runs = query.phrases.map((p) => new RegExp(p.map(literal).join(sep), "u"));
    // A version 1 file has no ids: opening it makes new ones, so its hits name no entry.
    this.ids = true;
    this.lineNo = 0;
    this.first = true; // the header (the first object) is always parsed
  }
  get full() {
    return this.hits.length >= this.limit;
  }
  line(raw) {
    const line = ++this.lineNo;
    if (this.full) return;
    // A line can only match if it holds every word as written; JSON.stringify
    // never escapes letters or digits, so only a line with \u escapes is parsed
    // without this check.
    if (!this.first && !raw.includes("\\u")) {
      const lower = raw.toLowerCase();
      if (!this.needed.every((w) => lower.includes(w)) || !this.runs.every((re) => re.test(lower))) return;
    }
    const entry = lineEntry(raw);
    if (!entry) return;
    this.first = false;
    if (entry.type === "session") this.ids = typeof entry.version === "number" && entry.version >= 2;
    const t = entryText(entry);
    if (!t || !matchTokens(tokenize(t), this.query)) return;
    this.hits.push({
      entryId: this.ids && typeof entry.id === "string" ? entry.id : null,
      line,
      role: entry.type === "message" ? (entry.message?.role ?? "message") : entry.type,
      snippet: snippet(t, this.query),
    });
  }
}

/**
 * The entries of one session's text that match `query` (from parseQuery):
 * `{ entryId, line, role, snippet }`, at most `limit`.
 */
export function searchText(text, query, limit = 50) {
  const search = new LineSearch(query, limit);
  for (const raw of text.split(LINE_BREAK)) {
    if (search.full) break;
    search.line(raw);
  }
  return search.hits;
}
