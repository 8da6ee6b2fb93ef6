// Unit tests of www/markdown.js on text no agent means as Markdown but a session may hold:
// nesting thousands deep, runs of thousands of markers. Each renders, keeps its text and
// returns (in a tree of bounded depth); none runs out of stack or scans the text again
// from each of its characters. The time limits are there only so that a regression fails
// instead of hanging (the inputs took from seconds to hours before; they take milliseconds).
// A randomized test mixes markers into random text: MARKDOWN_SEED replays it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { envSeed, Rng } from "../../shared/rng.mjs";
import { installDocument } from "./mini-dom.mjs";

installDocument();
const { codeBlock, renderMarkdown } = await import("../../../www/markdown.js");

/** `renderMarkdown(source)` with every "Show all" button of long text clicked. */
function renderAll(source) {
  const md = renderMarkdown(source);
  for (;;) {
    const more = md.descendants().find((e) => e.className.includes("clip-more"));
    if (!more) return md;
    more.click();
  }
}

/** Whether `a` is `b` with some characters left out. */
function isSubsequence(a, b) {
  let j = 0;
  for (let i = 0; i < b.length && j < a.length; i++) if (b[i] === a[j]) j++;
  return j === a.length;
}

/** The text a reader sees: every character but the markers, in order. */
const letters = (s) => s.replace(/[^a-z0-9]/gi, "");

test("quotes nested 5,000 deep on one line render, to a bounded depth", { timeout: 30_000 }, () => {
  const md = renderAll(`${"> ".repeat(5000)}deep`);
  assert.match(md.textContent, /deep$/);
  assert.ok(md.depth() < 100, `depth ${md.depth()}`);
});

test("a list nested 3,000 deep renders, every item kept, to a bounded depth", { timeout: 30_000 }, () => {
  const source = Array.from({ length: 3000 }, (_, i) => `${"  ".repeat(i)}- item ${i}`).join("\n");
  const md = renderAll(source);
  assert.ok(letters(md.textContent) === letters(source), "every item kept");
  assert.ok(md.depth() < 100, `depth ${md.depth()}`);
});

test("quote lines nested one level more each render", { timeout: 30_000 }, () => {
  const source = Array.from({ length: 2000 }, (_, i) => `${">".repeat(i + 1)} q${i}`).join("\n");
  const md = renderAll(source);
  assert.match(md.textContent, /q0[\s\S]*q1999/);
  assert.ok(md.depth() < 100, `depth ${md.depth()}`);
});

test("long runs of inline markers render in one pass", { timeout: 30_000 }, () => {
  const runs = {
    backticks: `a ${"`".repeat(20_000)} b`,
    backtickPairs: `a ${"``x".repeat(20_000)}`,
    brackets: `${"[".repeat(20_000)}x${"](".repeat(20_000)}`,
    emphasis: "*a ".repeat(20_000),
    strong: "**a ".repeat(20_000),
    underscores: "_a ".repeat(20_000),
    strike: "~~a ".repeat(20_000),
  };
  for (const [name, source] of Object.entries(runs)) {
    const md = renderAll(source);
    assert.ok(letters(md.textContent) === letters(source), name);
  }
});

test("what the markers still mean", () => {
  const md = (s) =>
    renderMarkdown(s)
      .descendants()
      .map((e) => e.tagName)
      .join(" ");
  assert.equal(md("a `code` b"), "P CODE");
  assert.equal(md("a ``co`de`` b"), "P CODE");
  assert.equal(renderMarkdown("a ``co`de`` b").textContent, "a co`de b");
  assert.equal(md("**bold** and *em* and ~~del~~"), "P STRONG EM DEL");
  assert.equal(md("[text](https://example.com)"), "P A");
  assert.equal(md("> a\n> > b"), "BLOCKQUOTE P BLOCKQUOTE P");
  assert.equal(md("- a\n  - b\n    - c"), "UL LI UL LI UL LI");
});

test("random runs of markers keep their letters, in order", { timeout: 60_000 }, () => {
  const rng = new Rng(envSeed("MARKDOWN_SEED"));
  const pieces = [
    "`",
    "``",
    "*",
    "**",
    "_",
    "~~",
    "[",
    "]",
    "(",
    ")",
    "](",
    "> ",
    "- ",
    "  ",
    "\n",
    "\n\n",
    "|",
    "\\",
    "a",
    "b c",
    "http://x.y/",
  ];
  for (let round = 0; round < 200; round++) {
    let source = "";
    const n = rng.int(1, 4000);
    for (let i = 0; i < n; i++) source += rng.pick(pieces).repeat(rng.chance(0.1) ? rng.int(1, 300) : 1);
    const md = renderAll(source);
    // Markers, link targets and code fences' languages are not text: what is shown is
    // the source's letters with some left out, in order.
    assert.ok(
      isSubsequence(letters(md.textContent), letters(source)),
      `round ${round}: ${JSON.stringify(source.slice(0, 300))}`,
    );
    assert.ok(md.depth() < 200, `round ${round}: depth ${md.depth()}`);
  }
});

test("a text of 20 MB is laid out cut, with a button that shows all of it", () => {
  const line = "tool output ✓ ünïcödé 😀\n";
  const text = line.repeat(Math.ceil((20 << 20) / line.length));
  for (const [name, node] of [
    ["markdown", renderMarkdown(text)],
    ["code", codeBlock(text, "")],
  ]) {
    const button = node.descendants().find((e) => e.tagName === "BUTTON");
    assert.ok(button, name);
    const before = node.textContent.length;
    assert.ok(before < 200_000, `${name}: ${before} characters laid out`);
    assert.ok(text.startsWith(node.textContent.slice(0, before - button.textContent.length)), name);
    assert.match(button.textContent, /^Show all \([\d,]+ more characters\)$/);
    button.click();
    assert.equal(node.descendants().filter((e) => e.tagName === "BUTTON").length, 0, name);
    assert.ok(letters(node.textContent) === letters(text), name);
  }
  // Short text is laid out whole, with no button.
  assert.equal(renderMarkdown("short").descendants().length, 1);
});
