// Heavy and possibly hanging work, run by task-worker.mjs in a worker thread (see workers.mjs).
// Each task builds its input inside the worker (no 50 MB messages), runs the package's
// functions as timed steps, and returns a small summary that the test checks.
import * as st from "session-tree";
import { Rng } from "../../shared/rng.mjs";

const HEADER3 = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';
const HEADER1 = '{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}';

/** Node count, root count and maximum depth of a getTree result, without recursion. */
export function treeShape(roots) {
  let count = 0;
  let depth = 0;
  const ids = new Set();
  let repeated = 0;
  const stack = roots.map((n) => [n, 1]);
  while (stack.length) {
    const [node, d] = stack.pop();
    count++;
    if (ids.has(node)) repeated++;
    ids.add(node);
    if (d > depth) depth = d;
    for (const c of node.children) stack.push([c, d + 1]);
  }
  return { count, roots: roots.length, depth, repeated };
}

function allFunctions(step, source, { leafId } = {}) {
  const out = {};
  out.parsed = step("parseSession", () => st.parseSession(source).length);
  out.tree = step("getTree", () => treeShape(st.getTree(source)));
  out.context = step("buildSessionContext", () => {
    const c = st.buildSessionContext(source, leafId);
    return { messages: c.messages.length, thinkingLevel: c.thinkingLevel, model: c.model };
  });
  out.diagnostics = step("inspectSession", () => {
    const d = st.inspectSession(source);
    const kinds = {};
    for (const x of d) kinds[x.kind] = (kinds[x.kind] ?? 0) + 1;
    return kinds;
  });
  out.migrated = step("migrate", () => {
    if (Array.isArray(source)) return { changed: st.migrate(source) };
    const out = st.migrate(source);
    // Bytes come back as bytes: decoded here to compare with the text.
    const m = typeof out === "string" ? out : Buffer.from(out.buffer, out.byteOffset, out.length).toString("utf8");
    const text = typeof source === "string" ? source : Buffer.from(source).toString("utf8");
    return { same: m === text, length: m.length, lines: m.split("\n").length - 1 };
  });
  return out;
}

/** A million tiny v3 entries in a bushy tree (each entry's parent is the previous or a seeded earlier one). */
export function millionEntries({ n = 1_000_000 }, step) {
  const source = step("build input", () => {
    const parts = [HEADER3];
    let x = 12345;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const parent = i === 0 ? "null" : `"${(x & 1 ? i - 1 : x % i).toString(36)}"`;
      parts.push(
        i % 10 === 0
          ? `{"type":"message","id":"${i.toString(36)}","parentId":${parent},"message":{"role":"user","content":"x"}}`
          : `{"type":"custom","id":"${i.toString(36)}","parentId":${parent}}`,
      );
    }
    return Buffer.from(parts.join("\n"));
  });
  return allFunctions(step, source);
}

/** A million tiny v1 entries (no ids): migration gives each a fresh id and chains them. */
export function millionV1({ n = 1_000_000 }, step) {
  const source = step("build input", () => `${HEADER1 + '\n{"type":"custom"}'.repeat(n)}\n`);
  const migrated = step("migrate", () => st.migrate(source));
  return step("check", () => {
    const lines = migrated.split("\n");
    lines.pop();
    const ids = new Set();
    let chained = 0;
    let prev = null;
    for (let i = 1; i < lines.length; i++) {
      const e = JSON.parse(lines[i]);
      ids.add(e.id);
      if (e.parentId === prev) chained++;
      prev = e.id;
    }
    return { lines: lines.length, uniqueIds: ids.size, chained, header: JSON.parse(lines[0]).version };
  });
}

