// www/large.js, the viewer's reading of a file too big to hold, in Node with the package's own
// getTree over a byte source: what it describes of each entry is what analysis.js describes
// of the whole parsed file; the ranges it notes are each entry's bytes; the context, system
// prompt and path usage from the header and the path's lines equal those of the whole file,
// at every leaf of generated pi 1.6 sessions and on broken ones (duplicate ids, cycles).
//
//   LARGE_SEED=…   replays a run (default: random, printed)

import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSessionProjection, currentSystemMessage, getTree, migrate, Session, sessionUsage } from "session-tree";
import { computeStats, describeNodes, flattenNodes, flattenTree, statsCounter } from "../../../www/analysis.js";
import {
  contextNodes,
  describeLazyNodes,
  entryStub,
  headEndOf,
  lastInFile,
  nodesById,
  pathJsonl,
  pathTo,
  prefixSource,
  watchedSource,
  windowedSource,
} from "../../../www/large.js";
import { FILTERS, passesFilter } from "../../../www/model.js";
import { caseSeed, envSeed, Rng } from "../../shared/rng.mjs";
import { generateSession } from "../../shared/sessions.mjs";

const MASTER = envSeed("LARGE_SEED");
const COUNT = 12;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** A byte source over bytes in memory, counting its reads. */
function memorySource(bytes) {
  const source = {
    name: "memory",
    size: bytes.length,
    reads: 0,
    read(offset, length) {
      source.reads++;
      assert.ok(offset >= 0 && offset + length <= bytes.length, `read(${offset}, ${length}) inside the bytes`);
      return bytes.slice(offset, offset + length);
    },
  };
  return source;
}

/** What the worker does (worker.js's indexBySource): getTree by piece, then each entry read once. */
function readByPiece(bytes, pieceSize) {
  const source = memorySource(bytes);
  let last = null;
  let describing = false;
  const windowed = windowedSource(source, 4096);
  const reader = watchedSource(source, () => {});
  reader.read = (offset, length) => {
    if (!describing) return source.read(offset, length);
    last = [offset, length];
    return windowed.read(offset, length);
  };
  const { nodes, parent, labels } = flattenNodes(getTree(reader, { pieceSize }));
  describing = true;
  const seen = [];
  const counter = statsCounter();
  const described = describeLazyNodes(nodes, {
    beforeRead: () => {
      last = null;
    },
    rangeOf: () => last,
    onEntry: (e) => {
      seen.push(e);
      counter.add(e);
    },
    onProgress: () => {},
  });
  assert.ok(
    nodes.every((n) => n === null),
    "each node is let go once read",
  );
  return { ...described, parent, labels, seen, counter };
}

/** Broken variants: a duplicate id (last in the file) and a cycle. */
function variants(text, rng) {
  const out = [text];
  const lines = text.split("\n");
  const entries = lines.map((l, i) => [l, i]).filter(([l]) => l.includes('"parentId":"'));
  if (entries.length > 2) {
    out.push([...lines, rng.pick(entries)[0]].join("\n"));
    const [a, i] = entries[1];
    const later = /"id":"([^"]*)"/.exec(entries[entries.length - 1][0])?.[1];
    const cyclic = [...lines];
    cyclic[i] = a.replace(/"parentId":"[^"]*"/, `"parentId":"${later}"`);
    out.push(cyclic.join("\n"));
  }
  return out;
}

test("read by piece, the rows are those of the whole parsed file, and each range is its entry", () => {
  for (let k = 0; k < COUNT; k++) {
    const seed = caseSeed(MASTER, k);
    const rng = new Rng(seed);
    const text = migrate(generateSession(seed, { maxEntries: 80, pi16: k % 2 === 0 }).text);
    for (const variant of variants(text, rng)) {
      const where = `case seed ${seed} (LARGE_SEED=${MASTER})`;
      const bytes = enc.encode(variant);
      const whole = flattenTree(getTree(bytes));
      const expected = describeNodes(whole.nodes);
      const got = readByPiece(bytes, rng.int(1, 200));
      assert.deepEqual(Array.from(got.parent), Array.from(whole.parent), where);
      assert.deepEqual(got.labels, whole.labels, where);
      assert.deepEqual(got.seen, whole.nodes, where);
      for (const key of ["kinds", "summaries", "toolOnly", "times", "refs"]) {
        assert.deepEqual(Array.from(got.columns[key]), Array.from(expected[key]), `${key}, ${where}`);
      }
      for (let i = 0; i < whole.nodes.length; i++) {
        const line = bytes.slice(got.starts[i], got.starts[i] + got.lengths[i]);
        assert.deepEqual(JSON.parse(dec.decode(line)), whole.nodes[i], `the range of node ${i}, ${where}`);
        for (const { key } of FILTERS) {
          assert.equal(
            passesFilter(key, got.seen[i] && entryStub(got.seen[i]), whole.labels[i]),
            passesFilter(key, whole.nodes[i], whole.labels[i]),
            `filter ${key} on a stub, ${where}`,
          );
        }
      }
      assert.deepEqual(got.counter.stats({}, null), computeStats(whole.nodes, {}, null), where);
    }
  }
});

