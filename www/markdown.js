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

// Inline spans, longest-match-first with a tiny tokenizer. Each span's opener
// is tried once and looks no further than its closer could be (a code span
// opens on a whole run of backticks; emphasis ends before the next marker of
// its kind; link text holds no bracket, a link target no parenthesis), so a
// line of thousands of markers is matched in one pass, not once per marker.
const INLINE =
  /(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|~~([\s\S]+?)~~|\*([^\s*](?:[^*]*?[^\s*])?)\*|(?<![\w])_([^\s_](?:[^_]*?[^\s_])?)_(?![\w])|\[([^[\]\n]+)\]\(([^()\s]+)(?:\s+"[^"]*")?\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])|\\([\\`*_{}[\]()#+\-.!|~>])|( {2,}|\\)\n/g;

export function inline(text, parent) {
  let last = 0;
  // matchAll runs on a copy of the pattern, so inline() may recurse.
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) parent.append(document.createTextNode(text.slice(last, m.index)));
    last = m.index + m[0].length;
    if (m[1] !== undefined) {
      const code = el("code");
      code.textContent = m[2].length > 1 && m[2].startsWith(" ") && m[2].endsWith(" ") ? m[2].slice(1, -1) : m[2];
      parent.append(code);
    } else if (m[3] !== undefined || m[4] !== undefined) {
      const strong = el("strong");
      inline(m[3] ?? m[4], strong);
      parent.append(strong);
    } else if (m[5] !== undefined) {
      const del = el("del");
      inline(m[5], del);
      parent.append(del);
    } else if (m[6] !== undefined || m[7] !== undefined) {
      const em = el("em");
      inline(m[6] ?? m[7], em);
      parent.append(em);
    } else if (m[8] !== undefined) {
      parent.append(link(m[9], (a) => inline(m[8], a)));
    } else if (m[10] !== undefined) {
      parent.append(
        link(m[10], (a) => {
          a.textContent = m[10];
        }),
      );
    } else if (m[11] !== undefined) {
      parent.append(document.createTextNode(m[11]));
    } else {
      parent.append(el("br"));
    }
  }
  if (last < text.length) parent.append(document.createTextNode(text.slice(last)));
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