/** A linear session `n` entries deep, as text (v3 or v1) or as an entry array. */
export function deepSession({ n = 200_000, form = "v3", session = true }, step) {
  const source = step("build input", () => {
    const lines = [form === "v1" ? HEADER1 : HEADER3];
    for (let i = 0; i < n; i++) {
      const ids = form === "v1" ? "" : `"id":"e${i}","parentId":${i ? `"e${i - 1}"` : "null"},`;
      lines.push(
        `{"type":"message",${ids}"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"${i % 2 ? "assistant" : "user"}","content":"m${i}","provider":"p","model":"m"}}`,
      );
    }
    const text = `${lines.join("\n")}\n`;
    return form === "array" ? st.parseSession(text) : text;
  });
  const out = allFunctions(step, source, { leafId: form === "v1" ? undefined : `e${n - 1}` });
  if (session)
    out.session = step("Session.open + context + branch", () => {
      const s = st.Session.open(source);
      const c = s.buildSessionContext();
      const branch = s.getBranch();
      const r = { messages: c.messages.length, branch: branch.length, treeDepth: treeShape(s.getTree()).depth };
      s.free();
      return r;
    });
  return out;
}

/** One line of about `mb` MB: a message whose content is one long string (or a malformed variant). */
export function longLine({ mb = 50, variant = "string" }, step) {
  const source = step("build input", () => {
    const big = "x".repeat(mb * 1024 * 1024);
    if (variant === "string")
      return `${HEADER1}\n{"type":"message","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"${big}"}}\n`;
    if (variant === "unterminated")
      return `${HEADER3}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"${big}`;
    if (variant === "array")
      return `${HEADER3}\n{"type":"custom","id":"a","parentId":null,"data":[${"1,".repeat(mb * 512 * 1024)}1]}\n`;
    throw new Error(`unknown variant ${variant}`);
  });
  const bytes = step("encode", () => Buffer.from(source));
  const out = allFunctions(step, bytes);
  if (variant === "string") {
    out.contentLength = step("content length", () => st.parseSession(bytes)[1].message.content.length);
    out.contextContentLength = step("context content", () => st.buildSessionContext(bytes).messages[0].content.length);
  }
  return out;
}

/**
 * A v3 session whose tool result is one line of about `mb` MB (text far from ASCII), read from
 * a byte source `pieceSize` bytes at a time, so the line spans thousands of pieces; then a
 * second such line followed by Session.appendJsonl in chunks of `pieceSize` bytes, then a
 * line as long of whitespace JS's `trim()` drops (NBSP, U+2028, U+3000: a blank line to pi)
 * and one more entry. A reader that searched the whole held line again for each piece or chunk
 * (for a line end, or for whether it is still blank) would do about
 * (line / piece)² / 2 piece searches: for 16 MB in 1 KB pieces, 128 GB of scanning, where
 * reading each byte once takes under a second.
 */
export function longLineInPieces({ mb = 16, pieceSize = 1024 }, step) {
  const unit = "é漢字😀 x"; // 2, 3, 3, 4, 1 and 1 bytes: characters cut at every offset
  const text = step("build input", () => unit.repeat(Math.ceil((mb * 1024 * 1024) / Buffer.byteLength(unit))));
  const line = (id, parentId, t) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: "2025-01-01T00:00:00.000Z",
      message: { role: "user", content: t, timestamp: 1 },
    });
  const bytes = Buffer.from(
    `${HEADER3}\n${line("a", null, "hi")}\n${line("b", "a", text)}\n${line("c", "b", "end")}\n`,
  );
  const source = { size: bytes.length, read: (offset, length) => bytes.subarray(offset, offset + length) };
  const o = { pieceSize };
  const out = {};
  out.count = step("countEntries", () => st.countEntries(source, o));
  out.info = step("sessionInfo", () => {
    const i = st.sessionInfo(source, o);
    return { messageCount: i.messageCount, firstMessage: i.firstMessage };
  });
  out.parsed = step("parseSession", () => st.parseSession(source, o).map((e) => e.id));
  out.tree = step("getTree", () => {
    const b = st.getTree(source, o)[0].children[0];
    return { id: b.entry.id, length: b.entry.message.content.length, next: b.children[0].entry.id };
  });
  out.context = step("buildSessionContext", () =>
    st.buildSessionContext(source, undefined, o).messages.map((m) => m.content.length),
  );
  out.diagnostics = step("inspectSession", () => st.inspectSession(source, o).length);
  out.migrated = step("migrate", () => Buffer.from(st.migrate(source, o)).equals(bytes));
  out.session = step("Session.open + appendJsonl in pieces", () => {
    const s = st.Session.open(source, o);
    const blank = "\u00a0\u2028 \t\u3000".repeat(text.length / 8);
    const more = Buffer.from(`${line("d", "c", text)}\n${blank}\n${line("e", "d", "after")}\n`);
    for (let at = 0; at < more.length; at += pieceSize) s.appendJsonl(more.subarray(at, at + pieceSize));
    const d = s.getEntry("d");
    const r = { leaf: s.getLeafEntry().id, same: d.message.content === text, entries: s.getEntries().length };
    s.free();
    return r;
  });
  out.textLength = text.length;
  return out;
}

