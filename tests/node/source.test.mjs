// Byte sources ({ size, read(offset, length) }) and fileSource: every function that reads a
// source by piece gives, with pieces of a few bytes (boundaries mid-line, mid-character,
// mid-string), what it gives on the same bytes; a file that changes while read is an error
// naming it; nothing is written. (conformance/ compares the source form with pi too.)
//
//   SOURCE_SEED=…   replays a run (default: random, printed)

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  buildContextEntries,
  buildSessionContext,
  buildSessionProjection,
  countEntries,
  currentSystemMessage,
  fileSource,
  getTree,
  migrate,
  previewEntries,
  Session,
  sessionInfo,
} from "session-tree";
import { caseSeed, envSeed, Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";
import { memorySource } from "./helpers/session.mjs";

const MASTER = envSeed("SOURCE_SEED");
const COUNT = 20;
const enc = new TextEncoder();

/** Everything the functions say of a session (trees as JSON, every entry read). */
function results(input, options) {
  const leaves = [[undefined], [null], ["no such id"]];
  const ids = [];
  const walk = (nodes) => {
    for (const n of nodes) {
      if (typeof n.entry?.id === "string") ids.push(n.entry.id);
      walk(n.children);
    }
  };
  const tree = getTree(input, options);
  walk(tree);
  for (const id of ids.slice(-2)) leaves.push([id]);
  const out = {
    tree: JSON.stringify(tree),
    count: countEntries(input, options),
    info: JSON.stringify(sessionInfo(input, options)),
  };
  for (const [k, [leaf]] of leaves.entries()) {
    // Every leaf for the context; the other three at two of them (they share its reading).
    const fns = [buildSessionContext];
    if (k === 0 || k === leaves.length - 1) fns.push(buildContextEntries, buildSessionProjection, currentSystemMessage);
    for (const fn of fns) {
      let value;
      try {
        value = JSON.stringify(fn(input, leaf, options));
      } catch (error) {
        value = `throws ${error.message}`;
      }
      out[`${fn.name} ${leaf}`] = value;
    }
  }
  return out;
}

/** Broken variants of a session: duplicate ids, a cycle, torn and invalid lines. */
function broken(text, rng) {
  const lines = text.split("\n");
  const out = [];
  const entries = lines.map((l, i) => [l, i]).filter(([l]) => l.includes('"parentId":"'));
  if (entries.length > 2) {
    const [line] = rng.pick(entries);
    out.push([...lines, line].join("\n")); // a duplicate id, last in the file
    const [a, i] = entries[1];
    const later = /"id":"([^"]*)"/.exec(entries[entries.length - 1][0])?.[1];
    const cyclic = [...lines];
    cyclic[i] = a.replace(/"parentId":"[^"]*"/, `"parentId":"${later}"`); // a cycle
    out.push(cyclic.join("\n"));
  }
  const cut = rng.int(0, text.length - 1);
  out.push(`${text.slice(0, cut)}\n{oops\n\n${text.slice(cut)}`); // a line cut in two, garbage
  out.push(text.replace(/\n$/, "").replaceAll("\n", "\r\n")); // CRLF, no last newline
  out.push(text.slice(0, text.length - rng.int(1, 40))); // a torn last line
  return out;
}

