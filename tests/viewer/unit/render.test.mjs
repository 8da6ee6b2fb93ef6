// Unit tests of www/render.js's messages, in the small DOM of mini-dom.mjs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { messageLabel } from "../../../www/a11y.js";
import { installDocument } from "./mini-dom.mjs";

installDocument();
const { missingMessageText, renderMessage } = await import("../../../www/render.js");

test("a message entry without a message says so, not 'undefined'", () => {
  // `{"type":"message","id":…}` with no "message": the context (ours; pi 1.6.0 throws) holds
  // `undefined` in its place. It was drawn as a "value" whose JSON was the word undefined.
  for (const [msg, what] of [
    [undefined, "is missing"],
    [null, "is null"],
  ]) {
    const art = renderMessage(msg, { index: 1 });
    assert.equal(art.dataset.role, "missing");
    assert.doesNotMatch(art.textContent, /undefined/);
    assert.match(art.textContent, /^No message/);
    assert.match(art.textContent, new RegExp(`"message" ${what}`));
    assert.equal(missingMessageText(msg).includes(what), true);
    assert.ok(!art.descendants().some((e) => e.tagName === "PRE"), "no JSON block");
  }
});

test("a value that is not an object is still shown as its JSON", () => {
  const art = renderMessage(42, { index: 0 });
  assert.equal(art.dataset.role, "unknown");
  assert.match(art.textContent, /42/);
});

test("a missing message's accessible name says it is missing", () => {
  assert.equal(messageLabel(null, 1, 3, "b"), "Missing message, 2 of 3, from entry b");
});
