// The JS API misused: callbacks of the caller's (a byte source's read, a
// toJSON, crypto.getRandomValues, migrate's write) that call back into the
// package, objects used after free() or after a reset, arguments of the wrong
// type, sources that change under a tree. The README's promise (Errors): every
// failure is a thrown Error that names the call, nothing traps, and the module
// (and every object not at fault) keeps working.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { getTree, migrate, parseSession, previewEntries, Session, UsageLedger } from "session-tree";

const J = JSON.stringify;
const HEADER = { type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" };
const message = (id, parentId, text, second) => ({
  type: "message",
  id,
  parentId,
  timestamp: `2025-01-01T00:00:0${second}.000Z`,
  message: { role: "user", content: text, timestamp: second },
});
const ENTRIES = [HEADER, message("a", null, "one", 1), message("b", "a", "two", 2), message("c", "a", "three", 3)];
const TEXT = `${ENTRIES.map((e) => J(e)).join("\n")}\n`;
const BYTES = new TextEncoder().encode(TEXT);

/** A byte source over BYTES whose read first runs `hook.run` once, if set. */
function hookedSource() {
  const hook = { run: null };
  const source = {
    size: BYTES.length,
    read(offset, length) {
      const run = hook.run;
      hook.run = null;
      run?.();
      return BYTES.slice(offset, offset + length);
    },
  };
  return { source, hook };
}

const sameObjectRefused = (name, running) => (e) => {
  assert.ok(e instanceof Error, `not an Error: ${e}`);
  assert.match(e.message, new RegExp(`^${name}: called while ${running} is still running on the same Session`));
  return true;
};

test("a Session method called from its own byte source's read is refused, and the session can still be freed", () => {
  const { source, hook } = hookedSource();
  const session = Session.open(source);
  // wasm-bindgen's borrow check used to throw through wasm here: the call failed with
  // "recursive use of an object detected", and the reference it leaked made free() throw forever.
  hook.run = () => session.appendMessage({ role: "user", content: "inner", timestamp: 9 });
  assert.throws(() => session.getEntry("b"), sameObjectRefused("Session#appendMessage", "Session#getEntry"));
  hook.run = () => session.getEntries();
  assert.throws(() => session.getEntry("c"), sameObjectRefused("Session#getEntries", "Session#getEntry"));
  hook.run = () => session.free();
  assert.throws(() => session.getEntry("a"), sameObjectRefused("Session#free", "Session#getEntry"));
  // Nothing was appended by the refused calls, and the session works on.
  assert.deepEqual(
    session.getEntries().map((e) => e.id),
    ["a", "b", "c"],
  );
  assert.equal(session.getEntry("b").message.content, "two");
  const id = session.appendMessage({ role: "user", content: "after", timestamp: 4 });
  assert.equal(session.getLeafEntry().id, id);
  session.free();
  assert.throws(() => session.getEntries(), /^Error: Session#getEntries: this Session was freed/);
});

test("a toJSON of an appended value that calls the same Session is refused; nothing is appended", () => {
  const session = Session.open(TEXT);
  for (const [name, inner] of [
    ["Session#getEntries", () => session.getEntries()],
    ["Session#appendMessage", () => session.appendMessage({ role: "user", content: "x", timestamp: 1 })],
    ["Session#free", () => session.free()],
    ["Session#leafId", () => session.leafId],
  ]) {
    const toJSON = () => {
      inner();
      return { role: "user", content: "y" };
    };
    const value = { role: "user", content: "y", timestamp: 1, toJSON };
    assert.throws(() => session.appendMessage(value), sameObjectRefused(name, "Session#appendMessage"));
    assert.equal(session.getEntries().length, 3, `${name}: nothing appended`);
    assert.equal(session.leafId, "c");
  }
  // Another session, and the functions, may be called from a toJSON.
  const other = Session.create({ cwd: "/" });
  const id = session.appendMessage({
    toJSON: () => {
      other.appendMessage({ role: "user", content: "elsewhere", timestamp: 1 });
      return { role: "user", content: `${getTree(TEXT).length} root`, timestamp: 5 };
    },
  });
  assert.equal(session.getEntry(id).message.content, "1 root");
  assert.equal(other.getEntries().length, 1);
  session.free();
  other.free();
});

test("a UsageLedger called from inside its own add is refused; it can still be freed", () => {
  const ledger = new UsageLedger();
  const entries = structuredClone(ENTRIES);
  Object.defineProperty(entries[1], "message", {
    enumerable: true,
    get: () => {
      ledger.summary();
      return ENTRIES[1].message;
    },
  });
  assert.throws(
    () => ledger.add("p", entries),
    /^Error: UsageLedger#summary: called while UsageLedger#add is still running on the same UsageLedger/,
  );
  assert.equal(ledger.add("q", TEXT), 0);
  ledger.free();
});

test("objects used after free(), or methods called on something else", () => {
  const session = Session.open(TEXT);
  session.free();
  assert.throws(() => session.getEntries(), { name: "Error", message: /^Session#getEntries: this Session was freed/ });
  assert.throws(() => session.leafId, { message: /^Session#leafId: this Session was freed/ });
  assert.throws(() => session.appendMessage({ role: "user" }), /^Error: Session#appendMessage: this Session was freed/);
  // free() again is nothing (a `using` block after an explicit free()).
  assert.equal(session.free(), undefined);
  if (typeof Symbol.dispose === "symbol") assert.equal(session[Symbol.dispose](), undefined);
  const ledger = new UsageLedger();
  ledger.free();
  assert.throws(() => ledger.add("p", TEXT), /^Error: UsageLedger#add: this UsageLedger was freed/);
  ledger.free();
  for (const self of [{}, null, undefined, 5, ledger]) {
    assert.throws(() => Session.prototype.getEntries.call(self), {
      name: "TypeError",
      message: /^Session#getEntries: called on .*, not a Session$/,
    });
  }
  const leafId = Object.getOwnPropertyDescriptor(Session.prototype, "leafId").get;
  assert.throws(() => leafId.call({}), { name: "TypeError", message: /^Session#leafId: called on an object/ });
  // The module is untouched.
  assert.equal(parseSession(TEXT).length, 4);
});

test("crypto.getRandomValues may call back into the package while new ids are drawn", () => {
  const original = crypto.getRandomValues;
  const inner = [];
  let depth = 0;
  crypto.getRandomValues = (array) => {
    // A wrapper (a test's spy, a polyfill) that itself draws ids before it fills.
    if (depth++ === 0) {
      try {
        const s = Session.create({ cwd: "/inner" });
        for (let i = 0; i < 1200; i++) inner.push(s.appendMessage({ role: "user", content: "i", timestamp: i }));
        s.free();
      } finally {
        depth--;
      }
    } else depth--;
    return original.call(crypto, array);
  };
  let ids;
  try {
    // Enough ids to refill the pool of random bytes several times.
    const session = Session.create({ cwd: "/" });
    ids = [];
    for (let i = 0; i < 3000; i++) ids.push(session.appendMessage({ role: "user", content: "o", timestamp: i }));
    assert.equal(session.getEntries().length, 3000);
    session.free();
  } finally {
    crypto.getRandomValues = original;
  }
  assert.equal(new Set(ids).size, ids.length, "the outer session's ids are distinct");
  assert.ok(inner.length >= 1200, "the nested draws ran");
  for (const id of [...ids, ...inner]) assert.match(id, /^[0-9a-f]{8}$/);
  assert.equal(Session.create({ cwd: "/" }).appendMessage({ role: "user", content: "z" }).length, 8);
});

test("previewEntries: ranges of the wrong type are a TypeError naming them; their valueOf is never run", () => {
  const source = { size: BYTES.length, read: (offset, length) => BYTES.slice(offset, offset + length) };
  const [root] = getTree(source, { preview: ["id"] });
  const options = { preview: ["id"] };
  let ran = false;
  const sneaky = {
    valueOf: () => {
      ran = true;
      return 0;
    },
  };
  for (const ranges of [undefined, null, 5, "0,10", {}, [sneaky, 10], ["0", "10"], [0n, 10n], new BigInt64Array(2)]) {
    assert.throws(() => previewEntries(source, ranges, options), {
      name: "TypeError",
      message:
        /^previewEntries: ranges must be an array of numbers \(\[offset, length\] pairs one after the other\), got /,
    });
  }
  assert.equal(ran, false);
  // Arrays, typed arrays and array-likes of numbers all work.
  for (const ranges of [root.range, Float64Array.from(root.range), { length: 2, 0: root.range[0], 1: root.range[1] }]) {
    assert.deepEqual(previewEntries(source, ranges, options), [{ id: "a" }]);
  }
});

test("a tree's lazy entry from a source that changed says so, naming getTree and the source", () => {
  let bytes = BYTES;
  const source = {
    name: "s.jsonl",
    size: BYTES.length,
    read: (offset, length) => bytes.slice(offset, offset + length),
  };
  const [root] = getTree(source);
  // The same length, no longer JSON.
  bytes = new Uint8Array(BYTES.length).fill(0x7b);
  assert.throws(() => root.entry, {
    name: "Error",
    message: /^getTree: s\.jsonl changed while it was read \(bytes \d+ to \d+ are no longer one entry\)/,
  });
  source.read = () => "not bytes";
  assert.throws(() => root.children[0].entry, {
    name: "TypeError",
    message: "getTree: s.jsonl.read(…) must be a Uint8Array, got string",
  });
  source.read = (offset, length) => BYTES.slice(offset, offset + length - 1);
  assert.throws(() => root.children[1].entry, /^Error: getTree: s\.jsonl changed while it was read \(it gave/);
  source.read = (offset, length) => BYTES.slice(offset, offset + length);
  assert.equal(root.children[1].entry.message.content, "three");
});

test("a Session over a source that changed says so, naming the source, for every entry it reads", () => {
  let bytes = BYTES;
  const source = {
    name: "s.jsonl",
    size: BYTES.length,
    read: (offset, length) => bytes.slice(offset, offset + length),
  };
  const session = Session.open(source);
  bytes = new Uint8Array(BYTES.length).fill(0x7b);
  // Named for the session, not for the Session.open that ended long before.
  const changed = /^Error: Session: s\.jsonl changed while it was read \(bytes \d+ to \d+ are no longer one entry\)/;
  assert.throws(() => session.getEntry("a"), changed);
  assert.throws(() => session.getEntries(), changed);
  assert.throws(() => session.buildSessionContext(), changed);
  assert.throws(() => session.getBranch(), changed);
  bytes = BYTES;
  assert.deepEqual(
    session.getBranch().map((e) => e.id),
    ["a", "c"],
  );
  session.free();
});

test("migrate's write must write before it returns: a promise is refused, naming the option", () => {
  const v1 = new TextEncoder().encode('{"type":"session","id":"s"}\n{"type":"message","message":{"role":"user"}}\n');
  const source = { size: v1.length, read: (offset, length) => v1.slice(offset, offset + length) };
  const pieces = [];
  assert.throws(() => migrate(source, { write: async (bytes) => pieces.push(bytes) }), {
    name: "TypeError",
    message: /^migrate: options\.write must have written its bytes when it returns, got a Promise/,
  });
  // A synchronous write that returns something else (a stream's boolean) is fine.
  const out = [];
  assert.equal(migrate(source, { write: (bytes) => out.push(new TextDecoder().decode(bytes)) > 0 }), true);
  assert.match(out.join(""), /"version":3/);
});

test("a stack overflow inside a Session's call leaves neither the session nor the module broken", () => {
  // JS code recursing without end, calling the package at each level: the engine's
  // RangeError is thrown inside the module at some depth and unwinds its frames
  // without their cleanup. That left the session borrowed (every later append threw
  // "recursive use of an object detected", free() "attempted to take ownership"), and
  // a few hundred of them used up the shadow stack: a trap.
  const seen = new Set();
  for (let round = 0; round < 40; round++) {
    const session = Session.open(TEXT);
    const deep = () => {
      session.getEntries();
      session.buildSessionContext();
      return deep() + 1;
    };
    try {
      deep();
    } catch (e) {
      assert.ok(e instanceof Error, `not an Error: ${e}`);
    }
    for (const use of [
      () => session.appendMessage({ role: "user", content: "x", timestamp: 1 }),
      () => session.free(),
    ]) {
      try {
        use();
      } catch (e) {
        seen.add(e.message);
      }
    }
  }
  for (const message of seen) {
    assert.doesNotMatch(message, /recursive use|ownership|borrowed/);
    assert.match(message, /no longer usable|freed/);
  }
  const session = Session.open(TEXT);
  session.appendMessage({ role: "user", content: "after", timestamp: 4 });
  assert.equal(session.buildSessionContext().messages.length, 3);
  session.free();
});

// --- Traps, on the test build with `__forceTrap` (make test-reliability builds it) ---

const require = createRequire(import.meta.url);
const trapPath = fileURLToPath(new URL("../../target/trap-pkg/node.cjs", import.meta.url));

/** The test build; its absence fails the test, never skips it. */
function trapBuild() {
  assert.ok(existsSync(trapPath), `no test build at ${trapPath}: run \`make test-reliability\``);
  return require(trapPath);
}

function checkWorks(st, when) {
  assert.equal(st.parseSession(TEXT).length, 4, when);
  assert.deepEqual(
    st.buildSessionContext(TEXT).messages.map((m) => m.content),
    ["one", "three"],
    when,
  );
  const s = st.Session.open(TEXT);
  s.appendMessage({ role: "user", content: "more", timestamp: 9 });
  assert.equal(s.getEntries().length, 4, when);
  s.free();
}

test("a trap inside a callback's nested call: every call around it throws, then the module works", () => {
  const st = trapBuild();
  const session = st.Session.open(TEXT);
  let inner;
  const source = {
    size: BYTES.length,
    read(offset, length) {
      try {
        st.__forceTrap();
      } catch (e) {
        inner = e;
      }
      return BYTES.slice(offset, offset + length);
    },
  };
  // The outer call's frames ran on the instance the nested trap broke: it must not
  // return what it made there, nor run on a fresh instance swapped in under it.
  assert.throws(
    () => st.getTree(source, { pieceSize: 64 }),
    (e) => {
      assert.ok(!(e instanceof WebAssembly.RuntimeError));
      assert.match(e.message, /^session-tree: getTree failed inside WebAssembly/);
      return true;
    },
  );
  assert.match(inner.message, /^session-tree: __forceTrap failed inside WebAssembly/);
  checkWorks(st, "after a nested trap");
  assert.throws(() => session.getEntries(), /no longer usable/);
});

test("free() of a session made before a trap does nothing to the new instance", () => {
  const st = trapBuild();
  const lines = [J(HEADER)];
  for (let i = 0; i < 200; i++) lines.push(J(message(`e${i}`, i ? `e${i - 1}` : null, "x".repeat(i), 1)));
  const text = lines.join("\n");
  const old = Array.from({ length: 30 }, () => st.Session.open(text));
  assert.throws(() => st.__forceTrap(), /failed inside WebAssembly/);
  const fresh = Array.from({ length: 30 }, () => st.Session.open(text));
  // These pointers are into the old instance's memory: freeing them in the new one
  // used to corrupt its heap (every later call failed, and no reset came).
  for (const s of old) s.free();
  for (let round = 0; round < 5; round++) {
    for (const s of fresh) {
      assert.equal(s.buildSessionContext().messages.length, 200 + round);
      s.appendMessage({ role: "user", content: "y".repeat(round * 50), timestamp: 2 });
    }
  }
  for (const s of fresh) s.free();
  for (const s of old) assert.throws(() => s.getEntries(), /freed/);
  checkWorks(st, "after freeing sessions from before the trap");
});
