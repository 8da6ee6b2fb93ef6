// getTree: pi's SessionManager.getTree() rules.

import assert from "node:assert/strict";
import { test } from "node:test";
import { getTree } from "session-tree";
import { envSeed, Rng } from "../shared/rng.mjs";
import { assistant, at, entry, header, inputForms, ms, runInWorker, shape, user } from "./helpers/session.mjs";

// u1 ─ a1 ─┬─ u2 (t=5) ─ a2
//          └─ u3 (t=3)            (file order u2 before u3; sorted by time)
// orphan (parent missing), self (parent = itself), labels on u1 and a1.
const session = [
  header(),
  user("u1", null, "q1", 1),
  assistant("a1", "u1", "r1", 2),
  user("u2", "a1", "q2", 5),
  user("u3", "a1", "q3", 3),
  assistant("a2", "u2", "r2", 6),
  entry("label", "l1", "a2", 7, { targetId: "u1", label: "first" }),
  entry("label", "l2", "l1", 8, { targetId: "a1", label: "gone" }),
  entry("label", "l3", "l2", 9, { targetId: "u1", label: "second" }),
  entry("label", "l4", "l3", 10, { targetId: "a1", label: "" }),
  entry("label", "l5", "l4", 11, { targetId: "missing", label: "nobody" }),
  entry("custom", "orphan", "not-there", 12, { customType: "c" }),
  entry("session_info", "self", "self", 13, { name: "n" }),
];

