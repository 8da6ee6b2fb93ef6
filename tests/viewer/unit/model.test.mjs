// www/model.js on pi 1.6 entries: pi's /tree filters, row texts and search
// texts for system messages, context edits and usage entries (PI-CURRENT §8,
// written out by hand here), and the theme toggle's cycle.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  FILTERS,
  KIND,
  kindOf,
  nextTheme,
  passesFilter,
  searchText,
  storedTheme,
  summarize,
} from "../../../www/model.js";

const system = {
  type: "message",
  id: "s",
  message: {
    role: "system",
    content: "You are helpful.",
    sections: { cwd: "/w" },
    toolsAdded: [{ name: "read" }],
    toolsRemoved: [{ name: "bash" }],
    timestamp: 1,
  },
};
const omit = { type: "context_edit", id: "e1", targetId: "u1", replacement: null };
const replace = { type: "context_edit", id: "e2", targetId: "t1", replacement: { content: "short" } };
const usage = { type: "usage", id: "g", kind: "cache_warm", provider: "p", model: "m", usage: {} };
const modes = FILTERS.map((f) => f.key);

test("usage entries pass no filter, not even all", () => {
  for (const mode of modes) assert.equal(passesFilter(mode, usage, undefined), false, mode);
  assert.equal(passesFilter("labeled-only", usage, "a label"), false);
  assert.equal(searchText(usage, undefined), "");
  assert.equal(kindOf(usage), KIND.usage);
});

test("context edits are bookkeeping: shown in all, and in labeled-only when labelled", () => {
  const shown = (entry, label) => modes.filter((m) => passesFilter(m, entry, label));
  assert.deepEqual(shown(omit, undefined), ["all"]);
  assert.deepEqual(shown(replace, "x"), ["labeled-only", "all"]);
  assert.equal(summarize(omit), "[context omit: u1]");
  assert.equal(summarize(replace), "[context replace: t1]");
  assert.equal(searchText(omit, undefined), "context edit omit u1");
  assert.equal(searchText(replace, "Keep"), "keep context edit replace t1");
  assert.equal(kindOf(omit), KIND.contextEdit);
});

test("system messages are message rows: shown but in user-only, read as [system]", () => {
  assert.deepEqual(
    modes.filter((m) => passesFilter(m, system, undefined)),
    ["default", "no-tools", "all"],
  );
  assert.equal(kindOf(system), KIND.system);
  assert.equal(summarize(system), "[system] You are helpful. · sections: cwd · tools: +read −bash");
  assert.equal(summarize({ type: "message", id: "z", message: { role: "system", content: "" } }), "[system]");
  // Search: the role and the first 200 characters of the text.
  const long = { type: "message", id: "l", message: { role: "system", content: `${"a".repeat(200)}TAIL` } };
  assert.equal(searchText(long, undefined), `system ${"a".repeat(200)}`);
});

test("the theme toggle cycles auto, light, dark, and reads back only known choices", () => {
  assert.equal(nextTheme("auto"), "light");
  assert.equal(nextTheme("light"), "dark");
  assert.equal(nextTheme("dark"), "auto");
  assert.equal(nextTheme(undefined), "light");
  assert.equal(storedTheme("dark"), "dark");
  assert.equal(storedTheme(null), "auto");
  assert.equal(storedTheme("purple"), "auto");
});
