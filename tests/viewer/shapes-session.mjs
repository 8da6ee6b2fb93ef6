// Generates session files of shapes the viewer was not designed for (docs/shapes-log.md,
// "The viewer and serve"): a very deep chain, a star, a comb, long forked branches, many
// labels, a context edit after every entry, hostile text (non-ASCII, NUL, U+2028, markup,
// a huge tool result, pathological markdown), a custom type per entry, unknown types, a
// header alone, malformed lines. Deterministic. Each generator returns its JSONL text and
// `leaf`, the id of a deep leaf worth selecting (or null).
//
//   node tests/viewer/shapes-session.mjs DIR [name...]   writes DIR/<name>.jsonl

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const START = Date.UTC(2025, 3, 1);
const stamp = (i) => new Date(START + i * 1000).toISOString();
const idOf = (prefix, i) => `${prefix}${i.toString(16).padStart(7, "0")}`;

/** Lines of a session: `header` then `add(entry)` (id, parentId and timestamp filled in). */
function session(name, extra = {}) {
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: `shape-${name}`,
      timestamp: stamp(0),
      cwd: `/shapes/${name}`,
      ...extra,
    }),
  ];
  let n = 0;
  return {
    lines,
    add(id, parentId, fields) {
      n++;
      lines.push(JSON.stringify({ type: "message", id, parentId, timestamp: stamp(n), ...fields }));
      return id;
    },
    raw(line) {
      lines.push(line);
    },
    text() {
      return `${lines.join("\n")}\n`;
    },
  };
}

const user = (text, i) => ({ message: { role: "user", content: text, timestamp: START + i } });
const assistant = (text, i) => ({
  message: {
    role: "assistant",
    content: [{ type: "text", text }],
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
    usage: {
      input: 100,
      output: 20,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 120,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.001 },
    },
    stopReason: "stop",
    timestamp: START + i,
  },
});
const turn = (i, pad = "") => (i % 2 === 0 ? user(`question ${i}${pad}`, i) : assistant(`answer ${i}${pad}`, i));

/** 200,000 messages in one chain (~50 MB). */
export function chain(count = 200_000) {
  const s = session("chain");
  const pad = "";
  let parent = null;
  for (let i = 0; i < count; i++) parent = s.add(idOf("c", i), parent, turn(i, pad));
  return { text: s.text(), leaf: parent };
}

/** One user message with `count` assistant children. */
export function star(count = 50_000) {
  const s = session("star");
  const root = s.add("root", null, user("the one question", 0));
  for (let i = 0; i < count; i++) s.add(idOf("s", i), root, assistant(`answer number ${i}`, i + 1));
  return { text: s.text(), leaf: idOf("s", count - 1) };
}

/** A spine of `count` entries with a one-entry tooth off each. */
export function comb(count = 50_000) {
  const s = session("comb");
  let parent = null;
  for (let i = 0; i < count; i++) {
    const spine = s.add(idOf("p", i), parent, user(`spine ${i}`, 2 * i));
    s.add(idOf("t", i), spine, assistant(`tooth ${i}`, 2 * i + 1));
    parent = spine;
  }
  return { text: s.text(), leaf: idOf("t", count - 1) };
}

/** `branches` branches of `depth` entries, each forked from the previous one's start or end. */
export function forks(branches = 20, depth = 5_000) {
  const s = session("forks");
  let first = null;
  let last = null;
  for (let b = 0; b < branches; b++) {
    let parent = b === 0 ? null : b % 2 ? first : last;
    let start = null;
    for (let i = 0; i < depth; i++) {
      parent = s.add(`b${b}-${i}`, parent, turn(i));
      start ??= parent;
    }
    first = start;
    last = parent;
  }
  return { text: s.text(), leaf: last };
}

/** `count` messages, each labelled 5 times (the last pass clears every third). */
export function labels(count = 20_000) {
  const s = session("labels");
  let parent = null;
  for (let i = 0; i < count; i++) parent = s.add(idOf("m", i), parent, turn(i));
  let k = 0;
  for (let pass = 0; pass < 5; pass++) {
    for (let i = 0; i < count; i++) {
      const id = idOf("l", k++);
      const clear = pass === 4 && i % 3 === 0;
      s.raw(
        JSON.stringify({
          type: "label",
          id,
          parentId: parent,
          timestamp: stamp(count + k),
          targetId: idOf("m", i),
          label: clear ? undefined : `pass ${pass} ✓ ${i}`,
        }),
      );
      parent = id;
    }
  }
  return { text: s.text(), leaf: parent };
}

/** A context_edit after every message: every third removes it, the others replace it. */
export function edits(count = 20_000) {
  const s = session("edits");
  let parent = null;
  for (let i = 0; i < count; i++) {
    const id = s.add(idOf("m", i), parent, turn(i));
    const e = idOf("e", i);
    const replacement = i % 3 === 0 ? null : { content: [{ type: "text", text: `edited ${i}` }] };
    s.raw(
      JSON.stringify({
        type: "context_edit",
        id: e,
        parentId: id,
        timestamp: stamp(count + i),
        targetId: id,
        replacement,
      }),
    );
    parent = e;
  }
  return { text: s.text(), leaf: parent };
}

const INJECT = `<img src=x onerror="window.__injected=(window.__injected||0)+1"><script>window.__injected=1</script>`;