const expectedShape = [
  {
    id: "u1",
    children: [
      {
        id: "a1",
        children: [
          { id: "u3", children: [] },
          {
            id: "u2",
            children: [
              {
                id: "a2",
                children: [
                  {
                    id: "l1",
                    children: [
                      {
                        id: "l2",
                        children: [{ id: "l3", children: [{ id: "l4", children: [{ id: "l5", children: [] }] }] }],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  },
  { id: "orphan", children: [] },
  { id: "self", children: [] },
];

test("every input form gives the same tree", () => {
  for (const [form, source] of Object.entries(inputForms(session))) {
    const roots = getTree(source);
    assert.deepStrictEqual(shape(roots), expectedShape, form);
    assert.deepStrictEqual(roots[0].entry, session[1], `${form}: nodes hold the entries`);
  }
});

test("labels: latest wins, an empty label clears, labelTimestamp is the label entry's", () => {
  const [u1] = getTree(session);
  const a1 = u1.children[0];
  assert.equal(u1.label, "second");
  assert.equal(u1.labelTimestamp, at(9));
  assert.equal(a1.label, undefined);
  assert.equal(a1.labelTimestamp, undefined);
  assert.equal(a1.children[0].label, undefined, "unlabelled node");
});

test("a label can be set again after being cleared, and a missing label clears", () => {
  const roots = getTree([
    header(),
    user("u1", null, "q", 1),
    entry("label", "l1", "u1", 2, { targetId: "u1", label: "a" }),
    entry("label", "l2", "l1", 3, { targetId: "u1" }),
    entry("label", "l3", "l2", 4, { targetId: "u1", label: "b" }),
    entry("label", "l4", "l3", 5, { targetId: "l1", label: "x" }),
    entry("label", "l5", "l4", 6, { targetId: "l1", label: null }),
  ]);
  assert.equal(roots[0].label, "b");
  assert.equal(roots[0].labelTimestamp, at(4));
  assert.equal(roots[0].children[0].label, undefined);
});

test("children are sorted by time (oldest first), ties keep file order, roots keep file order", () => {
  const roots = getTree([
    header(),
    entry("custom", "late-root", null, 50, { customType: "c" }),
    entry("custom", "early-root", null, 1, { customType: "c" }),
    entry("custom", "c-10", "late-root", 10, { customType: "c" }),
    entry("custom", "c-tie-a", "late-root", 5, { customType: "c" }),
    entry("custom", "c-2", "late-root", 2, { customType: "c" }),
    entry("custom", "c-tie-b", "late-root", 5, { customType: "c" }),
    // 10:00+02:00 is 08:00Z, before 09:00Z.
    { type: "custom", id: "offset", parentId: "early-root", timestamp: "2025-01-01T10:00:00+02:00", customType: "c" },
    { type: "custom", id: "utc", parentId: "early-root", timestamp: "2025-01-01T09:00:00.000Z", customType: "c" },
  ]);
  assert.deepStrictEqual(
    roots.map((n) => n.entry.id),
    ["late-root", "early-root"],
  );
  assert.deepStrictEqual(
    roots[0].children.map((n) => n.entry.id),
    ["c-2", "c-tie-a", "c-tie-b", "c-10"],
  );
  assert.deepStrictEqual(
    roots[1].children.map((n) => n.entry.id),
    ["offset", "utc"],
  );
});

test("empty sessions give no roots", () => {
  assert.deepStrictEqual(getTree(""), []);
  assert.deepStrictEqual(getTree([]), []);
  assert.deepStrictEqual(getTree([header()]), []);
  assert.deepStrictEqual(getTree(new Uint8Array()), []);
});

test("entry arrays: nodes reuse the caller's entries and the array is not modified", () => {
  const entries = structuredClone(session);
  const snapshot = structuredClone(entries);
  const roots = getTree(entries);
  assert.equal(roots[0].entry, entries[1]);
  assert.equal(roots[0].children[0].entry, entries[2]);
  assert.equal(roots[1].entry, entries[11]);
  assert.deepStrictEqual(entries, snapshot);
  assert.equal(entries.length, session.length);
});

test("a linear session of 1,000,000 entries works (no stack overflow)", async () => {
  const reply = await runInWorker("deepTree", { length: 1_000_000 }, 180_000);
  assert.ok(reply.ok, `${reply.name}: ${reply.message}`);
  assert.deepStrictEqual(reply.value.tree, { rootIds: ["e1"], rootCount: 1, count: 1_000_000, maxDepth: 1_000_000 });
  assert.deepStrictEqual(reply.value.context.roles, ["user"]);
});

test("a parentId cycle terminates", async () => {
  const source = [
    header(),
    entry("custom", "a", "b", 1, { customType: "c" }),
    entry("custom", "b", "a", 2, { customType: "c" }),
    entry("custom", "r", null, 3, { customType: "c" }),
    entry("custom", "x", "a", 4, { customType: "c" }),
  ];
  const reply = await runInWorker("getTree", { source });
  assert.ok(reply.ok, `${reply.name}: ${reply.message}`);
  // pi itself returns only ["r"] (the cycle is unreachable); breaking the
  // cycle into a root is allowed too. Only termination is required.
  assert.ok(reply.value.rootIds.includes("r"));
  assert.ok(reply.value.count <= 4);
});

test("duplicate ids terminate", async () => {
  const source = [
    header(),
    entry("custom", "d", null, 1, { customType: "c" }),
    entry("custom", "d", "d", 2, { customType: "c" }),
    entry("custom", "e", "d", 3, { customType: "c" }),
    entry("custom", "d", "e", 4, { customType: "c" }),
  ];
  const reply = await runInWorker("getTree", { source });
  assert.ok(reply.ok, `${reply.name}: ${reply.message}`);
});

test("wrong argument types throw a TypeError naming the argument", () => {
  for (const bad of [42, null, undefined, {}, true, new ArrayBuffer(1)]) {
    assert.throws(
      () => getTree(bad),
      (error) => error instanceof TypeError && /source/.test(error.message),
      String(bad),
    );
  }
  assert.deepStrictEqual(shape(getTree(session)), expectedShape, "still works");
});

test("from text, entries are parsed when first read, through an accessor that acts as data", () => {
  const { Uint8Array: bytes, string } = inputForms(session);
  for (const source of [bytes, string]) {
    const [u1] = getTree(source);
    const accessor = Object.getOwnPropertyDescriptor(u1, "entry");
    assert.equal(typeof accessor.get, "function", "not parsed until read");
    assert.equal(typeof accessor.set, "function", "writable");
    assert.ok(accessor.enumerable && accessor.configurable);
    assert.deepStrictEqual(Object.keys(u1), ["entry", "children", "label", "labelTimestamp"]);
    assert.deepStrictEqual(Reflect.ownKeys(u1), ["entry", "children", "label", "labelTimestamp"], "nothing hidden");
    assert.equal(Object.getPrototypeOf(u1), Object.prototype);
    const e = u1.entry;
    assert.equal(e.id, "u1");
    assert.equal(u1.entry, e, "parsed once: the same object on every read");
    assert.deepStrictEqual(Object.keys(u1), ["entry", "children", "label", "labelTimestamp"], "key order kept");
    // Deep equality with a plain node holding the same entry.
    assert.deepStrictEqual(u1.children[0], {
      entry: u1.children[0].entry,
      children: u1.children[0].children,
      label: undefined,
      labelTimestamp: undefined,
    });
    // Written after reading: the new value stays.
    u1.entry = { written: true };
    assert.deepStrictEqual(u1.entry, { written: true });
    // The getter of one node, called on another object, reads nothing.
    assert.equal(accessor.get.call({}), undefined);
    // Writing before reading replaces the entry, as on a plain object.
    const [fresh] = getTree(source);
    fresh.entry = { replaced: true };
    assert.deepStrictEqual(fresh.entry, { replaced: true });
    // Copies and serializations see parsed entries.
    const [other] = getTree(source);
    const cloned = structuredClone(other);
    assert.equal(cloned.entry.id, "u1");
    assert.equal(cloned.children[0].entry.id, "a1");
    assert.equal(JSON.parse(JSON.stringify(getTree(source)[1])).entry.id, "orphan");
  }
});

test("a lazy tree does not depend on the caller's bytes or later calls", () => {
  const bytes = inputForms(session).Uint8Array;
  const copy = new Uint8Array(bytes);
  const [u1] = getTree(copy);
  copy.fill(0x20); // the caller reuses its buffer
  for (let k = 0; k < 5; k++) getTree(inputForms(session).string); // wasm memory is reused
  assert.equal(u1.entry.id, "u1");
  assert.equal(u1.children[0].children[1].entry.message.content, "q2");
});

test("a lazy tree still reads its entries after much bigger calls grew and reused wasm memory", () => {
  const [u1] = getTree(inputForms(session).Uint8Array);
  const big = [
    header(),
    ...Array.from({ length: 20000 }, (_, i) => user(`x${i}`, i ? `x${i - 1}` : null, "y".repeat(200), i + 1)),
  ];
  getTree(inputForms(big).Uint8Array);
  getTree(inputForms(big).string);
  assert.equal(u1.entry.id, "u1");
  assert.equal(u1.children[0].entry.id, "a1");
  assert.equal(u1.children[0].children[0].entry.id, "u3");
});

test("pi 1.6 entries are ordinary nodes: usage, context_edit, system messages", () => {
  // pi's getTree has no rule for them (only its TUI hides usage entries): each is a node
  // under its parent, ordered by time like any other.
  const system = {
    type: "message",
    id: "s1",
    parentId: null,
    timestamp: at(1),
    message: { role: "system", content: "base", sections: { a: "A" }, timestamp: ms(at(1)) },
  };
  const entries = [
    header(),
    system,
    user("u1", "s1", "q", 2),
    entry("usage", "g1", "u1", 4, { kind: "cache_warm", provider: "p", model: "m", usage: { input: 0 } }),
    entry("context_edit", "e1", "u1", 3, { targetId: "u1", replacement: null }),
    entry("context_edit", "e2", "g1", 5, { targetId: "u1", replacement: { content: "x" } }),
  ];
  for (const [form, source] of Object.entries(inputForms(entries))) {
    const roots = getTree(source);
    assert.deepStrictEqual(
      shape(roots),
      [
        {
          id: "s1",
          children: [
            {
              id: "u1",
              children: [
                { id: "e1", children: [] },
                { id: "g1", children: [{ id: "e2", children: [] }] },
              ],
            },
          ],
        },
      ],
      form,
    );
    assert.deepStrictEqual(roots[0].children[0].children[1].entry, entries[3], `${form}: the usage entry`);
  }
});

// Past a MiB the entries cross into JS as several JSON arrays (pieces): ASCII,
// ASCII with escapes, or UTF-16, as the text asks. Whichever way, and in any
// order of reading, each entry is what JSON.parse makes of its line.
test("entries of a multi-MiB tree, in every crossing, read in any order, equal their lines", () => {
  const seed = envSeed("TREE_PIECES_SEED");
  const rng = new Rng(seed);
  const words = {
    ascii: ["alpha", "beta", "gamma", "delta", 'q"uote', "back\\slash", "tab\t"],
    accents: ["alpha", "beta", "gamma", "café", "naïve", "\u{1F600}", "delta"],
    cjk: ["会话", "树", "분기", "ветка", "\u{1F680}", "abc", "ü", "an ASCII run of more than sixteen bytes"],
  };
  for (const [name, pool] of Object.entries(words)) {
    const entries = [header()];
    let parent = null;
    let size = 0;
    for (let i = 0; size < 3.5 * 2 ** 20; i++) {
      const n = rng.int(1, i % 97 === 0 ? 200_000 : 400);
      const text = Array.from({ length: n }, () => rng.pick(pool)).join(" ");
      const id = `e${i}`;
      entries.push(user(id, parent, text, i + 1));
      size += text.length;
      parent = rng.chance(0.9) ? id : parent;
    }
    const expected = new Map(entries.slice(1).map((e) => [e.id, e]));
    for (const [form, source] of Object.entries(inputForms(entries))) {
      const nodes = shuffledNodes(getTree(source), rng);
      assert.equal(nodes.length, expected.size, `${name} ${form}: every entry is a node (seed ${seed})`);
      const seen = new Set();
      for (const node of nodes) {
        const { id } = node.entry;
        assert.ok(!seen.has(id), `${name} ${form}: ${id} once (seed ${seed})`);
        seen.add(id);
        assert.deepStrictEqual(node.entry, expected.get(id), `${name} ${form}: ${id} (seed ${seed})`);
      }
    }
  }
});

// Texts whose strings take more than 16 MB cross in other piece sizes: UTF-16
// in pieces of more than a million units (strings Node keeps outside the JS
// heap), ASCII in many small ones. Each entry is still what JSON.parse makes of
// its line.
test("entries of a tree of more than 16 MB of string, far from ASCII or ASCII, equal their lines", () => {
  const seed = envSeed("TREE_LARGE_SEED");
  const rng = new Rng(seed);
  const pools = {
    cjk: ["会话树", "분기점", "ветка", "\u{1F680}", "abc", "ü", "节点"],
    ascii: ["alpha", "beta", 'q"uote', "back\\slash"],
  };
  for (const [name, pool] of Object.entries(pools)) {
    const entries = [header()];
    let parent = null;
    let bytes = 0;
    // 9 MiB of UTF-8 far from ASCII: over 16 MiB as UTF-16; ASCII: 17 MiB
    const goal = name === "ascii" ? 17 * 2 ** 20 : 9 * 2 ** 20;
    for (let i = 0; bytes < goal; i++) {
      const n = rng.int(1, i % 89 === 0 ? 300_000 : 600);
      const text = Array.from({ length: n }, () => rng.pick(pool)).join(" ");
      const id = `L${i}`;
      entries.push(user(id, parent, text, i + 1));
      bytes += Buffer.byteLength(text);
      parent = rng.chance(0.9) ? id : parent;
    }
    const expected = new Map(entries.slice(1).map((e) => [e.id, e]));
    const text = `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
    for (const [form, source] of [
      ["string", text],
      ["Buffer", Buffer.from(text)],
    ]) {
      const nodes = shuffledNodes(getTree(source), rng);
      assert.equal(nodes.length, expected.size, `${name} ${form}: every entry is a node (seed ${seed})`);
      for (const node of nodes) {
        assert.deepStrictEqual(node.entry, expected.get(node.entry.id), `${name} ${form} (seed ${seed})`);
      }
    }
  }
});

test("an ASCII file's entries read right whatever lies between its lines", () => {
  // ASCII pieces are framed in the text itself: the gap between two lines
  // becomes a comma and spaces, whatever it held.
  const seed = envSeed("TREE_GAPS_SEED");
  const rng = new Rng(seed);
  const gaps = ["\n", "\r\n", "\n\n", "  \n", "\n{broken\n", "\n   \n", '\n"a string"x\n', "\t\r\n"];
  const entries = [header()];
  let text = `${JSON.stringify(entries[0])}\n`;
  let parent = null;
  for (let i = 0; text.length < 2.5 * 2 ** 20; i++) {
    const id = `g${i}`;
    const body = Array.from({ length: rng.int(1, i % 50 === 0 ? 40_000 : 300) }, () =>
      rng.pick(["x", "y z", "q"]),
    ).join("");
    entries.push(user(id, parent, body, i + 1));
    parent = rng.chance(0.8) ? id : parent;
    text += JSON.stringify(entries.at(-1)) + rng.pick(gaps);
  }
  const expected = new Map(entries.slice(1).map((e) => [e.id, e]));
  // with and without a newline at the very end
  for (const source of [text, text.trimEnd(), Buffer.from(text)]) {
    const nodes = shuffledNodes(getTree(source), rng);
    assert.equal(nodes.length, expected.size, `every entry is a node (seed ${seed})`);
    for (const node of nodes) {
      assert.deepStrictEqual(node.entry, expected.get(node.entry.id), `seed ${seed}`);
    }
    assert.deepStrictEqual(preorder(getTree(source)), preorder(getTree(entries)), `seed ${seed}`);
  }
});

/**
 * Every node of the tree, in a random order: the first reads parse single
 * entries, the later ones whole pieces (iteratively: chains run deep).
 */
function shuffledNodes(roots, rng) {
  const nodes = [];
  const stack = [...roots];
  while (stack.length) {
    const node = stack.pop();
    nodes.push(node);
    stack.push(...node.children);
  }
  for (let k = nodes.length - 1; k > 0; k--) {
    const j = rng.range(0, k);
    [nodes[k], nodes[j]] = [nodes[j], nodes[k]];
  }
  return nodes;
}

/** Each node's id and child count, in preorder (iteratively: chains run deep). */
function preorder(roots) {
  const out = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop();
    out.push(`${node.entry.id}:${node.children.length}`);
    for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k]);
  }
  return out;
}