test("the header and a path's lines give, at its leaf, the whole file's context, prompt and path usage", () => {
  let compared = 0;
  for (let k = 0; k < COUNT; k++) {
    const seed = caseSeed(MASTER, 100 + k);
    const rng = new Rng(seed);
    const text = migrate(generateSession(seed, { maxEntries: 80, pi16: k % 2 === 0 }).text);
    for (const variant of variants(text, rng)) {
      const where = `case seed ${seed} (LARGE_SEED=${MASTER})`;
      const bytes = enc.encode(variant);
      const got = readByPiece(bytes, 64);
      const doc = { starts: got.starts, lengths: got.lengths, headEnd: headEndOf(got.starts) };
      const read = (o, l) => bytes.slice(o, o + l);
      const whole = Session.open(bytes);
      const byId = nodesById(got.stubs);
      const broken = variant !== text;
      // Every leaf, and a few inner entries.
      const ids = got.seen.map((e) => e.id);
      const picked = ids.filter((_, i) => !got.parent.includes(i) || rng.next() < 0.1);
      for (const id of picked) {
        const node = ids.lastIndexOf(id);
        const small = pathJsonl(read, doc, contextNodes(got.stubs, byId, id));
        if (!broken)
          assert.deepEqual(
            contextNodes(got.stubs, byId, id).sort((a, b) => a - b),
            Array.from(pathTo(got.parent, node)).sort((a, b) => a - b),
            `the path, ${where}`,
          );
        const at = `leaf ${id}, ${where}`;
        assert.deepEqual(buildSessionProjection(small, id), buildSessionProjection(bytes, id), at);
        assert.deepEqual(currentSystemMessage(small, id), currentSystemMessage(bytes, id), at);
        const path = Session.open(small);
        assert.deepEqual(path.usage(id, { records: false }).path, whole.usage(id, { records: false }).path, at);
        assert.deepEqual(
          sessionUsage(small, { leafId: id, records: false }).path,
          sessionUsage(bytes, { leafId: id, records: false }).path,
          at,
        );
        path.free();
        compared++;
      }
      whole.free();
    }
  }
  assert.ok(compared > COUNT * 5, `${compared} leaves compared`);
});

test("windowedSource answers each read with the source's bytes, in far fewer reads when in order", () => {
  const rng = new Rng(caseSeed(MASTER, 7));
  const bytes = Uint8Array.from({ length: 10_000 }, () => rng.int(0, 255));
  const direct = memorySource(bytes);
  const windowed = windowedSource(direct, 1000);
  for (let at = 0; at < bytes.length; ) {
    const length = Math.min(rng.int(0, 300), bytes.length - at);
    assert.deepEqual(windowed.read(at, length), bytes.slice(at, at + length));
    at += length + rng.int(0, 20);
  }
  assert.ok(direct.reads <= 12, `${direct.reads} reads of 1000 bytes`);
  for (let n = 0; n < 200; n++) {
    const at = rng.int(0, bytes.length);
    const length = rng.int(0, Math.min(3000, bytes.length - at));
    assert.deepEqual(windowed.read(at, length), bytes.slice(at, at + length), `read(${at}, ${length})`);
  }
  // What it gives is a copy: writing to it changes nothing read later.
  windowed.read(0, 10).fill(7);
  assert.deepEqual(windowed.read(0, 10), bytes.slice(0, 10));
});

test("prefixSource ends at the last line end within its size; the whole source when it is small", () => {
  const bytes = enc.encode('{"a":1}\n{"b":2}\n{"c":');
  const source = memorySource(bytes);
  const head = prefixSource(source, 20);
  assert.equal(head.size, 16);
  assert.equal(dec.decode(head.read(0, head.size)), '{"a":1}\n{"b":2}\n');
  assert.equal(prefixSource(source, 100), source);
  assert.equal(prefixSource(source, 5), null, "no line ends in the first 5 bytes");
});

test("pathTo, headEndOf and lastInFile", () => {
  const parent = Int32Array.from([-1, 0, 1, 1, -1, 4]);
  assert.deepEqual(Array.from(pathTo(parent, 3)), [0, 1, 3]);
  assert.deepEqual(Array.from(pathTo(parent, 5)), [4, 5]);
  assert.deepEqual(Array.from(pathTo(parent, 0)), [0]);
  const starts = Float64Array.from([80, 120, 200, 160, 40]);
  assert.equal(headEndOf(starts), 40);
  assert.equal(headEndOf(new Float64Array(0)), 0);
  assert.equal(lastInFile(starts), 2);
  assert.equal(lastInFile(new Float64Array(0)), -1);
});