test("sources read in tiny pieces give what the bytes give", () => {
  let compared = 0;
  for (let k = 0; k < COUNT; k++) {
    const seed = caseSeed(MASTER, k);
    const rng = new Rng(seed);
    const { text } = generateSession(seed, { maxEntries: 60, pi16: k % 2 === 0 });
    // Old sessions get fresh ids each time they are read: compare their migrated text.
    const current = migrate(text);
    for (const variant of [current, ...broken(current, rng)]) {
      const bytes = enc.encode(variant);
      const invalid = new Uint8Array([
        ...bytes.slice(0, bytes.length >> 1),
        0xff,
        0xe2,
        0x82,
        ...bytes.slice(bytes.length >> 1),
      ]);
      for (const b of [bytes, invalid]) {
        const pieceSize = rng.int(1, 64);
        const expected = results(b);
        const source = memorySource(b);
        const got = results(source, { pieceSize });
        for (const key of Object.keys(expected))
          assert.equal(
            got[key],
            expected[key],
            `${key}, pieces of ${pieceSize}, case seed ${seed} (SOURCE_SEED=${MASTER})`,
          );
        assert.ok(
          b.length === 0 || source.reads > b.length / pieceSize,
          `read by piece: ${source.reads} reads of ${b.length} bytes`,
        );
        compared++;
      }
    }
  }
  assert.ok(compared >= COUNT * 4);
});

