// www/controller.js with fake parts (no DOM): the panels never show one session's context
// under another's title. Opening clears them before the new leaf is fetched; a context
// that fails clears them and says why; the first rows of a file read by piece clear them
// too; a failed open after its first rows says why in them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Controller } from "../../../www/controller.js";
import { REQUEST } from "../../../www/messages.js";
import { createStore } from "../../../www/store.js";

/** An object whose every method is recorded in `log` as `[name, ...args]` and returns `result(name)`. */
function recorder(name, log, result = () => undefined) {
  return new Proxy(
    {},
    {
      get: (_, key) =>
        key === "then"
          ? undefined
          : (...args) => {
              log.push([`${name}.${String(key)}`, ...args]);
              return result(String(key));
            },
    },
  );
}

const info = (name) => ({
  name,
  count: 1,
  diagnostics: [],
  stats: { tokens: null },
  timings: {},
  defaultLeaf: "a",
});

/** A controller whose worker answers `open` with one entry "a" and `select` as `select(msg)` says. */
function setup(select) {
  const log = [];
  const client = {
    async request(msg) {
      log.push(["request", msg.type]);
      if (msg.type === REQUEST.open) return { info: info(msg.name), nodes: {}, view: {} };
      if (msg.type === REQUEST.select) return select(msg);
      throw new Error(`unexpected ${msg.type}`);
    },
  };
  const view = recorder("view", log, (key) => (key === "link" ? {} : key === "comparePair" ? null : undefined));
  const graph = recorder("graph", log, (key) => (key === "has" ? true : key === "isHidden" ? false : undefined));
  const panels = {};
  for (const p of ["context", "system", "composition", "entry", "stats", "diagnostics", "compare", "share"]) {
    panels[p] = recorder(p, log);
  }
  const controller = new Controller({ store: createStore(), client, view, graph, panels });
  return { controller, log };
}

const cleared = (log, from = 0) =>
  log.slice(from).filter(([name]) => /^(context|system|composition)\.renderNothing$|^entry\.renderEmpty$/.test(name));

test("opening clears the panels before the new leaf's context is asked for", async () => {
  const { controller, log } = setup(() => ({ pathNodes: [], state: [], edits: new Map() }));
  await controller.open("{}", "b.jsonl");
  const select = log.findIndex(([n, type]) => n === "request" && type === REQUEST.select);
  const clears = cleared(log.slice(0, select));
  assert.equal(clears.length, 4, "context, system, composition and entry emptied");
  assert.ok(log.findIndex(([n]) => n === "context.render") > select, "then the new context is drawn");
});

test("a context that fails clears the panels and says why, in them and in a banner", async () => {
  const { controller, log } = setup(() => {
    throw new Error("Invalid string length");
  });
  await controller.open("{}", "big.jsonl");
  const why = "Could not build the context: Invalid string length";
  const select = log.findIndex(([n, type]) => n === "request" && type === REQUEST.select);
  const after = cleared(log, select);
  assert.deepEqual(
    after.map(([name, text]) => [name, text]),
    [
      ["context.renderNothing", why],
      ["system.renderNothing", why],
      ["composition.renderNothing", why],
      ["entry.renderEmpty", why],
    ],
  );
  assert.ok(log.some(([n, kind, text]) => n === "view.banner" && kind === "error" && text === why));
  assert.ok(!log.some(([n]) => n === "context.render"), "nothing drawn");
});

test("the first rows of a file read by piece clear the panels; a failed open then says why there", async () => {
  const { controller, log } = setup(() => ({}));
  let fail;
  controller.client.request = (msg) => {
    log.push(["request", msg.type]);
    return new Promise((_, reject) => {
      fail = reject;
    });
  };
  // A preview outside an open is dropped.
  controller.preview({ info: info("x.jsonl"), nodes: {}, view: {} });
  assert.equal(controller.store.get().info, null);
  const opening = controller.open(new ArrayBuffer(0), "huge.jsonl");
  await new Promise((r) => setImmediate(r));
  const from = log.length;
  controller.preview({ info: info("huge.jsonl"), nodes: {}, view: {} });
  assert.equal(controller.store.get().info.name, "huge.jsonl");
  assert.equal(controller.store.get().info.partial, true);
  assert.equal(cleared(log, from).length, 4);
  const mark = log.length;
  fail(new Error("huge.jsonl changed while it was read"));
  await opening;
  const why = "Could not open huge.jsonl: huge.jsonl changed while it was read";
  assert.deepEqual(
    cleared(log, mark).map(([, text]) => text),
    [why, why, why, why],
  );
});

/**
 * A controller with a file open whose entries are `ids` and whose leaf is `leaf`;
 * `view.hashLeaf()` answers `hash()`.
 */
