// Seeded mutations of session bytes: the broken files that parse-vs-pi.test.mjs feeds to every
// function (the sessions themselves come from tests/shared/sessions.mjs).

const INSERTS = [
  "{",
  "}",
  '"',
  "\\",
  "\n",
  "\r",
  "\r\n",
  "\0",
  "\ufeff",
  ",",
  "[",
  "\\u",
  "\\ud800",
  "\\udc00",
  " ",
  "\n\n",
  "1e400",
  "-0",
  "\u2028",
  "\u00a0",
  "null",
  '"__proto__":{"polluted":1},',
];
const RAW = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xef, 0xbb, 0xbf], [0x80], [0x00]];

function splitLines(bytes) {
  const out = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      out.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return out;
}
function joinLines(lines) {
  const total = lines.reduce((n, l) => n + l.length, 0) + Math.max(0, lines.length - 1);
  const out = new Uint8Array(total);
  let at = 0;
  lines.forEach((l, i) => {
    if (i) out[at++] = 0x0a;
    out.set(l, at);
    at += l.length;
  });
  return out;
}
function splice(bytes, at, remove, insert) {
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at));
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

/** Applies 1 to `max` seeded mutations to `bytes`; returns `{ bytes, ops }` (ops describe what was done). */
export function mutate(bytes, rng, max = 4) {
  const ops = [];
  const n = rng.int(1, max + 1);
  for (let k = 0; k < n; k++) {
    const kind = rng.int(0, 7);
    if (kind === 0 && bytes.length) {
      const at = rng.int(0, bytes.length);
      const x = rng.int(1, 256);
      bytes = bytes.slice();
      bytes[at] ^= x;
      ops.push(`flip@${at}^${x}`);
    } else if (kind === 1 || kind === 2) {
      const lines = splitLines(bytes);
      const at = rng.int(0, lines.length);
      if (kind === 1) lines.splice(at, 1);
      else lines.splice(at, 0, lines[at]);
      bytes = joinLines(lines);
      ops.push(`${kind === 1 ? "delete" : "duplicate"}-line@${at}`);
    } else if (kind === 3 && bytes.length) {
      const at = rng.int(0, bytes.length);
      bytes = bytes.slice(0, at);
      ops.push(`truncate@${at}`);
    } else if (kind === 4) {
      const raw = rng.pick(RAW);
      const at = rng.int(0, bytes.length + 1);
      bytes = splice(bytes, at, 0, Uint8Array.from(raw));
      ops.push(`raw@${at}:${raw.map((b) => b.toString(16)).join(" ")}`);
    } else if (kind === 5) {
      const lines = splitLines(bytes);
      const a = rng.int(0, lines.length);
      const b = rng.int(0, lines.length);
      [lines[a], lines[b]] = [lines[b], lines[a]];
      bytes = joinLines(lines);
      ops.push(`swap-lines@${a},${b}`);
    } else {
      const ins = rng.pick(INSERTS);
      const at = rng.int(0, bytes.length + 1);
      bytes = splice(bytes, at, 0, Buffer.from(ins, "utf8"));
      ops.push(`insert@${at}:${JSON.stringify(ins)}`);
    }
  }
  return { bytes, ops };
}
