// www/large.js, the viewer's reading of a file too big to hold, in Node with the package's own
// getTree over a byte source: the rows it describes from the entries' previews (read in the
// index's pass, in tiny pieces) are what analysis.js describes of the whole parsed file, so the
// fast path cannot drift from the slow one; the ranges are each entry's bytes; the context,
// system prompt, path usage, branches and branch files from the header and the paths' lines
// equal those of the whole file, at every leaf of generated pi 1.6 sessions and on broken ones
// (duplicate ids, cycles).
//
//   LARGE_SEED=…   replays a run (default: random, printed)

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  buildSessionProjection,
  currentSystemMessage,
  getTree,
  migrate,
  parseSession,
  Session,
  sessionUsage,
} from "session-tree";
import { computeStats, describeNodes, flattenTree } from "../../../www/analysis.js";
import {
  branchNodes,
  contextNodes,
  describeSourceTree,
  headEndOf,
  lastInFile,
  nodesById,
  pathJsonl,
  pathTo,
  prefixSource,
  readGroups,
} from "../../../www/large.js";
import { FILTERS, passesFilter, ROW_FIELDS, searchText } from "../../../www/model.js";
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

/**
 * What the worker does (worker.js's indexBySource): getTree by piece, keeping each entry's
 * preview and range, then the rows described from the previews, with no read of the source.
 */
function readByPiece(bytes, pieceSize) {
  const source = memorySource(bytes);
  const roots = getTree(source, { preview: ROW_FIELDS, pieceSize });
  const reads = source.reads;
  const described = describeSourceTree(roots);
  assert.equal(source.reads, reads, "describing the rows reads nothing");
  return { roots, described };
}

/**
 * Whether `text`'s first header declares version 3 or later. Only such a file is indexed by
 * range; an older one, or one with no header at all, is read whole and migrated, so its nodes
 * have no range and the worker parses it whole instead (`describeSourceTree` gives `null`).
 */
function declaresCurrent(text) {
  for (const line of text.split("\n")) {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry?.type === "session") return (typeof entry.version === "number" ? entry.version : 1) >= 3;
  }
  return false;
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

/**
 * `text` with entries whose texts are longer than a preview keeps (whitespace runs, non-ASCII,
 * surrogate pairs) in every field a row cuts: their rows must still be the whole file's.
 */
function withLongTexts(text, rng) {
  const lines = text.trimEnd().split("\n");
  const idOf = (line) => {
    try {
      return JSON.parse(line)?.id;
    } catch {
      return undefined;
    }
  };
  const top = lines.map(idOf).findLast((id) => typeof id === "string") ?? null;
  const long = (n) =>
    Array.from({ length: n }, () => rng.pick(["wörd🙂", "  \n\t ", "x", "\u3000", '"q"', "\\"])).join("");
  let parent = top;
  let k = 0;
  const add = (entry) => {
    const id = `long${k++}`;
    lines.push(
      JSON.stringify({
        ...entry,
        id,
        parentId: parent,
        timestamp: `2026-01-01T00:00:${String(k).padStart(2, "0")}.000Z`,
      }),
    );
    parent = id;
  };
  const message = (m) => add({ type: "message", message: m });
  message({ role: "user", content: `${"  \n".repeat(300)}${long(400)}` });
  message({
    role: "assistant",
    content: [
      { type: "thinking", thinking: long(500) },
      { type: "text", text: " ".repeat(900) },
      { type: "toolCall", id: "c1", name: "bash", arguments: { command: long(300) } },
      { type: "toolCall", id: "c2", name: "mcp_tool", arguments: { data: long(300), n: 1.5e3 } },
    ],
    stopReason: "toolUse",
  });
  message({ role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: long(2000) }] });
  message({ role: "toolResult", toolCallId: "c2", toolName: "mcp_tool", content: long(600), isError: true });
  message({
    role: "assistant",
    content: [
      { type: "text", text: long(200) },
      { type: "text", text: long(300) },
    ],
  });
  message({ role: "bashExecution", command: long(200), output: long(900), exitCode: 2 });
  message({ role: "assistant", content: [], stopReason: "error", errorMessage: long(300) });
  message({
    role: "system",
    content: long(300),
    sections: { tools: long(900), rules: "x" },
    toolsAdded: [{ name: "t1", parameters: { type: "object", properties: { a: { type: "string" } } } }, "odd"],
    toolsRemoved: [{ name: "t2" }],
  });
  message({
    role: "user",
    content: [
      { type: "text", text: long(100) },
      { type: "image", data: "A".repeat(5000), mimeType: "image/png" },
      { type: "text", text: long(300) },
    ],
  });
  message({ role: "custom", customType: "note", content: long(400), display: true });
  add({ type: "branch_summary", summary: long(300), fromId: top });
  add({ type: "custom_message", customType: "note", content: [{ type: "text", text: long(300) }], display: true });
  add({ type: "compaction", summary: long(1000), firstKeptEntryId: top, tokensBefore: 12_345 });
  // A title is shown whole in the stats: long, but under what a preview keeps.
  add({ type: "session_info", name: long(60) });
  add({ type: "context_edit", targetId: top, replacement: null });
  add({ type: "context_edit", targetId: top, replacement: { role: "user", content: long(600) } });
  add({ type: "label", targetId: top, label: "long texts" });
  return `${lines.join("\n")}\n`;
}