/** Hostile text: non-ASCII, control characters, markup, a huge tool result, pathological markdown. */
export function text(hugeBytes = 20 << 20) {
  const s = session("text");
  const cjk = "会话树的查看器应当正确显示中文、日本語のテキスト、한국어 텍스트。".repeat(200);
  const emoji = "👩‍👩‍👧‍👦🏳️‍🌈🇯🇵😀".repeat(300);
  const arabic = "مرحبا بالعالم، هذا نص عربي طويل يكتب من اليمين إلى اليسار. ".repeat(100);
  const hebrew = "שלום עולם, זהו טקסט עברי ארוך. ".repeat(100);
  const controls = `NUL\u0000here BEL\u0007 ESC\u001b[31mred\u001b[0m LS\u2028PS\u2029 RLO\u202Eevil\u202C ZW\u200B\uFEFF end`;
  const nested = `${"> ".repeat(2000)}deep quote\n\n${"- ".repeat(2000)}deep list\n\n${"*".repeat(5000)}stars${"_".repeat(5000)}\n\n${"[".repeat(5000)}x${"](".repeat(5000)}\n\n${"`".repeat(3000)}\n\n${Array.from({ length: 3000 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n")}`;
  const word = "a".repeat(200_000);
  const url = `https://example.com/${"very-long-path-segment/".repeat(5000)}?q=${"x".repeat(50_000)}`;
  const huge = "tool output line ✓ ünïcödé\n".repeat(Math.ceil(hugeBytes / 30));
  let parent = null;
  let i = 0;
  const u = (t) => {
    parent = s.add(`t${i}`, parent, user(t, i++));
    return parent;
  };
  const a = (t) => {
    parent = s.add(`t${i}`, parent, assistant(t, i++));
    return parent;
  };
  u(`CJK: ${cjk}`);
  a(`Emoji: ${emoji}`);
  u(`Arabic: ${arabic}`);
  a(`Hebrew: ${hebrew}`);
  u(`Controls: ${controls}`);
  a(`Injection in text: ${INJECT} **bold ${INJECT}** [link](javascript:alert(1)) ![img](javascript:alert(2))`);
  u(`Markdown: ${nested}`);
  a(`Long word: ${word}`);
  u(`Long URL: ${url}`);
  s.raw(
    JSON.stringify({
      type: "message",
      id: `t${i}`,
      parentId: parent,
      timestamp: stamp(i),
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: `read${INJECT}`,
        content: [{ type: "text", text: huge }],
        isError: false,
        timestamp: START + i,
      },
    }),
  );
  parent = `t${i++}`;
  s.raw(
    JSON.stringify({
      type: "label",
      id: "lab1",
      parentId: parent,
      timestamp: stamp(i++),
      targetId: "t0",
      label: `label ${INJECT} שלום 😀\u0000`,
    }),
  );
  s.raw(
    JSON.stringify({
      type: "session_info",
      id: "info1",
      parentId: "lab1",
      timestamp: stamp(i++),
      name: `name ${INJECT} مرحبا 👩‍👩‍👧‍👦`,
    }),
  );
  s.raw(
    JSON.stringify({
      type: "custom",
      id: "cus1",
      parentId: "info1",
      timestamp: stamp(i++),
      customType: `type${INJECT}`,
      data: { html: INJECT },
    }),
  );
  s.raw(
    JSON.stringify({
      type: "custom_message",
      id: "cm1",
      parentId: "cus1",
      timestamp: stamp(i++),
      customType: `note${INJECT}`,
      content: `custom ${INJECT} 中文`,
      display: true,
    }),
  );
  parent = "cm1";
  a(`Last: 😀 שלום مرحبا 中文 ${INJECT}`);
  return { text: s.text(), leaf: parent };
}

/** `count` entries, each a custom type of its own; a few custom messages and unknown types. */
export function customs(count = 5_000) {
  const s = session("customs");
  let parent = s.add("u0", null, user("start", 0));
  for (let i = 0; i < count; i++) {
    const id = idOf("x", i);
    const entry =
      i % 50 === 0
        ? { type: `unknown_type_${i}`, id, parentId: parent, timestamp: stamp(i + 1), payload: { i } }
        : i % 7 === 0
          ? {
              type: "custom_message",
              id,
              parentId: parent,
              timestamp: stamp(i + 1),
              customType: `kind-${i}`,
              content: `custom message ${i}`,
              display: i % 2 === 0,
            }
          : { type: "custom", id, parentId: parent, timestamp: stamp(i + 1), customType: `kind-${i}`, data: { i } };
    s.raw(JSON.stringify(entry));
    parent = id;
  }
  parent = s.add("u1", parent, user("end", count + 1));
  return { text: s.text(), leaf: parent };
}

/** A header and nothing else. */
export function headerOnly() {
  return { text: `${session("header").lines[0]}\n`, leaf: null };
}

/** Malformed lines between valid entries. */
export function malformed() {
  const s = session("malformed");
  const bad = [
    "{not json",
    "",
    "   ",
    "[1,2,3]",
    '"a string"',
    "null",
    '{"type":"message"}',
    '{"id":"x"',
    "\u0000\u0001",
    "}{",
    '{"type":"message","id":"m","parentId":{},"timestamp":5}',
  ];
  let parent = null;
  for (let i = 0; i < 40; i++) {
    parent = s.add(idOf("m", i), parent, turn(i));
    s.raw(bad[i % bad.length]);
  }
  return { text: s.text(), leaf: parent };
}

export const SHAPES = { chain, star, comb, forks, labels, edits, text, customs, "header-only": headerOnly, malformed };

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, ...names] = process.argv.slice(2);
  if (!dir) throw new Error("usage: node tests/viewer/shapes-session.mjs DIR [name...]");
  mkdirSync(dir, { recursive: true });
  for (const name of names.length ? names : Object.keys(SHAPES)) {
    const t = Date.now();
    const { text, leaf } = SHAPES[name]();
    writeFileSync(join(dir, `${name}.jsonl`), text);
    console.log(
      `${name}.jsonl: ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MB, leaf ${leaf}, ${Date.now() - t} ms`,
    );
  }
}
