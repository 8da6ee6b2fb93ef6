// Broken input, where we deliberately differ from pi 1.6.0: parentId cycles, self-parented
// leaves, duplicate ids, JSON lines that are not objects, files whose first line is not a
// header. Ours must return quickly and sensibly; pi runs in a worker with a time limit so
// the report shows where it hangs (or throws) instead of hanging the suite.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { Pool } from "../shared/workers.mjs";
import { ours } from "./lib/ours.js";

const PI_TIMEOUT_MS = 2000;
const OURS_TIMEOUT_MS = 10_000;

const pool = new Pool(new URL("./lib/worker.js", import.meta.url));
after(() => pool.close());

const TS = (s) => `2026-02-24T21:10:${String(s).padStart(2, "0")}.000Z`;
const header = (extra = {}) => ({
  type: "session",
  version: 3,
  id: "session-broken",
  timestamp: TS(0),
  cwd: "/tmp",
  ...extra,
});
const usage = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const m = (id, parentId, role, text, s = 1) => ({
  type: "message",
  id,
  parentId,
  timestamp: TS(s),
  message:
    role === "user"
      ? { role, content: text, timestamp: s }
      : {
          role,
          content: [{ type: "text", text }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-test",
          usage,
          stopReason: "stop",
          timestamp: s,
        },
});
const marker = (id, parentId, s) => ({ type: "custom", customType: "marker", id, parentId, timestamp: TS(s) });
const jsonl = (entries) => `${entries.map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join("\n")}\n`;

/** Run one operation of pi in a worker; describe the outcome. */
async function pi(op, source, leafArgs = []) {
  const r = await pool.run({ kind: "op", impl: "pi", op, source, leafArgs }, PI_TIMEOUT_MS);
  if (r.timedOut) return { outcome: "hangs", text: `pi ${op}: does not return within ${PI_TIMEOUT_MS} ms` };
  if (!r.ok) return { outcome: "throws", text: `pi ${op}: throws ${r.error}` };
  return { outcome: "returns", json: r.json, text: `pi ${op}: returns ${r.json.slice(0, 160)}` };
}

/** Run one operation of ours in a worker first (so a hang fails instead of hanging), then in this thread. */
async function oursQuick(op, source, leafArgs = []) {
  const r = await pool.run({ kind: "op", impl: "ours", op, source, leafArgs }, OURS_TIMEOUT_MS);
  assert.ok(!r.timedOut, `ours ${op} did not return within ${OURS_TIMEOUT_MS} ms`);
  return r;
}

function call(fn) {
  try {
    return { value: fn() };
  } catch (error) {
    return { error };
  }
}

/** Every node appears once, no node object shared, no node reached twice. */
function assertTreeSane(tree, expectedEntries) {
  assert.ok(Array.isArray(tree), "getTree returns an array");
  const seen = new Set();
  const seenEntries = new Set();
  const stack = [...tree];
  let count = 0;
  while (stack.length) {
    const n = stack.pop();
    assert.ok(!seen.has(n), "a node object appears twice in the tree");
    seen.add(n);
    seenEntries.add(n.entry);
    count++;
    assert.ok(count <= expectedEntries.length, "more nodes than entries");
    stack.push(...n.children);
  }
  if (expectedEntries)
    assert.equal(
      count,
      expectedEntries.length,
      `every entry gets exactly one node (got ${count} nodes for ${expectedEntries.length} entries)`,
    );
  JSON.stringify(tree); // serializable: no cycles
}

const ids = (ctx) => ctx.messages.map((x) => (typeof x.content === "string" ? x.content : x.content?.[0]?.text));

describe("parentId cycles", () => {
  const two = jsonl([header(), m("a", "b", "user", "from-a", 1), m("b", "a", "assistant", "from-b", 2)]);
  const three = jsonl([
    header(),
    m("a", "c", "user", "cycle-a", 1),
    m("b", "a", "assistant", "cycle-b", 2),
    m("c", "b", "user", "cycle-c", 3),
  ]);
  const tail = jsonl([
    header(),
    m("a", "b", "user", "A", 1),
    m("b", "a", "assistant", "B", 2),
    m("d", "a", "user", "D", 3),
  ]);

  it("two-node cycle: ours stops at the first repeated entry, pi hangs", async (t) => {
    for (const leafArgs of [["b"], []]) {
      const p = await pi("buildSessionContext", two, leafArgs);
      t.diagnostic(`leaf ${JSON.stringify(leafArgs[0])}: ${p.text}`);
      for (const op of ["buildSessionContext", "buildSessionContextEntries"]) await oursQuick(op, two, leafArgs);
    }
    const ctx = ours.buildSessionContext(two, "b");
    assert.deepEqual(ids(ctx), ["from-a", "from-b"]);
    assert.deepEqual(
      ctx.messages.map((x) => x.role),
      ["user", "assistant"],
    );
    assert.deepEqual(ctx.model, { provider: "anthropic", modelId: "claude-test" });
  });
  it("three-node cycle", async (t) => {
    t.diagnostic((await pi("buildSessionContext", three, ["c"])).text);
    await oursQuick("buildSessionContext", three, ["c"]);
    assert.deepEqual(ids(ours.buildSessionContext(three, "c")), ["cycle-a", "cycle-b", "cycle-c"]);
  });
  it("leaf hanging off a cycle", async (t) => {
    t.diagnostic((await pi("buildSessionContext", tail, ["d"])).text);
    await oursQuick("buildSessionContext", tail, ["d"]);
    assert.deepEqual(ids(ours.buildSessionContext(tail, "d")), ["B", "A", "D"]);
  });
  it("getTree on cycles terminates, each entry at most once", async (t) => {
    for (const text of [two, three, tail]) {
      const p = await pi("getTree", text);
      t.diagnostic(p.text);
      await oursQuick("getTree", text);
      const tree = ours.getTree(text);
      const seen = new Set();
      const stack = [...tree];
      while (stack.length) {
        const n = stack.pop();
        assert.ok(!seen.has(n.entry.id), `entry ${n.entry.id} reached twice`);
        seen.add(n.entry.id);
        stack.push(...n.children);
      }
      JSON.stringify(tree);
      t.diagnostic(`ours getTree: roots ${JSON.stringify(tree.map((n) => n.entry.id))}, ${seen.size} nodes reachable`);
    }
  });
  it("migrate and parse are unaffected by cycles (equal to pi)", async () => {
    for (const text of [two, three]) {
      const p = await pi("parse", text);
      assert.equal(JSON.stringify(ours.parseSession(text)), p.json);
      assert.equal(ours.migrate(text), text);
    }
  });
});

describe("self-parented entries", () => {
  const self = jsonl([
    header(),
    m("a", null, "user", "root", 1),
    m("b", "a", "assistant", "ok", 2),
    m("c", "c", "user", "self", 3),
  ]);
  it("self-parented leaf: ours gives just that entry, pi hangs", async (t) => {
    for (const leafArgs of [["c"], []]) {
      t.diagnostic(`leaf ${JSON.stringify(leafArgs[0])}: ${(await pi("buildSessionContext", self, leafArgs)).text}`);
      await oursQuick("buildSessionContext", self, leafArgs);
      assert.deepEqual(ids(ours.buildSessionContext(self, ...leafArgs)), ["self"]);
    }
  });
  it("getTree: a self-parented entry is a root (pi agrees)", async () => {
    const p = await pi("getTree", self);
    await oursQuick("getTree", self);
    assert.equal(JSON.stringify(ours.getTree(self)), p.json);
  });
  it("other leaves are unaffected (equal to pi)", async () => {
    const p = await pi("buildSessionContext", self, ["b"]);
    assert.equal(JSON.stringify(ours.buildSessionContext(self, "b")), p.json);
  });
});

describe("duplicate ids", () => {
  // pi's own file-operations scenario
  const dup = jsonl([
    header(),
    marker("root0001", null, 42),
    marker("child0001", "root0001", 43),
    marker("root0001", null, 42),
    marker("child0001", "root0001", 43),
    marker("leaf0001", "child0001", 44),
  ]);
  // duplicates that make pi's shared nodes form a loop
  const loop = jsonl([header(), marker("x", null, 1), marker("y", "x", 2), marker("x", "y", 3)]);
  it("getTree: ours gives each entry its own node; pi shares one node object several times", async (t) => {
    const p = await pi("getTree", dup);
    t.diagnostic(p.text);
    await oursQuick("getTree", dup);
    const tree = ours.getTree(dup);
    assertTreeSane(tree, ours.parseSession(dup).slice(1));
    t.diagnostic(`ours getTree: ${JSON.stringify(tree.map((n) => n.entry.id))} roots`);
  });
  it("getTree: duplicates that close a loop (pi never returns)", async (t) => {
    const p = await pi("getTree", loop);
    t.diagnostic(p.text);
    await oursQuick("getTree", loop);
    assertTreeSane(ours.getTree(loop), ours.parseSession(loop).slice(1));
  });
  it("buildSessionContext: later duplicates win, as in pi", async () => {
    const text = jsonl([
      header(),
      m("a", null, "user", "first a", 1),
      m("b", "a", "assistant", "b", 2),
      m("a", null, "user", "second a", 3),
      m("c", "b", "user", "c", 4),
    ]);
    for (const leafArgs of [[], ["c"], ["a"]]) {
      const p = await pi("buildSessionContext", text, leafArgs);
      assert.equal(p.outcome, "returns");
      assert.equal(
        JSON.stringify(ours.buildSessionContext(text, ...leafArgs)),
        p.json,
        `leaf ${JSON.stringify(leafArgs[0])}`,
      );
    }
  });
  it("v2 entries without ids share the id `undefined`", async (t) => {
    const text = jsonl([
      { type: "session", id: "sess-1", version: 2, timestamp: TS(0), cwd: "/tmp" },
      m("abc12345", null, "user", "hi", 1),
      { type: "message", timestamp: TS(2), message: { role: "user", content: "no id 1", timestamp: 2 } },
      { type: "message", timestamp: TS(3), message: { role: "user", content: "no id 2", timestamp: 3 } },
    ]);
    t.diagnostic((await pi("getTree", text)).text);
    await oursQuick("getTree", text);
    assertTreeSane(ours.getTree(text), ours.parseSession(text).slice(1));
    const p = await pi("buildSessionContext", text);
    t.diagnostic(p.text);
    await oursQuick("buildSessionContext", text);
  });
});

describe("JSON lines that are not objects", () => {
  const values = ["42", "null", "[]", '"x"', "true", "[1,2]"];
  for (const v of values) {
    for (const version of [3, 1]) {
      it(`line ${v} in a v${version} file`, async (t) => {
        const h = version === 3 ? header() : { type: "session", id: "s1", timestamp: TS(0), cwd: "/tmp" };
        const body =
          version === 3
            ? [m("a", null, "user", "hello", 1), v, m("b", "a", "assistant", "hi", 2)]
            : [
                { type: "message", timestamp: TS(1), message: { role: "user", content: "hello", timestamp: 1 } },
                v,
                { type: "message", timestamp: TS(2), message: { role: "user", content: "again", timestamp: 2 } },
              ];
        const text = jsonl([h, ...body]);
        // parseSession keeps them, like pi's parseSessionEntries
        const pp = await pi("parse", text);
        assert.equal(JSON.stringify(ours.parseSession(text)), pp.json);
        for (const op of ["migrate", "getTree", "buildSessionContext"]) {
          const p = await pi(op, text);
          const r = await oursQuick(op, text);
          t.diagnostic(`${p.text} | ours ${op}: ${r.ok ? `returns ${r.json.slice(0, 120)}` : `throws ${r.error}`}`);
          const here = call(() =>
            op === "migrate"
              ? ours.migrate(text)
              : op === "getTree"
                ? ours.getTree(text)
                : ours.buildSessionContext(text),
          );
          if (here.error)
            assert.ok(
              here.error instanceof Error && !/unreachable|RuntimeError/.test(String(here.error)),
              `ours ${op} trapped: ${here.error}`,
            );
          if (op === "getTree" && !here.error) {
            // documented: a non-object line is an entry without fields, a root without children;
            // a falsy one (null) is no entry at all, as pi 1.6's file loader skips it
            const isObj = (e) => e !== null && typeof e === "object" && !Array.isArray(e);
            const roots = here.value;
            const odd = roots.filter((n) => !isObj(n.entry));
            if (!JSON.parse(v)) assert.equal(odd.length, 0, "a falsy line is no entry");
            else {
              assert.equal(odd.length, 1, "the non-object line is one root");
              assert.equal(JSON.stringify(odd[0].entry), JSON.stringify(JSON.parse(v)));
              assert.equal(odd[0].children.length, 0);
            }
            const stack = roots.filter((n) => isObj(n.entry));
            let count = 0;
            while (stack.length) {
              const n = stack.pop();
              count++;
              assert.ok(isObj(n.entry), `non-object entry below a root: ${JSON.stringify(n.entry)}`);
              stack.push(...n.children);
            }
            assert.equal(count, 2, "the two real entries are in the tree");
          }
          if (op === "migrate" && !here.error)
            assert.ok(
              here.value.split("\n").some((l) => l === v),
              "the non-object line is kept in place",
            );
        }
        // the module still works afterwards (no trap left it broken)
        assert.equal(ours.parseSession('{"type":"session","id":"ok"}\n').length, 1);
      });
    }
  }
});

describe("files whose first line is not a header", () => {
  const entries = [
    {
      type: "message",
      id: "abc",
      parentId: "orphaned",
      timestamp: TS(0),
      message: { role: "assistant", content: "test" },
    },
    {
      type: "message",
      id: "def",
      parentId: "abc",
      timestamp: TS(1),
      message: { role: "user", content: "next", timestamp: 1 },
    },
  ];
  const headerless = jsonl(entries);
  it("getTree: pi refuses to open the file; ours builds the tree anyway", async (t) => {
    const p = await pi("openTree", headerless);
    t.diagnostic(p.text);
    assert.equal(p.outcome, "throws");
    assert.match(p.text, /Session file is not a valid pi session/);
    await oursQuick("getTree", headerless);
    const tree = ours.getTree(headerless);
    assertTreeSane(tree, entries);
    assert.deepEqual(
      tree.map((n) => n.entry.id),
      ["abc"],
    );
    assert.equal(tree[0].children[0].entry.id, "def");
  });
  it("migrate: a header-less file with ids keeps its ids and parentIds (pi re-ids everything)", async (t) => {
    t.diagnostic((await pi("migrate", headerless)).text);
    const out = ours.migrate(headerless);
    const lines = out.split("\n").filter((l) => l.trim());
    assert.equal(lines.length, 2);
    assert.equal(JSON.parse(lines[0]).id, "abc");
    assert.equal(JSON.parse(lines[0]).parentId, "orphaned");
    assert.equal(JSON.parse(lines[1]).id, "def");
    assert.equal(JSON.parse(lines[1]).parentId, "abc");
  });
  it("buildSessionContext on a header-less file", async (t) => {
    const p = await pi("buildSessionContext", headerless);
    t.diagnostic(p.text);
    await oursQuick("buildSessionContext", headerless);
    assert.deepEqual(
      ours.buildSessionContext(headerless).messages.map((x) => x.content),
      ["test", "next"],
    );
  });
  it("header with a non-string id, BOM before the header, garbage first line", async (t) => {
    const variants = {
      "numeric header id": jsonl([
        { type: "session", version: 3, id: 5, timestamp: TS(0), cwd: "/" },
        m("a", null, "user", "x", 1),
      ]),
      "BOM before header": `\ufeff${jsonl([header(), m("a", null, "user", "x", 1)])}`,
      "garbage first line": jsonl(["garbage content", header(), m("a", null, "user", "x", 1)]),
    };
    for (const [name, text] of Object.entries(variants)) {
      const p = await pi("openTree", text);
      for (const op of ["getTree", "buildSessionContext", "migrate", "parse"]) await oursQuick(op, text);
      const tree = ours.getTree(text);
      t.diagnostic(`${name}: ${p.text} | ours getTree: ${JSON.stringify(tree).slice(0, 120)}`);
      assertTreeSane(
        tree,
        ours.parseSession(text).filter((e) => e?.type !== "session"),
      );
    }
  });
});

describe("oh-my-pi's title line before the header", () => {
  // oh-my-pi writes a fixed-width title slot first; pi's repository now reads the lines before
  // the header as entries and finds the header after them. pi 1.6 refuses the file.
  const title = JSON.stringify({ type: "title", v: 1, title: "Fix", source: "auto", updatedAt: TS(0), pad: "    " });
  const body = [header(), m("a", null, "user", "q", 1), m("b", "a", "assistant", "r", 2)];
  const text = jsonl([title, ...body]);
  const shape = (nodes) => nodes.map((n) => [n.entry.type, n.entry.id ?? null, shape(n.children)]);

  it("pi 1.6 refuses to open it; ours opens it with its header", async (t) => {
    const p = await pi("openTree", text);
    t.diagnostic(p.text);
    assert.equal(p.outcome, "throws");
    assert.match(p.text, /Session file is not a valid pi session/);
    const session = ours.Session.open(text);
    try {
      assert.equal(session.header.id, "session-broken");
      assert.equal(session.leafId, "b");
      assert.equal(session.toJsonl(), text, "nothing rewritten");
    } finally {
      session.free?.();
    }
  });

  it("getTree and buildSessionContext equal pi's on the same entries", async () => {
    for (const op of ["getTree", "buildSessionContext"]) {
      const p = await pi(op, text);
      assert.equal(p.outcome, "returns", p.text);
      await oursQuick(op, text);
    }
    const piTree = JSON.parse((await pi("getTree", text)).json);
    assert.deepEqual(shape(ours.getTree(text)), shape(piTree));
    assert.deepEqual(shape(piTree), [
      ["title", null, []],
      ["message", "a", [["message", "b", []]]],
    ]);
    const piContext = JSON.parse((await pi("buildSessionContext", text)).json);
    assert.deepEqual(JSON.parse(JSON.stringify(ours.buildSessionContext(text))), piContext);
  });

  it("migrate keeps the title line byte for byte (v3 untouched, v2 migrated after it)", () => {
    assert.equal(ours.migrate(text), text);
    const v2 = jsonl([title, header({ version: 2 }), m("a", null, "user", "q", 1)]);
    const out = ours.migrate(v2);
    assert.ok(out.startsWith(`${title}\n`), out);
    assert.equal(JSON.parse(out.split("\n")[1]).version, 3);
  });

  it("inspectSession reports the title line, and only it", () => {
    assert.deepEqual(
      ours.inspectSession(text).map((d) => [d.kind, d.line]),
      [
        ["before-header", 1],
        ["misplaced-header", 2],
      ],
    );
  });
});

describe("version 1 files whose entries already have ids", () => {
  // A header without a version is version 1; pi re-identifies every entry and
  // chains them in file order, which turns branches into a line. Ours keeps a
  // string id and its parentId and gives new ids only to entries without one.
  const entries = [
    { type: "session", id: "s1", timestamp: TS(0), cwd: "/tmp" },
    m("a", null, "user", "root"),
    m("b", "a", "assistant", "left", 2),
    m("c", "a", "user", "right", 3),
    { type: "message", timestamp: TS(4), message: { role: "user", content: "no id", timestamp: 4 } },
  ];
  const text = jsonl(entries);
  it("migrate keeps ids and branches; pi flattens them", async (t) => {
    const p = await pi("migrate", text);
    t.diagnostic(p.text);
    const piIds = p.text
      .split("\n")
      .filter(Boolean)
      .slice(1)
      .map((l) => JSON.parse(l).id);
    assert.ok(!piIds.includes("b"), "pi replaces the existing ids");
    const out = ours.parseSession(ours.migrate(text));
    assert.deepEqual(
      out.slice(1, 4).map((e) => [e.id, e.parentId]),
      [
        ["a", null],
        ["b", "a"],
        ["c", "a"],
      ],
    );
    assert.match(out[4].id, /^[0-9a-f]{8}$/);
    assert.equal(out[4].parentId, "c");
    assert.equal(out[0].version, 3);
  });
  it("getTree keeps the branch", () => {
    const roots = ours.getTree(text);
    assert.deepEqual(
      roots.map((n) => n.entry.id),
      ["a"],
    );
    assert.deepEqual(
      roots[0].children.map((n) => n.entry.id),
      ["b", "c"],
    );
  });
  it("buildSessionContext follows the kept parents", () => {
    assert.deepEqual(ids(ours.buildSessionContext(text, "b")), ["root", "left"]);
  });
});