/**
 * A chain of `steps` user messages, each answered by a tool result of `mib` MiB of ASCII:
 * the context at its end is more JSON than one JS string holds (536,870,888 units in V8) once
 * `steps` × `mib` passes 512. pi's context is objects, so it has no such limit; ours must not
 * either.
 */
export function largeContext({ steps = 520, mib = 1 }, step) {
  const body = "x".repeat(mib << 20);
  const bytes = step("build input", () => {
    // Buffers, not one string: the file is longer than a string can be.
    const content = [{ type: "text", text: body }];
    const lines = [HEADER3];
    let parent = null;
    for (let i = 0; i < steps; i++) {
      const stamp = "2025-01-01T00:00:00.000Z";
      const user = { role: "user", content: `step ${i}`, timestamp: i };
      const result = { role: "toolResult", toolCallId: `c${i}`, toolName: "read", content };
      lines.push(JSON.stringify({ type: "message", id: `u${i}`, parentId: parent, timestamp: stamp, message: user }));
      lines.push(
        JSON.stringify({ type: "message", id: `r${i}`, parentId: `u${i}`, timestamp: stamp, message: result }),
      );
      parent = `r${i}`;
    }
    return Buffer.concat(lines.map((line) => Buffer.from(`${line}\n`)));
  });
  const shape = (messages) => ({
    count: messages.length,
    users: messages.filter((m, k) => m.role === "user" && m.content === `step ${k / 2}`).length,
    results: messages.filter((m) => m.role === "toolResult" && m.content[0].text === body).length,
  });
  const out = { size: bytes.length };
  out.context = step("buildSessionContext", () => {
    const c = st.buildSessionContext(bytes);
    return { ...shape(c.messages), keys: Object.keys(c) };
  });
  out.entries = step("buildContextEntries", () => {
    const entries = st.buildContextEntries(bytes);
    return { ...shape(entries.map((e) => e.message)), last: entries.at(-1).id };
  });
  out.projection = step("buildSessionProjection", () => {
    const p = st.buildSessionProjection(bytes);
    return {
      ...shape(p.messages),
      keys: Object.keys(p),
      shared: p.entries.every((e, k) => e.sourceEntry.message === p.messages[k]),
    };
  });
  return out;
}

/** One entry with `n` distinct keys, and one with `n` repetitions of the same keys. */
export function manyKeys({ n = 100_000 }, step) {
  const source = step("build input", () => {
    const keys = Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",");
    const dup = Array.from({ length: n }, (_, i) => `"id":"d${i}","parentId":null`).join(",");
    return `${HEADER1}\n{"type":"message",${keys},"message":{"role":"user","content":"wide"}}\n{"type":"custom",${dup}}\n`;
  });
  const out = allFunctions(step, source);
  out.check = step("check", () => {
    const [, wide, dup] = st.parseSession(source);
    const migrated = st.parseSession(st.migrate(source));
    return {
      wideKeys: Object.keys(wide).length,
      dupId: dup.id,
      migratedWideKeys: Object.keys(migrated[1]).length,
      migratedDupId: migrated[2].id,
    };
  });
  return out;
}

