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

/** `source` rendered as one paragraph's inline HTML: `<em>`, `<strong>`, `<code>` and text. */
function inlineHtml(source) {
  const html = (n) =>
    n.tagName === undefined
      ? n.textContent
      : `<${n.tagName.toLowerCase()}>${n.childNodes.map(html).join("")}</${n.tagName.toLowerCase()}>`;
  const [p] = renderMarkdown(source).childNodes;
  assert.equal(p.tagName, "P", source);
  return p.childNodes.map(html).join("");
}

// CommonMark's emphasis rules (spec 0.31, "Emphasis and strong emphasis"): a run of `*` or
// `_` is left-flanking when the next character is not whitespace, and is not punctuation
// unless the run comes after whitespace or punctuation; right-flanking is the mirror. `*`
// opens when left-flanking and closes when right-flanking; `_` also may not open or close
// inside a word (left- and right-flanking at once) unless punctuation is on that side. The
// cases are written from those rules; each expected value is worked out by hand.
test("underscores inside a word are text; asterisks are emphasis", () => {
  // The hunt's case: `__` after "window." opens, but the second `__` comes after "." and
  // before a letter, so it is left-flanking only and closes nothing.
  assert.equal(inlineHtml("see window.__cfg=1 and window.__cfg"), "see window.__cfg=1 and window.__cfg");
  assert.equal(inlineHtml("a read_file_tool call"), "a read_file_tool call");
  assert.equal(inlineHtml("x__y__z"), "x__y__z");
  assert.equal(inlineHtml("x**y**z"), "x<strong>y</strong>z");
  assert.equal(inlineHtml("x*y*z"), "x<em>y</em>z");
  // Letters of any script are letters: no emphasis inside a Greek word either.
  assert.equal(inlineHtml("αβ_γδ_εζ"), "αβ_γδ_εζ");
});

test("an underscore run may open after punctuation and close before it", () => {
  assert.equal(inlineHtml("(_quoted_)"), "(<em>quoted</em>)");
  assert.equal(inlineHtml("see __init__."), "see <strong>init</strong>.");
  assert.equal(inlineHtml("a-_b_"), "a-<em>b</em>");
  // Before punctuation and after a letter: right-flanking only, so `_` closes.
  assert.equal(inlineHtml("_one two_."), "<em>one two</em>.");
  // After a letter and before a letter it neither opens nor closes.
  assert.equal(inlineHtml("_one t_wo_"), "<em>one t_wo</em>");
});

test("a run next to whitespace opens or closes only on its word's side", () => {
  assert.equal(inlineHtml("a * b * c"), "a * b * c");
  assert.equal(inlineHtml("a _ b _ c"), "a _ b _ c");
  assert.equal(inlineHtml("*a *b"), "*a *b", "two openers, no closer");
  assert.equal(inlineHtml("a* b*"), "a* b*", "two closers, no opener");
  assert.equal(inlineHtml("** a**"), "** a**");
});

test("punctuation inside the runs: an opener before punctuation needs space or punctuation before it", () => {
  // `*` before "(" and after a letter is not left-flanking: it cannot open.
  assert.equal(inlineHtml("a*(b)*"), "a*(b)*");
  // After a space it can.
  assert.equal(inlineHtml("a *(b)*"), "a <em>(b)</em>");
  // Symbols count as punctuation (0.31): in `*$*x` both runs can only open (the second
  // follows "$" and precedes a letter), so nothing closes; in `*$x*` the last one closes.
  assert.equal(inlineHtml("*$*x"), "*$*x");
  assert.equal(inlineHtml("*$x*"), "<em>$x</em>");
});

test("closers pair with the nearest opener; leftovers stay text", () => {
  assert.equal(inlineHtml("**a*"), "*<em>a</em>");
  assert.equal(inlineHtml("*a**"), "<em>a</em>*");
  assert.equal(inlineHtml("*a _b* c_"), "<em>a _b</em> c_");
  assert.equal(inlineHtml("_a *b_ c*"), "<em>a *b</em> c*");
  // The `**` after "b" closes the nearest opener, the single `*`, with one marker (em);
  // its second marker then closes one of the first `**`; the last `*` closes the other.
  assert.equal(inlineHtml("**a *b** c*"), "<em><em>a <em>b</em></em> c</em>");
});

test("nesting: strong in em, em in strong, three markers", () => {
  assert.equal(inlineHtml("*a **b** c*"), "<em>a <strong>b</strong> c</em>");
  assert.equal(inlineHtml("**a *b* c**"), "<strong>a <em>b</em> c</strong>");
  assert.equal(inlineHtml("***a***"), "<em><strong>a</strong></em>");
  assert.equal(inlineHtml("_**a**_"), "<em><strong>a</strong></em>");
  assert.equal(inlineHtml("*(*a*)*"), "<em>(<em>a</em>)</em>");
});

test("the rule of three: a run that can open and close pairs only when the lengths allow", () => {
  // The middle `**` is both-flanking; 1 + 2 = 3 is a multiple of 3, so it does not close
  // the first `*`, and the last `*` closes it instead.
  assert.equal(inlineHtml("*a**b*"), "<em>a**b</em>");
  // 2 + 2 is not: the both-flanking runs pair.
  assert.equal(inlineHtml("*a**b**c*"), "<em>a<strong>b</strong>c</em>");
  // 3 + 3 = 6, but both are multiples of 3: allowed.
  assert.equal(inlineHtml("a***b***c"), "a<em><strong>b</strong></em>c");
});

test("code spans, links and escapes bind tighter than emphasis", () => {
  assert.equal(inlineHtml("*a `b*` c*"), "<em>a <code>b*</code> c</em>");
  assert.equal(inlineHtml("`_a` b_"), "<code>_a</code> b_");
  assert.equal(inlineHtml("\\*a*"), "*a*");
  assert.equal(inlineHtml("\\__a_"), "_<em>a</em>");
});

test("emphasis nested past a bound keeps its markers as text", () => {
  const md = renderAll(`${"*".repeat(5000)}deep${"*".repeat(5000)}`);
  assert.ok(md.depth() < 40, `depth ${md.depth()}`);
  assert.equal(md.textContent.replace(/\*/g, ""), "deep");
  assert.ok(md.textContent.length > 4, "the markers past the bound are shown");
});
