// The UTF-8 check on byte input (16 bytes a step in the wasm build) against
// the platform's own: random mixes of valid characters of every length and
// the invalid sequences UTF-8 forbids, at every offset around the 16-byte
// steps. A wrong "valid" would hand invalid bytes on as text; a wrong
// "invalid" would report `invalid-utf8` on a good file.

import assert from "node:assert/strict";
import { test } from "node:test";
import { inspectSession } from "session-tree";
import { caseSeed, envSeed, Rng } from "../shared/rng.mjs";

const strict = new TextDecoder("utf-8", { fatal: true });
function valid(bytes) {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const GOOD = [
  "a",
  "\n",
  "é",
  "ß",
  "߿",
  "ࠀ",
  "€",
  "漢",
  "\ud7ff",
  "\ue000",
  "\uffff",
  "😀",
  "\u{10000}",
  "\u{10ffff}",
].map((s) => [...Buffer.from(s)]);
const BAD = [
  [0x80], // a lone continuation
  [0xbf],
  [0xc0, 0x80], // overlong
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xe0, 0x9f, 0xbf],
  [0xf0, 0x8f, 0xbf, 0xbf],
  [0xed, 0xa0, 0x80], // surrogates
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
  [0xf5, 0x80, 0x80, 0x80],
  [0xff],
  [0xfe],
  [0xc3], // cut off
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xc3, 0xa9, 0xa9], // one continuation too many
];

function sample(rng) {
  const out = [];
  const n = rng.int(0, 80);
  for (let k = 0; k < n; k++) {
    if (rng.chance(0.3)) for (let a = rng.int(0, 40); a > 0; a--) out.push(0x61);
    else out.push(...rng.pick(GOOD));
  }
  if (rng.chance(0.6)) {
    const bad = rng.pick(BAD);
    out.splice(rng.int(0, out.length + 1), 0, ...bad);
  }
  if (rng.chance(0.3)) for (let a = rng.int(0, 20); a > 0; a--) out.push(0x62);
  return Uint8Array.from(out);
}

test("the UTF-8 check agrees with TextDecoder on random bytes", () => {
  const seed = envSeed("UTF8_SEED");
  let invalid = 0;
  for (let i = 0; i < 3000; i++) {
    const rng = new Rng(caseSeed(seed, i));
    const bytes = sample(rng);
    const want = valid(bytes);
    const got = !inspectSession(bytes).some((d) => d.kind === "invalid-utf8");
    assert.equal(got, want, `case ${i} (UTF8_SEED=${seed}): ${Buffer.from(bytes).toString("hex")}`);
    if (!want) invalid++;
  }
  assert.ok(invalid > 500, `only ${invalid} invalid cases`);
});

test("every forbidden sequence at every offset of a 16- and a 64-byte step", () => {
  for (const bad of BAD) {
    for (let pad = 0; pad < 140; pad++) {
      for (const fill of [0x61, 0xa9]) {
        // ASCII before, or a run of é (c3 a9) cut to keep the sequence whole.
        const before = fill === 0x61 ? Array(pad).fill(0x61) : [...Buffer.from("é".repeat(pad >> 1))];
        const bytes = Uint8Array.from([...before, ...bad, ...Array(pad % 7).fill(0x62)]);
        const got = !inspectSession(bytes).some((d) => d.kind === "invalid-utf8");
        assert.equal(got, valid(bytes), Buffer.from(bytes).toString("hex"));
      }
    }
  }
});

test("a character cut off before a run of 64 ASCII bytes or more", () => {
  // The check takes 64 ASCII bytes at once: a character left open before
  // them must still be an error, and a whole one must not.
  for (const cut of [[0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98]]) {
    for (let pad = 0; pad < 80; pad++) {
      for (const run of [63, 64, 65, 128, 130]) {
        const before = Array(pad).fill(0x61);
        const after = Array(run).fill(0x62);
        const broken = Uint8Array.from([...before, ...cut, ...after]);
        const whole = Uint8Array.from([...before, ...Buffer.from("€"), ...after]);
        for (const bytes of [broken, whole]) {
          const got = !inspectSession(bytes).some((d) => d.kind === "invalid-utf8");
          assert.equal(got, valid(bytes), Buffer.from(bytes).toString("hex"));
        }
      }
    }
  }
});