test("read by piece, the rows are those of the whole parsed file, and each range is its entry", () => {
  for (let k = 0; k < COUNT; k++) {
    const seed = caseSeed(MASTER, k);
    const rng = new Rng(seed);
    const text = migrate(generateSession(seed, { maxEntries: 80, pi16: k % 2 === 0 }).text);
    for (const variant of [...variants(text, rng), withLongTexts(text, rng)]) {
      const where = `case seed ${seed} (LARGE_SEED=${MASTER})`;
      const bytes = enc.encode(variant);
      const whole = flattenTree(getTree(bytes));
      const expected = describeNodes(whole.nodes);
      const { roots, described: got } = readByPiece(bytes, rng.int(1, 200));
      if (!declaresCurrent(variant) && whole.nodes.length > 0) {
        // Entries but no v3 header (a generated broken file may have none): the same tree,
        // read whole.
        assert.equal(got, null, `no ranges without a v3 header, ${where}`);
        assert.deepEqual(flattenTree(roots).nodes, whole.nodes, where);
        continue;
      }
      assert.ok(got, `a v3 file's nodes all have ranges, ${where}`);
      assert.deepEqual(Array.from(got.parent), Array.from(whole.parent), where);
      assert.deepEqual(got.labels, whole.labels, where);
      assert.equal(got.entries.length, whole.nodes.length, where);
      for (const key of ["kinds", "summaries", "toolOnly", "times", "refs"]) {
        assert.deepEqual(Array.from(got.columns[key]), Array.from(expected[key]), `${key}, ${where}`);
      }
      assert.deepEqual(computeStats(got.entries, {}, null), computeStats(whole.nodes, {}, null), where);
      for (let i = 0; i < whole.nodes.length; i++) {
        const entry = whole.nodes[i];
        const line = bytes.slice(got.starts[i], got.starts[i] + got.lengths[i]);
        assert.deepEqual(JSON.parse(dec.decode(line)), entry, `the range of node ${i}, ${where}`);
        for (const { key } of FILTERS) {
          assert.equal(
            passesFilter(key, got.entries[i], whole.labels[i]),
            passesFilter(key, entry, whole.labels[i]),
            `filter ${key} on a preview, ${where}`,
          );
        }
        // An entry with no long string is searched whole; a long one by its start.
        const search = searchText(got.entries[i], whole.labels[i]);
        if (line.length < 512) assert.equal(search, searchText(entry, whole.labels[i]), `search, ${where}`);
        assert.ok(line.length < 2000 || search.length < line.length, `a long entry's preview is cut, ${where}`);
      }
    }
  }
});