test("oh-my-pi's title line before the header: found in bytes and in pieces of any size", () => {
  const title = JSON.stringify({
    type: "title",
    v: 1,
    title: "Fix é",
    source: "auto",
    updatedAt: "2025-01-01T00:00:00Z",
    pad: "   ",
  });
  const dir = mkdtempSync(join(tmpdir(), "session-tree-omp-"));
  try {
    for (let k = 0; k < 4; k++) {
      const seed = caseSeed(MASTER, 100 + k);
      // The generator draws an empty file one time in a hundred; a title line
      // goes before a header, so such a draw becomes a header alone.
      let current = migrate(generateSession(seed, { maxEntries: 30, pi16: k % 2 === 0 }).text);
      if (current.trim() === "") current = '{"type":"session","version":3,"id":"omp-header","cwd":"/w"}\n';
      const headerId = JSON.parse(current.slice(0, current.indexOf("\n"))).id;
      const text = `${title}\n${current}`;
      const bytes = enc.encode(text);
      const expected = results(bytes);
      assert.equal(JSON.parse(expected.info).id, headerId, `sessionInfo finds the header (seed ${seed})`);
      assert.deepEqual(results(text), expected);
      // the title is an entry of the file (a root), as pi's repository reads it; nothing else moves
      const roots = JSON.parse(expected.tree);
      assert.equal(roots[0].entry.type, "title");
      assert.deepEqual(roots.slice(1), JSON.parse(results(enc.encode(current)).tree));
      assert.equal(migrate(text), text, "nothing to migrate, the title kept byte for byte");
      const file = join(dir, `${k}.jsonl`);
      writeFileSync(file, bytes);
      for (const pieceSize of [1, 2, 3, 7, 64]) {
        const memory = results(memorySource(bytes), { pieceSize });
        const source = fileSource(file);
        let fromFile;
        try {
          fromFile = results(source, { pieceSize });
        } finally {
          source.close();
        }
        for (const key of Object.keys(expected)) {
          assert.equal(memory[key], expected[key], `${key}, pieces of ${pieceSize}, seed ${seed}`);
          assert.equal(fromFile[key], expected[key], `${key}, file in pieces of ${pieceSize}, seed ${seed}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Everything a Session says of itself, then after appends of each kind (their new ids and
 * times replaced by names, as they are drawn afresh), a torn line completed by appendJsonl.
 */
function sessionResults(session) {
  const ids = session.getEntries().map((e) => e.id);
  const some = [...new Set([ids[0], ids[1], ids.at(-1), ids[ids.length >> 1]])];
  const out = {
    header: session.header,
    leaf: session.leafId,
    count: session.getEntryCount(),
    entries: session.getEntries(),
    tree: JSON.stringify(session.getTree()),
    name: session.getSessionName(),
    migrated: session.migrated,
    diagnostics: session.diagnostics(),
    usage: session.usage(),
  };
  for (const id of some) {
    out[`of ${id}`] = [session.getEntry(id), session.getChildren(id), session.getLabel(id), session.getBranch(id)];
    for (const fn of ["buildSessionContext", "buildContextEntries", "buildSessionProjection", "currentSystemMessage"])
      out[`${fn} ${id}`] = JSON.stringify(session[fn](id));
  }
  out.context = JSON.stringify(session.buildSessionContext());
  const fresh = [];
  const own = (id) => fresh.push(id);
  const leaf = session.leafId;
  if (typeof leaf === "string") {
    own(session.appendLabelChange(leaf, "here"));
    own(session.appendCompaction("sum", undefined, 10));
  }
  own(session.appendMessage({ role: "user", content: "ü after", timestamp: 1 }));
  own(session.appendSessionInfo("renamed"));
  if (some[0] !== undefined) {
    session.branch(some[0]);
    own(session.appendCustomEntry("x", { n: 1 }));
  }
  session.appendJsonl('\n{"type":"custom","id":"zz","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z"}\n');
  let pending = session.takePendingLines().join("\n");
  let jsonl = session.toJsonl();
  for (const [k, id] of fresh.entries()) {
    pending = pending.replaceAll(id, `new${k}`);
    jsonl = jsonl.replaceAll(id, `new${k}`);
  }
  out.after = [pending, jsonl, session.leafId === fresh.at(-1), session.getSessionName()];
  out.afterContext = JSON.stringify(session.buildSessionContext());
  // Appends stamp the time now (as ISO text, and in ms in a compaction's system message): the
  // same run of minutes in both sessions, not the same millisecond.
  const ms = new RegExp(`(?<="timestamp":)${String(Date.now()).slice(0, 7)}\\d{6}`, "g");
  const iso = new RegExp(`${new Date().toISOString().slice(0, 10)}T[0-9:.]+Z`, "g");
  const same = (v) => v.replace(ms, "0").replace(iso, "Z");
  return JSON.parse(JSON.stringify(out, (_, v) => (typeof v === "string" ? same(v) : v)));
}

test("Session.open from a source in tiny pieces is the session of its bytes", () => {
  let compared = 0;
  for (let k = 0; k < COUNT / 2; k++) {
    const seed = caseSeed(MASTER, 100 + k);
    const rng = new Rng(seed);
    const { text } = generateSession(seed, { maxEntries: 50, pi16: k % 2 === 0 });
    const current = migrate(text);
    for (const variant of [current, ...broken(current, rng)]) {
      const bytes = enc.encode(variant);
      const pieceSize = rng.int(1, 64);
      const expected = sessionResults(Session.open(bytes));
      const source = memorySource(bytes);
      const session = Session.open(source, { pieceSize });
      // The white space at either end (as `trim()` sees it) is found from 4 KB
      // windows; the text between is read a piece at a time.
      const lines = enc.encode(variant.trim()).length;
      assert.ok(
        source.reads >= Math.ceil(lines / pieceSize),
        `read by piece: ${source.reads} reads of ${lines} bytes of lines, case seed ${seed}`,
      );
      assert.deepEqual(
        sessionResults(session),
        expected,
        `pieces of ${pieceSize}, case seed ${seed} (SOURCE_SEED=${MASTER})`,
      );
      compared++;
    }
  }
  assert.ok(compared >= COUNT * 2);
});

test("Session.open from a source reads entries only when asked", () => {
  const head = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
  const lines = [head];
  for (let i = 0; i < 100; i++) {
    const id = `e${String(i).padStart(7, "0")}`;
    const parent = i === 0 ? null : `e${String(i - 1).padStart(7, "0")}`;
    const message = { role: "toolResult", toolCallId: `c${i}`, content: [{ type: "text", text: "x".repeat(10_000) }] };
    lines.push(
      JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2025-01-01T00:00:01.000Z", message }),
    );
  }
  lines.push(
    JSON.stringify({
      type: "compaction",
      id: "c",
      parentId: "e0000099",
      timestamp: "2025-01-01T00:00:02.000Z",
      summary: "s",
      firstKeptEntryId: "e0000098",
      tokensBefore: 1,
    }),
  );
  const bytes = enc.encode(`${lines.join("\n")}\n`);
  let asked = 0;
  const inner = memorySource(bytes);
  const source = {
    size: inner.size,
    read(offset, length) {
      asked += length;
      return inner.read(offset, length);
    },
  };
  const session = Session.open(source);
  assert.ok(asked < bytes.length + 20_000, `opening reads the file once (${asked} bytes)`);
  asked = 0;
  const ctx = session.buildSessionContext();
  assert.equal(ctx.messages.length, 3);
  assert.ok(asked < 25_000, `a context after a compaction reads its entries only (${asked} bytes)`);
  asked = 0;
  session.appendMessage({ role: "user", content: "next" });
  assert.ok(asked < 200, `an append reads nothing of the text but its parent (${asked} bytes)`);
  assert.equal(session.getBranch().length, 102);
});

test("a context through a source reads only the header and the path", () => {
  const head = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
  const lines = [head];
  let parent = null;
  for (let i = 0; i < 200; i++) {
    const id = `e${String(i).padStart(7, "0")}`;
    // A long branch, and a big side entry off the root.
    lines.push(
      JSON.stringify({
        type: "message",
        id,
        parentId: i === 100 ? "e0000000" : parent,
        timestamp: "2025-01-01T00:00:01.000Z",
        message: { role: "user", content: i === 100 ? "x".repeat(100_000) : `m${i}` },
      }),
    );
    if (i !== 100) parent = id;
  }
  const bytes = enc.encode(`${lines.join("\n")}\n`);
  const counting = memorySource(bytes);
  let asked = 0;
  const source = {
    size: counting.size,
    read(offset, length) {
      asked += length;
      return counting.read(offset, length);
    },
  };
  const ctx = buildSessionContext(source, "e0000199");
  assert.deepEqual(ctx, buildSessionContext(bytes, "e0000199"));
  assert.equal(ctx.messages.length, 199);
  asked = 0;
  buildSessionContext(source, "e0000001");
  // The index reads the file once (and 4 KiB at either end, for trim()); the context then
  // reads two entries and the header, not the 100 KB entry off the path.
  assert.ok(asked < bytes.length + 8192 + 1000, `${asked} bytes read for a ${bytes.length}-byte file`);
});

test("getTree through a source reads each entry only when asked", () => {
  const { text } = generateSession(7, { maxEntries: 40 });
  const bytes = migrate(enc.encode(text));
  const source = memorySource(bytes);
  const tree = getTree(source);
  const afterIndex = source.reads;
  let nodes = 0;
  const walk = (list) => {
    for (const n of list) {
      nodes++;
      walk(n.children);
    }
  };
  walk(tree);
  assert.ok(nodes > 3);
  assert.ok(source.reads - afterIndex <= 1, "a walk of the shape reads nothing but labels");
  assert.equal(tree[0].entry, tree[0].entry, "read once, then the same object");
  assert.deepEqual(JSON.parse(JSON.stringify(tree)), JSON.parse(JSON.stringify(getTree(bytes))));
});

/** The preview getTree's `preview` option promises, made here from the whole entry. */
function expectedPreview(entry, paths) {
  const cut = (s) => {
    if (s.length <= 512) return s;
    let solid = 0;
    for (let i = 0; i < s.length; ) {
      const c = s.codePointAt(i);
      const n = c > 0xffff ? 2 : 1;
      if (!/\s/.test(String.fromCodePoint(c))) solid += n;
      i += n;
      if (solid >= 512) return s.slice(0, i);
    }
    return s;
  };
  const whole = (v) => {
    if (typeof v === "string") return cut(v);
    if (Array.isArray(v)) return v.map(whole);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, whole(x)]));
    return v;
  };
  const project = (v, rests) => {
    if (rests.some((r) => r.length === 0)) return whole(v);
    if (Array.isArray(v)) return v.map((x) => project(x, rests));
    if (!v || typeof v !== "object") return whole(v);
    const out = {};
    for (const key of Object.keys(v)) {
      const next = rests.filter((r) => r[0] === key).map((r) => r.slice(1));
      if (next.length) out[key] = project(v[key], next);
    }
    return out;
  };
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) return whole(entry);
  return project(
    entry,
    paths.map((p) => p.split(".")),
  );
}

test("getTree's preview: each entry cut to the fields asked for, and its range, from the index's pass", () => {
  const paths = ["type", "id", "parentId", "message.role", "message.content.text", "message.usage", "summary", "x.y.z"];
  for (let k = 0; k < 6; k++) {
    const seed = caseSeed(MASTER, 500 + k);
    const rng = new Rng(seed);
    const where = `case seed ${seed} (SOURCE_SEED=${MASTER})`;
    const long = Array.from({ length: 900 }, () => rng.pick(["é", " ", "🙂", "\n", "x", "\u3000"])).join("");
    const extra = [
      {
        type: "message",
        id: "big1",
        parentId: null,
        message: { role: "user", content: [{ type: "text", text: long }] },
      },
      { type: "compaction", id: "big2", parentId: "big1", summary: long, x: { y: { z: [long, 1], w: 2 } } },
    ];
    // A generated session may be blank lines alone: with no header before the
    // entries added here, the file is no current session and is read whole,
    // without previews, so such a draw starts from a header of its own.
    let base = migrate(generateSession(seed, { maxEntries: 40, pi16: k % 2 === 0 }).text).trimEnd();
    if (base.trim() === "") base = '{"type":"session","version":3,"id":"s"}';
    const text = `${base}\n${extra.map((e) => JSON.stringify(e)).join("\n")}\n`;
    const bytes = enc.encode(text);
    const source = memorySource(bytes);
    const tree = getTree(source, { preview: paths, pieceSize: rng.int(1, 64) });
    assert.ok("range" in tree[0], `read by range, ${where}`);
    const reads = source.reads;
    const previews = [];
    const walk = (list) => {
      for (const n of list) {
        previews.push([n.preview, n.range]);
        walk(n.children);
      }
    };
    walk(tree);
    assert.equal(source.reads, reads, `the previews and ranges read nothing, ${where}`);
    let k2 = 0;
    const check = (list) => {
      for (const n of list) {
        const [preview, range] = previews[k2++];
        assert.deepEqual(preview, expectedPreview(n.entry, paths), `${n.entry?.id}, ${where}`);
        const line = new TextDecoder().decode(bytes.slice(range[0], range[0] + range[1]));
        assert.deepEqual(JSON.parse(line), n.entry, `the range of ${n.entry?.id}, ${where}`);
        check(n.children);
      }
    };
    check(tree);
    assert.ok(
      previews.some(([p]) => p.summary?.length < long.length && long.startsWith(p.summary)),
      "a long text is cut",
    );
  }
  // Text, entries and old sessions give pi's nodes, without them.
  const old = enc.encode('{"type":"session","id":"s"}\n{"type":"message","timestamp":"2025-01-01T00:00:00Z"}\n');
  for (const input of [old, memorySource(old)]) {
    assert.equal(getTree(input, { preview: ["type"] })[0].preview, undefined);
  }
  assert.throws(() => getTree(memorySource(old), { preview: "type" }), {
    name: "TypeError",
    message: /options\.preview must be an array of field paths/,
  });
  assert.throws(() => getTree(memorySource(old), { preview: ["type", 1] }), /options\.preview/);
});

test("getTree's detail: a second preview of the entries `where` picks, as text or mapped, from the index's pass", () => {
  const paths = ["id", "message.content.text", "message.content.name"];
  const where = { type: ["message"], "message.role": ["user", "assistant"] };
  const picks = (e) =>
    e !== null &&
    typeof e === "object" &&
    e.type === "message" &&
    ["user", "assistant"].includes(e.message?.role) &&
    typeof e.message.role === "string";
  for (let k = 0; k < 4; k++) {
    const seed = caseSeed(MASTER, 600 + k);
    const rng = new Rng(seed);
    const what = `case seed ${seed} (SOURCE_SEED=${MASTER})`;
    const long = Array.from({ length: 900 }, () => rng.pick(["é", " ", "🙂", "\n", "x"])).join("");
    let base = migrate(generateSession(seed, { maxEntries: 40, pi16: k % 2 === 0 }).text).trimEnd();
    if (base.trim() === "") base = '{"type":"session","version":3,"id":"s"}';
    const extra = {
      type: "message",
      id: "big",
      parentId: null,
      message: { role: "user", content: [{ type: "text", text: long }] },
    };
    const bytes = enc.encode(`${base}\n${JSON.stringify(extra)}\n`);
    for (const mapped of [false, true]) {
      const source = memorySource(bytes);
      const seen = [];
      const map = (text) => {
        seen.push(text);
        return { n: seen.length - 1 };
      };
      const detail = mapped ? { preview: paths, where, map } : { preview: paths, where };
      const tree = getTree(source, { preview: ["type"], detail, pieceSize: rng.int(1, 64) });
      const reads = source.reads;
      const got = [];
      const walk = (list) => {
        for (const n of list) {
          got.push([n, n.detail, n.range]);
          walk(n.children);
        }
      };
      walk(tree);
      assert.equal(source.reads, reads, `the details read nothing, ${what}`);
      let picked = 0;
      for (const [n, detail, range] of got) {
        if (!picks(n.entry)) {
          assert.equal(detail, undefined, `${n.entry?.id}, ${what}`);
          continue;
        }
        picked++;
        const text = mapped ? seen[detail.n] : detail;
        assert.equal(typeof text, "string");
        assert.deepEqual(JSON.parse(text), expectedPreview(n.entry, paths), `${n.entry?.id}, ${what}`);
        assert.ok(!text.includes("\n"), "one line");
        if (mapped) assert.ok(detail.n < seen.length);
        assert.ok(range[1] > 0);
      }
      assert.ok(picked > 0, what);
      // map is called once per picked entry, in file order.
      if (mapped) {
        assert.equal(seen.length, picked);
        const order = got.filter(([, d]) => d !== undefined).sort((a, b) => a[2][0] - b[2][0]);
        assert.deepEqual(
          order.map(([, d]) => d.n),
          order.map((_, i) => i),
        );
      }
    }
  }
  const old = enc.encode('{"type":"session","version":3,"id":"s"}\n');
  for (const [detail, message] of [
    ["x", /options\.detail must be/],
    [{ preview: "id", where: {} }, /options\.detail\.preview must be/],
    [{ preview: ["id"] }, /options\.detail\.where must be/],
    [{ preview: ["id"], where: [] }, /options\.detail\.where must be/],
    [{ preview: ["id"], where: { type: "message" } }, /options\.detail\.where\["type"\] must be/],
    [{ preview: ["id"], where: {}, map: 1 }, /options\.detail\.map must be a function/],
  ]) {
    assert.throws(() => getTree(memorySource(old), { detail }), { name: "TypeError", message }, String(detail));
  }
  // An error thrown by map is getTree's.
  const one = enc.encode(
    '{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"a","message":{"role":"user"}}\n',
  );
  const boom = () => {
    throw new RangeError("boom");
  };
  assert.throws(() => getTree(memorySource(one), { detail: { preview: ["id"], where: {}, map: boom } }), /boom/);
});

test("previewEntries: the previews of the entries at any ranges, in their order, read together when close", () => {
  const paths = ["type", "id", "message.role", "message.content.text", "message.content.arguments.path", "summary"];
  let ranged = 0;
  for (let k = 0; k < 12; k++) {
    const seed = caseSeed(MASTER, 600 + k);
    const rng = new Rng(seed);
    const where = `case seed ${seed} (SOURCE_SEED=${MASTER})`;
    const long = Array.from({ length: 700 }, () => rng.pick(["é", " ", "🙂", "\n", "x"])).join("");
    const big = { type: "compaction", id: "big", parentId: null, summary: long, x: long.repeat(200) };
    const text = `${migrate(generateSession(seed, { maxEntries: 60, pi16: k % 2 === 0 }).text).trimEnd()}\n${JSON.stringify(big)}\n`;
    const bytes = enc.encode(text);
    const nodes = [];
    const walk = (list) => {
      for (const n of list) {
        nodes.push(n);
        walk(n.children);
      }
    };
    walk(getTree(memorySource(bytes), { preview: ["type"] }));
    // (a generated session whose first line is no current header is read whole: no ranges)
    if (nodes.some((n) => n.range === undefined)) continue;
    ranged++;
    // some nodes, in file order or shuffled, some twice
    const picked = nodes.filter(() => rng.chance(0.6));
    picked.push(...nodes.filter(() => rng.chance(0.1)));
    if (k % 2 === 0) picked.sort((a, b) => a.range[0] - b.range[0]);
    else
      for (let i = picked.length - 1; i > 0; i--) {
        const j = rng.int(0, i + 1);
        [picked[i], picked[j]] = [picked[j], picked[i]];
      }
    const source = memorySource(bytes);
    const got = previewEntries(
      source,
      picked.flatMap((n) => n.range),
      { preview: paths },
    );
    assert.equal(got.length, picked.length, where);
    picked.forEach((n, i) => {
      assert.deepEqual(got[i], expectedPreview(n.entry, paths), `${n.entry?.id}, ${where}`);
    });
    if (k % 2 === 0 && picked.length > 1)
      assert.ok(source.reads < picked.length, `close ranges read together, ${where}`);
    assert.deepEqual(previewEntries(source, new Float64Array(0), { preview: paths }), []);
  }
  assert.ok(ranged >= 3, `${ranged} of 12 generated sessions read by range (SOURCE_SEED=${MASTER})`);
  const bytes = enc.encode('{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"a","parentId":null}\n');
  const at = bytes.indexOf(10) + 1;
  const source = memorySource(bytes);
  assert.deepEqual(previewEntries(source, [at, bytes.length - at - 1], { preview: ["id"] }), [{ id: "a" }]);
  assert.throws(() => previewEntries(source, [at], { preview: ["id"] }), { name: "TypeError", message: /pairs/ });
  assert.throws(() => previewEntries(source, [at, bytes.length], { preview: ["id"] }), { name: "RangeError" });
  assert.throws(() => previewEntries(source, [at, 1.5], { preview: ["id"] }), {
    name: "RangeError",
    message: new RegExp(`\\[${at}, 1\\.5\\] is not a range of .*'s ${bytes.length} bytes`),
  });
  assert.throws(() => previewEntries(source, [-0.25, 1e21], { preview: ["id"] }), {
    name: "RangeError",
    message: /\[-0\.25, 1e\+21\] is not a range/,
  });
  assert.throws(() => previewEntries(source, [at, 3], { preview: ["id"] }), /changed while it was read/);
  assert.throws(() => previewEntries(source, [at, 10], {}), { name: "TypeError", message: /options\.preview/ });
  assert.throws(() => previewEntries(bytes, [at, 10], { preview: ["id"] }), {
    name: "TypeError",
    message: /source must be a byte source/,
  });
});

test("a source's errors: wrong size or bytes, bad piece size", () => {
  const bytes = enc.encode('{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"a","parentId":null}\n');
  const short = { name: "short.jsonl", size: bytes.length, read: (o, n) => bytes.slice(o, o + n - 1) };
  assert.throws(() => getTree(short), /short\.jsonl changed while it was read/);
  assert.throws(() => countEntries(short), /short\.jsonl changed while it was read/);
  const notBytes = { size: bytes.length, read: () => "text" };
  assert.throws(() => getTree(notBytes), TypeError);
  assert.throws(() => getTree({ size: -1, read: () => bytes }), /source\.size must be a number of bytes/);
  assert.throws(() => getTree(memorySource(bytes), { pieceSize: 0 }), /options\.pieceSize/);
  // A context reads its path whole: one over the limit is refused before it is read.
  assert.throws(() => buildSessionContext(memorySource(bytes), "a", { maxBytes: 10 }), {
    name: "RangeError",
    message: /memory: the entries on the path to this leaf are \d+ bytes, more than a context may read/,
  });
  assert.equal(buildSessionContext(memorySource(bytes), "a", { maxBytes: 100 }).messages.length, 1);
  // The functions that do not read by piece read a source whole, under maxBytes.
  assert.throws(() => migrate(memorySource(bytes), { maxBytes: 10 }), RangeError);
  assert.deepEqual(migrate(memorySource(bytes)), bytes);
});

test("fileSource: a file truncated, rewritten or appended to while read is a clear error", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "session-tree-source-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "session.jsonl");
  const { text } = generateSession(11, { maxEntries: 80 });
  const original = migrate(text);
  const changes = {
    truncated: () => truncateSync(path, 100),
    rewritten: () => writeFileSync(path, original.replaceAll("a", "b")), // same size, other bytes
    appended: () => writeFileSync(path, `${original}{"type":"custom","id":"zz","parentId":null}\n`),
  };
  for (const [what, change] of Object.entries(changes)) {
    const open = (s, o) => Session.open(s, o);
    for (const fn of [getTree, sessionInfo, countEntries, (s, o) => buildSessionContext(s, undefined, o), open]) {
      writeFileSync(path, original);
      const source = fileSource(path);
      let reads = 0;
      const changing = {
        name: source.name,
        size: source.size,
        read(offset, length) {
          if (++reads === 3) change();
          return source.read(offset, length);
        },
      };
      assert.throws(
        () => fn(changing, { pieceSize: 64 }),
        (e) => e instanceof Error && e.message.includes(`${path} changed while it was read`),
        `${what}, ${fn.name || "buildSessionContext"}`,
      );
      source.close();
    }
  }
  // A tree's entries read after the file changed: the read throws, the node stays unread.
  writeFileSync(path, original);
  const source = fileSource(path);
  const tree = getTree(source);
  writeFileSync(path, original.replaceAll("a", "b"));
  assert.throws(() => tree[0].entry, new RegExp(`${path} changed while it was read`));
  source.close();
  // So are a session's, read after it opened.
  writeFileSync(path, original);
  const reopened = fileSource(path);
  const session = Session.open(reopened);
  writeFileSync(path, original.replaceAll("a", "b"));
  assert.throws(() => session.getEntries(), new RegExp(`${path} changed while it was read`));
  assert.throws(() => session.buildSessionContext(), new RegExp(`${path} changed while it was read`));
  reopened.close();
  assert.throws(() => source.read(0, 1), /closed/);
});

test("fileSource reads and never writes", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "session-tree-source-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "s.jsonl");
  const bytes = migrate(enc.encode(generateSession(5, { maxEntries: 50 }).text));
  writeFileSync(path, bytes);
  const before = statSync(path, { bigint: true });
  const source = fileSource(path);
  assert.equal(source.size, bytes.length);
  assert.equal(source.name, path);
  assert.deepEqual(results(source, { pieceSize: 7 }), results(bytes));
  assert.throws(() => source.read(bytes.length - 1, 2), RangeError);
  source.close();
  source.close();
  const after = statSync(path, { bigint: true });
  assert.equal(after.mtimeNs, before.mtimeNs);
  assert.deepEqual(readFileSync(path), Buffer.from(bytes));
  assert.throws(() => fileSource(join(dir, "missing.jsonl")), { code: "ENOENT" });
  assert.throws(() => fileSource(dir), { code: "EISDIR" });
});