async function opened(ids, leaf, hash = () => null) {
  const log = [];
  const has = new Set(ids);
  const client = {
    async request(msg) {
      log.push(["request", msg.type, msg.entryId]);
      if (msg.type === REQUEST.open) return { info: { ...info(msg.name), defaultLeaf: leaf }, nodes: {}, view: {} };
      if (msg.type === REQUEST.select) return { pathNodes: [], state: [], edits: new Map() };
      throw new Error(`unexpected ${msg.type}`);
    },
  };
  const view = recorder("view", log, (key) =>
    key === "link"
      ? { leafId: hash(), targetId: null, ours: false }
      : key === "comparePair"
        ? null
        : key === "hashLeaf"
          ? hash()
          : undefined,
  );
  const recorded = recorder("graph", log, (key) => (key === "isHidden" ? false : undefined));
  const graph = new Proxy({}, { get: (_, key) => (key === "has" ? (id) => has.has(id) : recorded[key]) });
  const panels = {};
  for (const p of ["context", "system", "composition", "entry", "stats", "diagnostics", "compare", "share"]) {
    panels[p] = recorder(p, log);
  }
  const controller = new Controller({ store: createStore(), client, view, graph, panels });
  await controller.open("{}", "f.jsonl");
  log.length = 0;
  return { controller, log };
}

test("#leaf= typed for an entry the file has makes it the leaf, the address left as typed", async () => {
  const { controller, log } = await opened(["a", "b", "c"], "c");
  await controller.followLeafHash("b");
  assert.equal(controller.store.get().leafId, "b");
  assert.ok(log.some(([n, type, id]) => n === "request" && type === REQUEST.select && id === "b"));
  assert.ok(log.some(([n, id]) => n === "graph.reveal" && id === "b"));
  assert.ok(!log.some(([n]) => n === "view.setHashLeaf" || n === "view.banner"));
});

test("#leaf= typed for an entry the file lacks: a banner says so and the address names the leaf shown", async () => {
  // It was ignored without a word, and the address kept naming the missing entry.
  const { controller, log } = await opened(["a", "b", "c"], "c");
  await controller.followLeafHash("nowhere");
  assert.equal(controller.store.get().leafId, "c", "the leaf shown stays");
  const banners = log.filter(([n]) => n === "view.banner");
  assert.equal(banners.length, 1);
  assert.equal(banners[0][1], "info");
  assert.equal(banners[0][2], "The link's entry nowhere is not in this file; the leaf shown is kept.");
  assert.deepEqual(
    log.filter(([n]) => n === "view.setHashLeaf"),
    [["view.setHashLeaf", "c"]],
  );
  assert.ok(!log.some(([n, type]) => n === "request" && type === REQUEST.select), "nothing fetched");
});

test("#leaf= naming the leaf already shown, or no #leaf=, does nothing", async () => {
  const { controller, log } = await opened(["a", "c"], "c");
  await controller.followLeafHash("c");
  await controller.followLeafHash(null);
  // Questions asked of the view are no doing.
  assert.deepEqual(
    log.filter(([n]) => n !== "view.listShown"),
    [],
  );
});

test("#leaf= changed while a file is being opened is followed once the open ends", async () => {
  let hash = null;
  const { controller, log } = await opened(["a", "b", "c"], "c", () => hash);
  // The open has read the address and is fetching its leaf's context when the hash changes.
  let release;
  const base = controller.client.request;
  controller.client.request = async (msg) => {
    if (msg.type === REQUEST.select) await new Promise((r) => (release = r));
    return base(msg);
  };
  const opening = controller.open("{}", "g.jsonl");
  while (!release) await new Promise((r) => setImmediate(r));
  hash = "nowhere";
  await controller.followLeafHash(hash);
  assert.ok(!log.some(([n]) => n === "view.banner"), "not judged before the open ends");
  release();
  await opening;
  assert.ok(log.some(([n, , text]) => n === "view.banner" && /nowhere is not in this file/.test(text)));
  assert.equal(log.filter(([n]) => n === "view.setHashLeaf").at(-1)[1], "c");
});

test("#leaf= changed while a file that then fails is read is not judged against its first rows", async () => {
  // Its first rows were shown (a preview), the open failed: those rows are not the file,
  // and no entry of it can be said to be missing.
  let hash = null;
  const { controller, log } = await opened(["a", "b", "c"], "c", () => hash);
  let fail;
  controller.client.request = (msg) =>
    new Promise((_, reject) => {
      log.push(["request", msg.type]);
      fail = reject;
    });
  const opening = controller.open(new ArrayBuffer(0), "huge.jsonl");
  while (!fail) await new Promise((r) => setImmediate(r));
  controller.preview({ info: info("huge.jsonl"), nodes: {}, view: {} });
  hash = "nowhere";
  await controller.followLeafHash(hash);
  fail(new Error("huge.jsonl changed while it was read"));
  await opening;
  const banners = log.filter(([n]) => n === "view.banner").map(([, , text]) => text);
  assert.deepEqual(banners, ["Could not open huge.jsonl: huge.jsonl changed while it was read"]);
});
