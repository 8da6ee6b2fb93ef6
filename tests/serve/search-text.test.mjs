// Unit tests of the package's cli/serve/search-text.js (the query syntax, the
// text of entries, the Bloom filter) on entries written by hand.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  Bloom,
  entryText,
  matchTokens,
  parseQuery,
  queryTokens,
  searchText,
  tokenize,
} from "../../pkg/cli/serve/search-text.js";
import { envSeed, Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";
import { drawQuery } from "./helpers.mjs";

test("queries: words and quoted phrases, case-insensitive", () => {
  assert.deepEqual(parseQuery('Fix "the Parser" now'), { phrases: [["the", "parser"]], words: ["fix", "now"] });
  assert.deepEqual(parseQuery('"unclosed phrase'), { phrases: [["unclosed", "phrase"]], words: [] });
  assert.deepEqual(parseQuery('  "" '), { phrases: [], words: [] });
  assert.deepEqual(queryTokens(parseQuery('a "a b"')), ["a", "b"]);
  assert.deepEqual(tokenize("Ünïcode, 日本語 and snake_case!"), ["ünïcode", "日本語", "and", "snake_case"]);
});

test("every term must be in the entry; a phrase's words in a row", () => {
  const tokens = tokenize("please fix the parser before the release");
  assert.equal(matchTokens(tokens, parseQuery('"the parser" release')), true);
  assert.equal(matchTokens(tokens, parseQuery('"parser the"')), false);
  assert.equal(matchTokens(tokens, parseQuery("parser missing")), false);
  assert.equal(matchTokens(tokens, parseQuery("pars")), false, "words match whole words");
  assert.equal(matchTokens(tokens, parseQuery("")), false);
  // Not across two parts of an entry (a text block and a tool call's name).
  const parts = tokenize(
    entryText({
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "run the" },
          { type: "toolCall", name: "bash", arguments: {} },
        ],
      },
    }),
  );
  assert.equal(matchTokens(parts, parseQuery('"the bash"')), false);
  assert.equal(matchTokens(parts, parseQuery("the bash")), true);
});

test("searchText's line filter loses nothing: it finds what parsing every line finds", () => {
  const seed = envSeed("SEARCH_TEXT_SEED");
  const rng = new Rng(seed);
  let checked = 0;
  for (let n = 0; n < 60; n++) {
    const { text } = generateSession(rng.int(0, 2 ** 31), { maxEntries: 60, pi16: rng.chance(0.5) });
    // Queries from the session's own entries: a word, two words, a phrase of 2-3 words.
    const lines = text.split(/\r\n|\r|\n/);
    for (let q = 0; q < 8; q++) {
      const query = drawQuery(rng, lines);
      if (!query) continue;
      const parsed = parseQuery(query);
      const expected = [];
      let line = 0;
      let ids = true;
      for (const raw of lines) {
        line++;
        let e;
        try {
          e = JSON.parse(raw);
        } catch {
          continue;
        }
        if (!e || typeof e !== "object" || Array.isArray(e)) continue;
        if (e.type === "session") ids = typeof e.version === "number" && e.version >= 2;
        if (matchTokens(tokenize(entryText(e)), parsed))
          expected.push([line, ids && typeof e.id === "string" ? e.id : null]);
      }
      const got = searchText(text, parsed, 1e9).map((h) => [h.line, h.entryId]);
      assert.deepEqual(got, expected, `seed ${seed}, query ${query}`);
      checked++;
    }
  }
  assert.ok(checked > 100, `${checked} queries checked`);
});

test("the text of an entry: messages, tool calls, tool results, bash, summaries, names, labels", () => {
  const call = {
    type: "message",
    id: "a",
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "secret musing" },
        { type: "text", text: "running it" },
        { type: "toolCall", name: "bash", arguments: { command: "cargo test --release" } },
      ],
    },
  };
  const text = entryText(call);
  assert.match(text, /running it/);
  assert.match(text, /bash/);
  assert.match(text, /cargo test --release/);
  assert.doesNotMatch(text, /secret musing/);
  assert.match(
    entryText({
      type: "message",
      message: { role: "toolResult", toolName: "read", content: [{ type: "text", text: "file body" }] },
    }),
    /file body[\s\S]*read/,
  );
  assert.match(
    entryText({ type: "message", message: { role: "bashExecution", command: "ls -la", output: "total 0" } }),
    /ls -la[\s\S]*total 0/,
  );
  assert.equal(entryText({ type: "session_info", name: "My run" }), "My run");
  assert.equal(entryText({ type: "label", label: "checkpoint" }), "checkpoint");
  assert.equal(entryText({ type: "compaction", summary: "so far" }), "so far");
  assert.equal(entryText({ type: "model_change", provider: "x" }), "");
});

test("searchText finds entries with their ids and lines; a version 1 file's hits name no entry", () => {
  const v3 = [
    '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}',
    "not json",
    '{"type":"message","id":"e1","parentId":null,"message":{"role":"user","content":"find the needle here"}}',
    '{"type":"message","id":"e2","parentId":"e1","message":{"role":"assistant","content":[{"type":"text","text":"no"}]}}',
  ].join("\n");
  assert.deepEqual(
    searchText(v3, parseQuery("needle")).map((h) => [h.entryId, h.line, h.role]),
    [["e1", 3, "user"]],
  );
  const v1 =
    '{"type":"session","id":"s","timestamp":"t","cwd":"/"}\n{"type":"message","message":{"role":"user","content":"needle"}}\n';
  assert.deepEqual(
    searchText(v1, parseQuery("needle")).map((h) => [h.entryId, h.line]),
    [[null, 2]],
  );
});

test("the Bloom filter never misses a word it holds, and rarely claims others", () => {
  const seed = envSeed("SEARCH_TEXT_SEED");
  const rng = new Rng(seed);
  const word = () => rng.chars("abcdefghijklmnopqrstuvwxyz0123456789", rng.int(1, 12));
  const words = new Set(Array.from({ length: 3000 }, word));
  const bloom = Bloom.of(words);
  for (const w of words) assert.ok(bloom.has(w), w);
  let wrong = 0;
  let tried = 0;
  for (let i = 0; i < 5000; i++) {
    const w = `${word()}-x`; // a "-" never occurs in the set's words
    tried++;
    if (bloom.has(w)) wrong++;
  }
  // About 1 % at 10 bits a word and 4 hashes; 5 % would mean the filter is broken.
  assert.ok(wrong / tried < 0.05, `${wrong} of ${tried} claimed`);
  assert.equal(bloom.hasAll([...words].slice(0, 5)), true);
});