/** `n` entries that all share one id (and name it as their parent, or the header's). */
export function duplicateIds({ n = 100_000, parent = "dup" }, step) {
  const source = step("build input", () => {
    const lines = [HEADER3];
    for (let i = 0; i < n; i++)
      lines.push(
        `{"type":"message","id":"dup","parentId":${i === 0 ? "null" : JSON.stringify(parent)},"message":{"role":"user","content":"${i}"}}`,
      );
    return `${lines.join("\n")}\n`;
  });
  return allFunctions(step, source);
}

/** parentId cycles: one of `n` entries, `n/2` of two entries, or a chain of `n` leading into a 2-cycle. */
export function cycles({ n = 100_000, shape = "ring" }, step) {
  const source = step("build input", () => {
    const lines = [HEADER3];
    const e = (id, parent) =>
      `{"type":"message","id":"${id}","parentId":"${parent}","message":{"role":"user","content":"${id}"}}`;
    if (shape === "ring") for (let i = 0; i < n; i++) lines.push(e(`c${i}`, `c${(i + 1) % n}`));
    else if (shape === "pairs") for (let i = 0; i < n; i++) lines.push(e(`c${i}`, `c${i ^ 1}`));
    else if (shape === "rho") {
      lines.push(e("a", "b"), e("b", "a"));
      for (let i = 0; i < n; i++) lines.push(e(`t${i}`, i ? `t${i - 1}` : "a"));
    } else if (shape === "reverse-chain") {
      // Children before their parents, in file order: every walk up is long.
      for (let i = n - 1; i >= 0; i--) lines.push(e(`c${i}`, i ? `c${i - 1}` : `c${n - 1}`));
    }
    return `${lines.join("\n")}\n`;
  });
  const out = allFunctions(step, source);
  out.session = step("Session.open", () => {
    const s = st.Session.open(source);
    const r = { branch: s.getBranch().length, messages: s.buildSessionContext().messages.length };
    s.free();
    return r;
  });
  return out;
}

/** `n` siblings under one root with timestamps (many invalid): tree order must be V8's sort's. */
export function manySiblings({ n = 100_000 }, step) {
  const source = step("build input", () => {
    const lines = [HEADER3, '{"type":"custom","id":"root","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z"}'];
    for (let i = 0; i < n; i++) {
      const ts =
        i % 3 === 0 ? '"garbage"' : `"${new Date(Date.UTC(2025, 0, 1) + ((i * 7919) % n) * 1000).toISOString()}"`;
      lines.push(`{"type":"custom","id":"s${i}","parentId":"root","timestamp":${ts}}`);
    }
    return `${lines.join("\n")}\n`;
  });
  return allFunctions(step, source);
}

const STAMPS = [
  undefined,
  "",
  "garbage",
  "2025-01-01",
  "2025-01-01T00:00:00",
  "2025-01-01T00:00:00.000Z",
  "2025-01-01T00:00:00.000+02:00",
  "Jan 1 2025 10:00",
  "Wed, 01 Jan 2025 00:00:00 GMT",
  "2025-02-30T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "+275760-09-13T00:00:00.001Z",
  "-000001-01-01T00:00:00Z",
  "2025-01-01T24:00:00Z",
  "1735689600000",
  1735689600000,
  0,
  -1,
  8.64e15,
  8.64e15 + 1,
  null,
  true,
  false,
  ["2025-01-01T00:00:00Z"],
  [],
  {},
  { a: 1 },
  [[["2025"]]],
  "\ud800",
  "2025-01-01T00:00:00.000Z",
  "2025-01-01T00:00:01.000Z",
  "2025-01-01T00:00:01.000Z",
];

