// A small, safe Markdown renderer: it builds DOM nodes with createElement
// and textContent only, never HTML strings, so session content cannot inject
// markup. It covers what coding-agent transcripts use: headings, paragraphs,
// fenced and indented code, lists (with task boxes), block quotes, rules,
// tables, and inline code, emphasis, strike-through and links.

import { clipText } from "./model.js";

const el = (tag, className) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
};

const SAFE_LINK = /^(https?:|mailto:)/i;

// Quotes and lists nested deeper than this are shown as their plain lines: each
// level is a call and a pass over the lines below it, and a session may nest
// thousands deep ("> > > …" on one line).
const MAX_NESTING = 24;

/**
 * Puts `text` into `box` with `fill(text)`, the first `SHOWN_CHARS` of it if
 * it is longer, with a button at the end of `box` that fills in all of it.
 */
export function fillClipped(box, text, fill) {
  const { shown, hidden } = clipText(text);
  fill(shown);
  if (!hidden) return;
  const more = el("button", "button more clip-more");
  more.type = "button";
  more.textContent = `Show all (${hidden.toLocaleString("en")} more characters)`;
  more.addEventListener("click", () => {
    more.remove();
    fill(String(text));
  });
  box.append(more);
}

/** Renders `source` into a new `<div class="md">` (a long one cut: `fillClipped`). */
export function renderMarkdown(source) {
  const root = el("div", "md");
  fillClipped(root, String(source ?? ""), (text) => {
    root.textContent = "";
    renderBlocks(text.replace(/\r\n?/g, "\n").split("\n"), root);
  });
  return root;
}

function renderBlocks(lines, parent, depth = 0) {
  if (depth > MAX_NESTING) {
    parent.append(codeBlock(lines.join("\n"), ""));
    return;
  }
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*$/.test(line)) {
      i++;
      continue;
    }

    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      const marker = fence[2];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(marker)) body.push(lines[i++]);
      i++; // closing fence
      parent.append(codeBlock(body.join("\n"), fence[3]));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const h = el(`h${Math.min(6, heading[1].length + 2)}`);
      inline(heading[2], h);
      parent.append(h);
      i++;
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      parent.append(el("hr"));
      i++;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i])) body.push(lines[i++].replace(/^\s{0,3}>\s?/, ""));
      const quote = el("blockquote");
      renderBlocks(body, quote, depth + 1);
      parent.append(quote);
      continue;
    }
    const item = listItem(line);
    if (item) {
      i = renderList(lines, i, parent, depth);
      continue;
    }
    if (
      line.includes("|") &&
      i + 1 < lines.length &&
      /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[i + 1])
    ) {
      i = renderTable(lines, i, parent);
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || /^\s*$/.test(lines[i])))
        body.push(lines[i++].replace(/^( {4}|\t)/, ""));
      while (body.length && !body.at(-1).trim()) body.pop();
      parent.append(codeBlock(body.join("\n"), ""));
      continue;
    }
    // Paragraph: until a blank line or another block starts.
    const body = [line];
    i++;
    while (i < lines.length && !/^\s*$/.test(lines[i]) && !startsBlock(lines[i])) body.push(lines[i++]);
    const p = el("p");
    inline(body.join("\n"), p);
    parent.append(p);
  }
}