/** A session's branch file at `id`, its new ids (header, labels) and the header's time made equal. */
function branchFile(session, id) {
  const entries = parseSession(session.createBranchedSession(id));
  const fresh = new Set(entries.filter((e) => e.type === "session" || e.type === "label").map((e) => e.id));
  const same = (v) => (fresh.has(v) ? "new" : v);
  return entries.map((e) => ({
    ...e,
    id: same(e.id),
    parentId: same(e.parentId),
    ...(e.type === "session" ? { timestamp: "now" } : {}),
  }));
}

test("the header and a path's lines give, at its leaf, the whole file's context, prompt, usage and branch", () => {
  let compared = 0;
  for (let k = 0; k < COUNT; k++) {
    const seed = caseSeed(MASTER, 100 + k);
    const rng = new Rng(seed);
    const text = migrate(generateSession(seed, { maxEntries: 80, pi16: k % 2 === 0 }).text);
    for (const variant of variants(text, rng)) {
      const where = `case seed ${seed} (LARGE_SEED=${MASTER})`;
      const bytes = enc.encode(variant);
      const { described: got } = readByPiece(bytes, 64);
      // A file with entries but no v3 header has no ranges (the test above checks when).
      if (got === null) continue;
      const doc = { starts: got.starts, lengths: got.lengths, headEnd: headEndOf(got.starts) };
      const read = (o, l) => bytes.slice(o, o + l);
      const whole = Session.open(bytes);
      const byId = nodesById(got.entries);
      const broken = variant !== text;
      // Every leaf, and a few inner entries.
      const ids = got.entries.map((e) => e.id);
      const picked = ids.filter((_, i) => !got.parent.includes(i) || rng.next() < 0.1);
      for (const id of picked) {
        const node = ids.lastIndexOf(id);
        const small = pathJsonl(read, doc, contextNodes(got.entries, byId, id));
        if (!broken)
          assert.deepEqual(
            contextNodes(got.entries, byId, id).sort((a, b) => a - b),
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
        // The branch and the branch file from the paths' lines and their labels.
        const branch = Session.open(pathJsonl(read, doc, branchNodes(got.entries, byId, [id])));
        assert.deepEqual(branch.getBranch(id), whole.getBranch(id), at);
        assert.deepEqual(branchFile(branch, id), branchFile(whole, id), at);
        branch.free();
        compared++;
      }
      whole.free();
    }
  }
  assert.ok(compared > COUNT * 5, `${compared} leaves compared`);
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

test("entries close together are read at once, each entry's bytes in place", () => {
  const starts = Float64Array.from([0, 10, 30, 200, 205, 1000]);
  const lengths = Uint32Array.from([10, 15, 5, 5, 600, 10]);
  const order = [0, 1, 2, 3, 4, 5];
  assert.deepEqual(readGroups(order, starts, lengths, 10, 1 << 20), [
    [0, 35, [0, 1, 2]],
    [200, 805, [3, 4]],
    [1000, 1010, [5]],
  ]);
  // A group stops at its most bytes; a gap of 0 joins only neighbours.
  assert.deepEqual(
    readGroups(order, starts, lengths, 1000, 400).map((g) => g[2]),
    [[0, 1, 2, 3], [4], [5]],
  );
  assert.deepEqual(
    readGroups([0, 1], starts, lengths, 0).map((g) => g[2]),
    [[0, 1]],
  );
  // pathJsonl reads a group once and cuts each entry from it.
  const bytes = enc.encode("HEAD\naaaaaaaaaa|bbbbbbbbbbbbbbb|ccccc");
  const source = memorySource(bytes);
  const doc = { starts: Float64Array.from([5, 16, 32]), lengths: Uint32Array.from([10, 15, 5]), headEnd: 5 };
  const lines = pathJsonl((o, l) => source.read(o, l), doc, [2, 0]);
  assert.equal(dec.decode(lines), "HEAD\n\naaaaaaaaaa\nccccc\n");
  assert.equal(source.reads, 2, "the header, then both entries in one read");
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
