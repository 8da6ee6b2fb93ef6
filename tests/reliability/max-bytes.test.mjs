// options.maxBytes: an input longer than maxBytes (in UTF-8 bytes) throws a RangeError naming
// the size and the limit, before any work; inputs too large for wasm's 4 GB address space fail
// the same way by default.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as st from "session-tree";

const LINE = '{"type":"session","version":3,"id":"s"}\n';
const N = Buffer.byteLength(LINE);

/** Every function that takes a source, called with `options`. */
const calls = {
  parseSession: (source, options) => st.parseSession(source, options),
  migrate: (source, options) => st.migrate(source, options),
  getTree: (source, options) => st.getTree(source, options),
  buildSessionContext: (source, options) => st.buildSessionContext(source, undefined, options),
  inspectSession: (source, options) => st.inspectSession(source, options),
  "Session.open": (source, options) => st.Session.open(source, options).free(),
  sessionInfo: (source, options) => st.sessionInfo(source, options),
};

function isSizeError(name, size, limit) {
  return (e) => {
    assert.ok(e instanceof RangeError, `${name}: ${e?.constructor?.name}: ${e?.message}`);
    assert.ok(e.message.includes(String(size)), `${name}: the size ${size} is not named in "${e.message}"`);
    assert.ok(e.message.includes(String(limit)), `${name}: the limit ${limit} is not named in "${e.message}"`);
    return true;
  };
}

test("the package declares maxBytes", () => {
  // Types ship the option; the functions accept it (an unknown key would be ignored, so try a small limit).
  assert.throws(() => st.parseSession(LINE, { maxBytes: 1 }), RangeError, "parseSession ignores options.maxBytes");
});

test("at the limit works; one byte over throws a RangeError naming size and limit", () => {
  for (const [name, call] of Object.entries(calls)) {
    for (const source of [LINE, Buffer.from(LINE)]) {
      call(source, { maxBytes: N });
      call(source, { maxBytes: N + 1000 });
      assert.throws(() => call(source, { maxBytes: N - 1 }), isSizeError(name, N, N - 1));
    }
    assert.throws(() => call("x", { maxBytes: 0 }), isSizeError(name, 1, 0));
    call("", { maxBytes: 0 });
  }
});

test("strings are measured in UTF-8 bytes, not UTF-16 units", () => {
  // 2-byte, 3-byte and 4-byte characters (and a lone surrogate, which becomes 3 bytes of U+FFFD
  // or a 6-byte escape: either way more than its single UTF-16 unit).
  for (const [ch, bytes] of [
    ["é", 2],
    ["日", 3],
    ["😀", 4],
  ]) {
    const text = `${LINE}{"x":"${ch.repeat(100)}"}\n`;
    const size = Buffer.byteLength(text);
    assert.equal(size, N + 9 + 100 * bytes);
    for (const [name, call] of Object.entries(calls)) {
      call(text, { maxBytes: size });
      assert.throws(() => call(text, { maxBytes: size - 1 }), isSizeError(name, size, size - 1));
      // Below the UTF-16 length as well as between it and the UTF-8 size.
      assert.throws(() => call(text, { maxBytes: text.length - 1 }), RangeError);
    }
  }
});

test("the limit applies before any work: strict parsing, bad leaf ids, malformed text", () => {
  assert.throws(() => st.parseSession("{oops", { strict: true, maxBytes: 2 }), RangeError);
  assert.throws(() => st.migrate('{"type":"session"}\n{"type":"message"}', { maxBytes: 5 }), RangeError);
  // A Uint8Array view: its own length counts, not its buffer's.
  const big = Buffer.from("x".repeat(1000) + LINE);
  const view = big.subarray(1000);
  assert.equal(st.parseSession(view, { maxBytes: N }).length, 1);
});

test("entry arrays are not limited (they are already in memory)", () => {
  const entries = st.parseSession(
    `${LINE}{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`,
  );
  assert.equal(st.getTree(entries, { maxBytes: 1 }).length, 1);
  assert.equal(st.buildSessionContext(entries, undefined, { maxBytes: 1 }).messages.length, 1);
  assert.equal(st.parseSession(entries, { maxBytes: 1 }).length, 2);
});

test("invalid maxBytes values are TypeErrors or RangeErrors, never ignored silently", () => {
  for (const bad of [-1, NaN, "10", {}, 10n]) {
    for (const [name, call] of Object.entries(calls)) {
      assert.throws(
        () => call(LINE, { maxBytes: bad }),
        (e) => e instanceof TypeError || e instanceof RangeError,
        `${name} accepted maxBytes ${String(bad)}`,
      );
    }
  }
  // Infinity, huge values, null and undefined mean "the default cap".
  for (const [, call] of Object.entries(calls)) {
    for (const maxBytes of [Infinity, 2 ** 60, null, undefined]) call(LINE, { maxBytes });
  }
});

test("by default, an input too large for wasm memory fails with a RangeError up front", { timeout: 60_000 }, () => {
  // 1 GiB + 1 zero bytes: allocated lazily by the OS, refused before any copy into wasm.
  let huge;
  try {
    huge = new Uint8Array(1024 ** 3 + 1);
  } catch {
    return; // the machine cannot even allocate it
  }
  for (const [name, call] of Object.entries(calls)) {
    assert.throws(
      () => call(huge, undefined),
      (e) => {
        assert.ok(e instanceof RangeError, `${name}: ${e?.constructor?.name}: ${e?.message}`);
        assert.ok(e.message.includes(String(1024 ** 3 + 1)), `${name}: size not named: ${e.message}`);
        return true;
      },
    );
  }
  huge = undefined;
  // And the module still works.
  assert.equal(st.parseSession(LINE).length, 1);
});