function startsBlock(line) {
  return (
    /^(\s*)(`{3,}|~{3,})/.test(line) || /^#{1,6}\s/.test(line) || /^\s{0,3}>/.test(line) || listItem(line) !== null
  );
}

function listItem(line) {
  const m = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(line);
  if (!m) return null;
  return {
    indent: m[1].replace(/\t/g, "    ").length,
    ordered: /\d/.test(m[2]),
    start: parseInt(m[2], 10),
    text: m[3],
    width: m[1].length + m[2].length + 1,
  };
}

function renderList(lines, i, parent, depth) {
  const first = listItem(lines[i]);
  const list = el(first.ordered ? "ol" : "ul");
  if (first.ordered && first.start !== 1) list.start = first.start;
  parent.append(list);
  while (i < lines.length) {
    const item = listItem(lines[i]);
    if (!item || item.indent !== first.indent || item.ordered !== first.ordered) break;
    const body = [item.text];
    i++;
    // Continuation lines and nested lists: indented more than the marker.
    while (i < lines.length) {
      const next = lines[i];
      if (/^\s*$/.test(next)) {
        if (
          i + 1 < lines.length &&
          /^\s+\S/.test(lines[i + 1]) &&
          lines[i + 1].length - lines[i + 1].trimStart().length > first.indent
        ) {
          body.push("");
          i++;
          continue;
        }
        break;
      }
      const nested = listItem(next);
      if (nested && nested.indent <= first.indent) break;
      if (!nested && !/^\s/.test(next)) {
        body.push(next);
        i++;
        continue;
      } // lazy continuation
      body.push(next.replace(new RegExp(`^\\s{0,${item.width + first.indent}}`), ""));
      i++;
    }
    const li = el("li");
    const task = /^\[([ xX])\]\s+/.exec(body[0]);
    if (task) {
      li.className = "task";
      const box = el("input");
      box.type = "checkbox";
      box.disabled = true;
      box.checked = task[1] !== " ";
      box.setAttribute("aria-label", box.checked ? "done" : "not done");
      li.append(box);
      body[0] = body[0].slice(task[0].length);
    }
    if (body.length === 1) inline(body[0], li);
    else {
      const inner = el("div");
      renderBlocks(body, inner, depth + 1);
      // A single paragraph reads better without its margins.
      if (inner.childNodes.length >= 1 && inner.firstChild.tagName === "P") {
        const p = inner.firstChild;
        while (p.firstChild) li.append(p.firstChild);
        p.remove();
      }
      while (inner.firstChild) li.append(inner.firstChild);
    }
    list.append(li);
    while (
      i < lines.length &&
      /^\s*$/.test(lines[i]) &&
      i + 1 < lines.length &&
      listItem(lines[i + 1])?.indent === first.indent
    )
      i++;
  }
  return i;
}

function splitRow(line) {
  let s = line.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function renderTable(lines, i, parent) {
  const head = splitRow(lines[i]);
  const aligns = splitRow(lines[i + 1]).map((c) =>
    c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : "",
  );
  const wrap = el("div", "table-wrap");
  const table = el("table");
  const thead = el("thead");
  const tr = el("tr");
  head.forEach((cell, k) => {
    const th = el("th");
    if (aligns[k]) th.style.textAlign = aligns[k];
    inline(cell, th);
    tr.append(th);
  });
  thead.append(tr);
  table.append(thead);
  const tbody = el("tbody");
  i += 2;
  while (i < lines.length && lines[i].includes("|") && lines[i].trim()) {
    const row = el("tr");
    splitRow(lines[i]).forEach((cell, k) => {
      const td = el("td");
      if (aligns[k]) td.style.textAlign = aligns[k];
      inline(cell, td);
      row.append(td);
    });
    tbody.append(row);
    i++;
  }
  table.append(tbody);
  wrap.append(table);
  parent.append(wrap);
  return i;
}

export function codeBlock(text, lang) {
  const pre = el("pre", "code");
  pre.tabIndex = 0; // it may scroll: the keyboard must reach it
  const code = el("code");
  if (lang) pre.dataset.lang = lang;
  pre.append(code);
  fillClipped(pre, text, (t) => {
    code.textContent = t;
  });
  return pre;
}

// Inline spans in two steps. First a tiny tokenizer finds the spans that bind
// tighter than emphasis: code spans, links, autolinks, escapes, hard breaks
// (and `~~` strike-through). Each is tried once and looks no further than its
// closer could be (a code span opens on a whole run of backticks; link text
// holds no bracket, a link target no parenthesis), so a line of thousands of
// markers is matched in one pass. Then the runs of `*` and `_` between them are
// paired as CommonMark says (its "process emphasis" over a delimiter list,
// with the left- and right-flanking rules): `snake_case_names` and
// `window.__x … window.__` stay text, `a*b*c` is emphasis.
const TOKENS =
  /(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)|~~([\s\S]+?)~~|\[([^[\]\n]+)\]\(([^()\s]+)(?:\s+"[^"]*")?\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])|\\([\\`*_{}[\]()#+\-.!|~>])|( {2,}|\\)\n/g;

// Emphasis nested deeper than this (`***…a…***`, thousands of markers) keeps
// its markers as text: the DOM stays shallow and the letters all show.
const MAX_EMPHASIS = 16;

// CommonMark's classes: whitespace is Zs and tab, line feed, form feed, carriage
// return; punctuation is any P or S character. The line's ends count as whitespace.
const WHITESPACE = /^[\p{Zs}\t\n\f\r]$/u;
const PUNCTUATION = /^[\p{P}\p{S}]$/u;

/** The character (code point) that ends just before `i` in `text`, or "" at its start. */
function charBefore(text, i) {
  if (i <= 0) return "";
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(i - 2, i);
  }
  return text[i - 1];
}

/** The character (code point) at `i` in `text`, or "" at its end. */
function charAt(text, i) {
  return i < text.length ? String.fromCodePoint(text.codePointAt(i)) : "";
}

/**
 * Whether a run of `*` or `_` from `start` to `end` in `text` can open and can
 * close emphasis: CommonMark's left- and right-flanking delimiter runs, with
 * `_`'s extra rule against opening or closing inside a word.
 */
export function delimiterRun(text, start, end) {
  const ch = text[start];
  const before = charBefore(text, start);
  const after = charAt(text, end);
  const spaceBefore = before === "" || WHITESPACE.test(before);
  const spaceAfter = after === "" || WHITESPACE.test(after);
  const punctBefore = before !== "" && PUNCTUATION.test(before);
  const punctAfter = after !== "" && PUNCTUATION.test(after);
  const left = !spaceAfter && (!punctAfter || spaceBefore || punctBefore);
  const right = !spaceBefore && (!punctBefore || spaceAfter || punctAfter);
  if (ch === "_") return { canOpen: left && (!right || punctBefore), canClose: right && (!left || punctAfter) };
  return { canOpen: left, canClose: right };
}

/**
 * `text`'s inline spans as a doubly linked list (`first`): `text` nodes, `token`
 * nodes (a match of TOKENS) and `delim` nodes (runs of `*` or `_`, also linked
 * among themselves by `prevDelim`/`nextDelim` from `firstDelim`).
 */
function tokenize(text) {
  const list = { first: null, last: null, firstDelim: null };
  let lastDelim = null;
  const push = (node) => {
    node.prev = list.last;
    node.next = null;
    if (list.last) list.last.next = node;
    else list.first = node;
    list.last = node;
    return node;
  };
  const plain = (from, to) => {
    let at = from;
    // Over the stretch alone: a search past `to` would make many short stretches quadratic.
    for (const m of text.slice(from, to).matchAll(/\*+|_+/g)) {
      const start = from + m.index;
      const end = start + m[0].length;
      if (start > at) push({ t: "text", s: text.slice(at, start) });
      const { canOpen, canClose } = delimiterRun(text, start, end);
      const n = end - start;
      const d = push({ t: "delim", ch: text[start], n, origN: n, canOpen, canClose, prevDelim: lastDelim });
      d.nextDelim = null;
      if (lastDelim) lastDelim.nextDelim = d;
      else list.firstDelim = d;
      lastDelim = d;
      at = end;
    }
    if (at < to) push({ t: "text", s: text.slice(at, to) });
  };
  let last = 0;
  // matchAll runs on a copy of the pattern, so inline() may recurse.
  for (const m of text.matchAll(TOKENS)) {
    plain(last, m.index);
    push({ t: "token", m });
    last = m.index + m[0].length;
  }
  plain(last, text.length);
  return list;
}

/** Takes `node` out of the delimiter list (it stays in the node list, as text). */
function dropDelim(list, node) {
  if (node.prevDelim) node.prevDelim.nextDelim = node.nextDelim;
  else list.firstDelim = node.nextDelim;
  if (node.nextDelim) node.nextDelim.prevDelim = node.prevDelim;
  node.prevDelim = node.nextDelim = null;
}

/** Takes `node` out of the node list. */
function unlink(list, node) {
  if (node.prev) node.prev.next = node.next;
  else list.first = node.next;
  if (node.next) node.next.prev = node.prev;
  else list.last = node.prev;
}

/**
 * CommonMark's "process emphasis": pairs closers with the nearest opener of
 * their character (the rule of 3 kept), the nodes between becoming the
 * children of an `em` (`strong` when both runs have two left) node. Deeper than
 * `room` levels, a pair becomes a `group` whose markers stay text.
 */
function pairEmphasis(list, room) {
  const bottoms = new Map(); // CommonMark's openers_bottom: where a failed search for such a closer stopped
  let closer = list.firstDelim;
  while (closer) {
    if (!closer.canClose) {
      closer = closer.nextDelim;
      continue;
    }
    const key = `${closer.ch}${closer.canOpen ? 1 : 0}${closer.origN % 3}`;
    const bottom = bottoms.get(key) ?? null;
    let opener = closer.prevDelim;
    while (opener && opener !== bottom) {
      const odd =
        (opener.canClose || closer.canOpen) &&
        (opener.origN + closer.origN) % 3 === 0 &&
        !(opener.origN % 3 === 0 && closer.origN % 3 === 0);
      if (opener.ch === closer.ch && opener.canOpen && !odd) break;
      opener = opener.prevDelim;
    }
    if (!opener || opener === bottom) {
      bottoms.set(key, closer.prevDelim);
      const next = closer.nextDelim;
      if (!closer.canOpen) dropDelim(list, closer);
      closer = next;
      continue;
    }
    const use = opener.n >= 2 && closer.n >= 2 ? 2 : 1;
    opener.n -= use;
    closer.n -= use;
    // The delimiters between the two are text from now on.
    while (opener.nextDelim !== closer) dropDelim(list, opener.nextDelim);
    // The nodes between become the new node's children.
    let depth = 0;
    const first = opener.next === closer ? null : opener.next;
    const last = first ? closer.prev : null;
    for (let n = first; n; n = n === last ? null : n.next) depth = Math.max(depth, n.depth ?? 0);
    const deep = depth + 1 > room;
    const node = {
      t: deep ? "group" : "em",
      strong: use === 2,
      mark: opener.ch.repeat(use),
      first,
      depth: deep ? depth : depth + 1,
      prev: opener,
      next: closer,
    };
    if (first) {
      first.prev = null;
      last.next = null;
    }
    opener.next = node;
    closer.prev = node;
    if (opener.n === 0) {
      unlink(list, opener);
      dropDelim(list, opener);
    }
    if (closer.n === 0) {
      const next = closer.nextDelim;
      unlink(list, closer);
      dropDelim(list, closer);
      closer = next;
    }
  }
}

/** Appends `text`'s inline spans to `parent`; `depth`: the emphasis already around it. */
export function inline(text, parent, depth = 0) {
  const list = tokenize(text);
  pairEmphasis(list, MAX_EMPHASIS - depth);
  // Drawn with a stack, not recursion: a group may hold groups thousands deep.
  const stack = [{ node: list.first, into: parent, depth, close: null }];
  while (stack.length) {
    const top = stack.at(-1);
    const node = top.node;
    if (!node) {
      if (top.close) top.into.append(document.createTextNode(top.close));
      stack.pop();
      continue;
    }
    top.node = node.next;
    if (node.t === "text") top.into.append(document.createTextNode(node.s));
    else if (node.t === "delim") {
      if (node.n) top.into.append(document.createTextNode(node.ch.repeat(node.n)));
    } else if (node.t === "token") token(node.m, top.into, top.depth);
    else if (node.t === "em") {
      const e = el(node.strong ? "strong" : "em");
      top.into.append(e);
      stack.push({ node: node.first, into: e, depth: top.depth + 1, close: null });
    } else {
      top.into.append(document.createTextNode(node.mark));
      stack.push({ node: node.first, into: top.into, depth: top.depth, close: node.mark });
    }
  }
}

/** One span TOKENS matched, into `parent`. */
function token(m, parent, depth) {
  if (m[1] !== undefined) {
    const code = el("code");
    code.textContent = m[2].length > 1 && m[2].startsWith(" ") && m[2].endsWith(" ") ? m[2].slice(1, -1) : m[2];
    parent.append(code);
  } else if (m[3] !== undefined) {
    const del = el("del");
    inline(m[3], del, depth + 1);
    parent.append(del);
  } else if (m[4] !== undefined) {
    parent.append(link(m[5], (a) => inline(m[4], a, depth + 1)));
  } else if (m[6] !== undefined) {
    parent.append(
      link(m[6], (a) => {
        a.textContent = m[6];
      }),
    );
  } else if (m[7] !== undefined) {
    parent.append(document.createTextNode(m[7]));
  } else {
    parent.append(el("br"));
  }
}

function link(href, fill) {
  if (!SAFE_LINK.test(href)) {
    const span = el("span", "link-blocked");
    fill(span);
    span.title = `link not followed: ${href}`;
    return span;
  }
  const a = el("a");
  a.href = href;
  a.target = "_blank";
  a.rel = "noopener noreferrer nofollow";
  fill(a);
  return a;
}