/** A session whose timestamps are drawn from STAMPS: a few big sibling lists and deeper branches. */
function stampedSession(seed) {
  const rng = new Rng(seed);
  const rand = (n) => rng.int(0, n);
  const entries = [{ type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" }];
  const ids = [];
  const n = 2 + rand([10, 70, 270][rand(3)]);
  const flat = rand(3) === 0; // most entries children of e0: long sibling lists
  for (let i = 0; i < n; i++) {
    const id = `e${i}`;
    const parentId =
      ids.length === 0 || rand(10) === 0
        ? null
        : flat && rand(8)
          ? "e0"
          : rand(3) === 0
            ? ids[rand(ids.length)]
            : ids[rand(Math.min(3, ids.length))];
    const e = { type: ["message", "custom_message", "branch_summary", "compaction", "custom"][rand(5)], id, parentId };
    const ts = STAMPS[rand(STAMPS.length)];
    if (ts !== undefined) e.timestamp = ts;
    if (e.type === "message") e.message = { role: "user", content: id, timestamp: 1 };
    if (e.type === "custom_message") Object.assign(e, { customType: "x", content: id, display: true });
    if (e.type === "branch_summary") Object.assign(e, { fromId: "root", summary: `b${id}` });
    if (e.type === "compaction")
      Object.assign(e, { summary: `c${id}`, tokensBefore: 1, firstKeptEntryId: ids[rand(ids.length + 1)] });
    entries.push(e);
    ids.push(id);
    if (rand(8) === 0)
      entries.push({
        type: "label",
        id: `l${i}`,
        parentId: id,
        targetId: ids[rand(ids.length)],
        label: rand(2) ? "x" : "",
        timestamp: STAMPS[rand(STAMPS.length)],
      });
  }
  return entries;
}

const withNaN = (v) =>
  JSON.stringify(v, (_k, val) => (typeof val === "number" && !Number.isFinite(val) ? `<${val}>` : val));
function treeOrder(roots) {
  const out = [];
  const stack = [...roots].reverse().map((n) => [n, 0]);
  while (stack.length) {
    const [node, depth] = stack.pop();
    out.push(`${depth}:${node.entry.id}:${node.label ?? ""}:${withNaN(node.labelTimestamp)}`);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], depth + 1]);
  }
  return out.join(" ");
}

