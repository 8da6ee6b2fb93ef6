// A wasm trap becomes a JS Error and the instance is replaced: the next calls work on a fresh
// instance, and sessions opened before the trap throw a clear Error instead of crashing.
// Runs against the test build with `__forceTrap` (make test-reliability builds it).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const candidates = ["../../target/trap-pkg/node.cjs", "../../target/trap-pkg/node/session_tree.js"].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)),
);
const found = candidates.find((p) => existsSync(p));

const J = JSON.stringify;
const TEXT = [
  { type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" },
  {
    type: "message",
    id: "a",
    parentId: null,
    timestamp: "2025-01-01T00:00:01.000Z",
    message: { role: "user", content: "hi", timestamp: 1 },
  },
  {
    type: "message",
    id: "b",
    parentId: "a",
    timestamp: "2025-01-01T00:00:02.000Z",
    message: { role: "assistant", content: [{ type: "text", text: "yo" }], provider: "p", model: "m", timestamp: 2 },
  },
  { type: "label", id: "l", parentId: "b", targetId: "a", label: "start", timestamp: "2025-01-01T00:00:03.000Z" },
]
  .map((e) => J(e))
  .join("\n");
const V1 = '{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user","content":"x"}}\n';

function checkWorks(st, when) {
  assert.equal(st.parseSession(TEXT).length, 4, when);
  assert.equal(
    J(st.buildSessionContext(TEXT)),
    J({
      messages: [JSON.parse(TEXT.split("\n")[1]).message, JSON.parse(TEXT.split("\n")[2]).message],
      thinkingLevel: "off",
      model: { provider: "p", modelId: "m" },
    }),
    when,
  );
  const [root] = st.getTree(TEXT);
  assert.equal(root.label, "start", when);
  assert.equal(root.children[0].children[0].entry.id, "l", when);
  assert.match(st.migrate(V1), /"version":3/, when);
  assert.deepEqual(st.inspectSession(TEXT), [], when);
}

/** The test build; its absence fails each test (make test-reliability builds it), never skips it. */
function trapBuild() {
  assert.ok(
    found,
    `no test build with __forceTrap at ${candidates.join(" or ")}: run \`make test-reliability\` (it builds target/trap-pkg with --features test-trap)`,
  );
  return require(found);
}

test("__forceTrap throws an Error, and the module works again at once", () => {
  const st = trapBuild();
  assert.equal(typeof st.__forceTrap, "function", "the trap build exports __forceTrap");
  checkWorks(st, "before any trap");
  assert.throws(
    () => st.__forceTrap(),
    (e) => e instanceof Error,
  );
  checkWorks(st, "after one trap");
});

test("50 traps in a row, then 10,000 normal calls", { timeout: 120_000 }, () => {
  const st = trapBuild();
  for (let i = 0; i < 50; i++) {
    assert.throws(
      () => st.__forceTrap(),
      (e) => e instanceof Error,
      `trap ${i}`,
    );
  }
  checkWorks(st, "after 50 traps");
  for (let i = 0; i < 10_000; i++) {
    const kind = i % 4;
    if (kind === 0) assert.equal(st.parseSession(TEXT).length, 4);
    else if (kind === 1) assert.equal(st.buildSessionContext(TEXT).messages.length, 2);
    else if (kind === 2) assert.equal(st.getTree(TEXT).length, 1);
    else assert.equal(st.migrate(TEXT), TEXT);
  }
  // Traps between normal calls, alternating.
  for (let i = 0; i < 20; i++) {
    assert.throws(() => st.__forceTrap(), Error);
    checkWorks(st, `after trap ${i} of the alternating run`);
  }
});

test("a Session opened before a trap throws a clear Error; new sessions work", () => {
  const st = trapBuild();
  const before = st.Session.open(TEXT);
  assert.equal(before.getEntries().length, 3);
  assert.throws(() => st.__forceTrap(), Error);
  for (const use of [
    () => before.getEntries(),
    () => before.buildSessionContext(),
    () => before.appendMessage({ role: "user", content: "x", timestamp: 1 }),
    () => before.toJsonl(),
    () => before.leafId,
  ]) {
    assert.throws(use, (e) => {
      assert.ok(e instanceof Error, `not an Error: ${String(e)}`);
      assert.ok(
        !(e instanceof WebAssembly.RuntimeError) || /reset|stale|no longer/i.test(e.message),
        `a raw trap, not a clear error: ${e.message}`,
      );
      assert.match(e.message, /session|reset|stale|no longer|instance/i);
      return true;
    });
  }
  // free() of a stale session must not throw a trap or break anything either.
  try {
    before.free();
  } catch (e) {
    assert.ok(e instanceof Error);
  }
  const after = st.Session.open(TEXT);
  assert.equal(after.getEntries().length, 3);
  assert.equal(after.buildSessionContext().messages.length, 2);
  after.appendMessage({ role: "user", content: "again", timestamp: 3 });
  assert.equal(after.buildSessionContext().messages.length, 3);
  after.free();
  checkWorks(st, "after the stale session was used");
});

test("the trap error names the function and keeps the trap as its cause", () => {
  const st = trapBuild();
  try {
    st.__forceTrap();
    assert.fail("no trap");
  } catch (e) {
    assert.ok(e instanceof Error);
    assert.match(e.message, /__forceTrap|WebAssembly|trap|unreachable/i);
  }
});