/** Tree order and context timestamps against pi, on `count` stamped sessions. */
export async function timestampsVsPi({ seed, count }, step) {
  const { buildSessionContext: piCtx, piTree } = await import("../../shared/pi.mjs");
  const failures = [];
  let compared = 0;
  let bigSiblingLists = 0;
  step("compare", () => {
    for (let k = 0; k < count; k++) {
      const s = seed + k;
      const entries = stampedSession(s);
      const kids = new Map();
      for (const e of entries) kids.set(e.parentId, (kids.get(e.parentId) ?? 0) + 1);
      if ([...kids.values()].some((c) => c >= 64)) bigSiblingLists++;
      const text = `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
      const piEntries = JSON.parse(`[${text.trim().split("\n").join(",")}]`);
      const leaves = [
        undefined,
        ...entries
          .slice(1)
          .map((e) => e.id)
          .filter((_, i) => i % 7 === 0),
      ];
      for (const form of ["text", "array"]) {
        const source = form === "text" ? text : JSON.parse(`[${text.trim().split("\n").join(",")}]`);
        const ours = treeOrder(st.getTree(source));
        const theirs = treeOrder(piTree(piEntries));
        compared++;
        if (ours !== theirs)
          failures.push({ seed: s, form, what: "tree", ours: ours.slice(0, 400), pi: theirs.slice(0, 400) });
        for (const leaf of leaves) {
          const a = withNaN(st.buildSessionContext(source, leaf));
          const b = withNaN(piCtx(piEntries, leaf));
          if (a !== b)
            failures.push({ seed: s, form, what: `context at ${leaf}`, ours: a.slice(0, 400), pi: b.slice(0, 400) });
        }
      }
      if (failures.length > 5) break;
    }
  });
  return { failures, compared, bigSiblingLists };
}

/**
 * Mutated sessions: parseSession must equal pi 1.6.0's parseSessionEntries (bytes: pi reads the UTF-8
 * decoding), and every other function must return or throw an Error, never hang or trap.
 * One step per input, so a hang names its seed.
 */
export async function mutatedVsPi({ seed, count }, step) {
  const { loadPi } = await import("../../shared/pi.mjs");
  const { parseSessionEntries } = await loadPi("1.6.0");
  const { generateSession } = await import("../../shared/sessions.mjs");
  const { mutate } = await import("./mutate.mjs");
  const mismatches = [];
  const errors = [];
  const bad = [];
  let lines = 0;
  for (let k = 0; k < count; k++) {
    const s = seed + k;
    step(`seed ${s}`, () => {
      const rng = new Rng(s ^ 0x5bd1e995);
      let { text } = generateSession(s, { maxEntries: 40 });
      // The generator always writes a header; files without one are broken input too.
      if (rng.chance(1 / 12)) text = text.slice(text.indexOf("\n") + 1);
      const { bytes, ops } = mutate(new Uint8Array(Buffer.from(text)), rng, 5);
      const decoded = Buffer.from(bytes).toString("utf8");
      lines += decoded.split("\n").length;
      for (const [form, source] of [
        ["bytes", bytes],
        ["text", decoded],
      ]) {
        const ours = JSON.stringify(st.parseSession(source));
        const theirs = JSON.stringify(parseSessionEntries(decoded));
        if (ours !== theirs)
          mismatches.push({
            seed: s,
            form,
            ops,
            input: JSON.stringify(decoded).slice(0, 600),
            ours: ours.slice(0, 300),
            pi: theirs.slice(0, 300),
          });
        const calls = {
          migrate: () => st.migrate(source),
          getTree: () => st.getTree(source),
          buildSessionContext: () => st.buildSessionContext(source),
          "buildSessionContext(leaf)": () => st.buildSessionContext(source, JSON.parse(ours)[2]?.id ?? "x"),
          "buildSessionContext(array)": () =>
            st.buildSessionContext(JSON.parse(ours).length ? st.parseSession(source) : []),
          "getTree(array)": () => st.getTree(st.parseSession(source)),
          "migrate(array)": () => st.migrate(st.parseSession(source)),
          inspectSession: () => st.inspectSession(source),
          "parseSession(strict)": () => st.parseSession(source, { strict: true }),
          Session: () => {
            const session = st.Session.open(source);
            try {
              session.getTree();
              session.buildSessionContext();
              session.diagnostics();
              session.appendMessage({ role: "user", content: "more", timestamp: 1 });
              return session.toJsonl();
            } finally {
              session.free();
            }
          },
        };
        for (const [name, call] of Object.entries(calls)) {
          try {
            call();
          } catch (e) {
            const clean =
              e instanceof Error &&
              typeof e.message === "string" &&
              e.message.length > 0 &&
              !(e instanceof WebAssembly.RuntimeError);
            const expected = name === "parseSession(strict)" && e instanceof SyntaxError;
            if (!clean) bad.push({ seed: s, form, name, error: String(e), ops });
            else if (!expected)
              errors.push({ seed: s, form, name, error: `${e.constructor.name}: ${e.message}`.slice(0, 200), ops });
          }
        }
      }
    });
  }
  return {
    mismatches: mismatches.slice(0, 10),
    mismatchCount: mismatches.length,
    errors: errors.slice(0, 10),
    errorCount: errors.length,
    bad: bad.slice(0, 10),
    lines,
  };
}
