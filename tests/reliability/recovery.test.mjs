// After any thrown error, the same module instance keeps working: every export is called with
// bad input (wrong types, throwing getters and proxies, revoked proxies, frozen arrays), and
// after each call the functions must still give pi's results on a known session.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as st from "session-tree";
import { parseSessionEntries, buildSessionContext as piContext, piLoad, piTree } from "../shared/pi.mjs";
import { generateSession } from "../shared/sessions.mjs";

const J = JSON.stringify;
// A v3 session without cycles or duplicate ids: pi's answers are the expected ones.
let seed = 7;
let fixture;
do fixture = generateSession(seed++, { maxEntries: 30 });
while (!(fixture.version === 3 && fixture.ids.length > 10));
const TEXT = fixture.text;
const EXPECTED = {
  parse: J(parseSessionEntries(TEXT)),
  context: J(piContext(piLoad(TEXT))),
  tree: J(piTree(piLoad(TEXT))),
};

function stillWorks(after) {
  assert.equal(J(st.parseSession(TEXT)), EXPECTED.parse, `parseSession after ${after}`);
  assert.equal(J(st.parseSession(Buffer.from(TEXT))), EXPECTED.parse, `parseSession(bytes) after ${after}`);
  assert.equal(J(st.buildSessionContext(TEXT)), EXPECTED.context, `buildSessionContext after ${after}`);
  assert.equal(J(st.getTree(TEXT)), EXPECTED.tree, `getTree after ${after}`);
  assert.equal(st.migrate(TEXT), TEXT, `migrate after ${after}`);
  assert.ok(Array.isArray(st.inspectSession(TEXT)), `inspectSession after ${after}`);
  const s = st.Session.open(TEXT);
  assert.equal(J(s.buildSessionContext()), EXPECTED.context, `Session after ${after}`);
  s.free();
}

const throwing = () => {
  throw new Error("boom from a getter");
};
const hostileValues = () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const trapAll = new Proxy([], {
    get: throwing,
    has: throwing,
    ownKeys: throwing,
    getOwnPropertyDescriptor: throwing,
  });
  const getterEntry = Object.defineProperty({ type: "message" }, "id", { get: throwing, enumerable: true });
  const frozen = Object.freeze([
    Object.freeze({ type: "session" }),
    Object.freeze({ type: "message", message: Object.freeze({ role: "hookMessage" }) }),
  ]);
  // Two holes, then an entry.
  // biome-ignore lint/suspicious/noSparseArray: the holes are the point
  const sparse = [, , { type: "message", id: "a" }];
  const weirdToString = { toString: throwing, valueOf: throwing, [Symbol.toPrimitive]: throwing };
  return {
    undefined: undefined,
    null: null,
    number: 42,
    NaN: NaN,
    bigint: 10n,
    symbol: Symbol("s"),
    boolean: true,
    function: () => {},
    object: {},
    date: new Date(),
    "revoked proxy": revoked.proxy,
    "throwing proxy array": trapAll,
    "entry with throwing getter": [getterEntry],
    "array with throwing proxy": [new Proxy({}, { get: throwing })],
    "frozen entries": frozen,
    "sparse array": sparse,
    "toString throws": weirdToString,
    "array of primitives": [1, "x", null, undefined, 2n],
    Uint16Array: new Uint16Array([123, 34]),
    DataView: new DataView(new ArrayBuffer(4)),
    ArrayBuffer: new ArrayBuffer(8),
    "detached Uint8Array": (() => {
      const b = new ArrayBuffer(8);
      const u = new Uint8Array(b);
      structuredClone(b, { transfer: [b] });
      return u;
    })(),
    "string with lone surrogates": "\ud800\n\udfff{}",
  };
};

test("every export, every hostile argument: only Errors thrown, and the module keeps working", () => {
  const calls = {
    parseSession: (v) => st.parseSession(v),
    "parseSession(options)": (v) => st.parseSession(TEXT, v),
    migrate: (v) => st.migrate(v),
    getTree: (v) => st.getTree(v),
    buildSessionContext: (v) => st.buildSessionContext(v),
    "buildSessionContext(leafId)": (v) => st.buildSessionContext(TEXT, v),
    inspectSession: (v) => st.inspectSession(v),
    "Session.open": (v) => st.Session.open(v)?.free(),
    "Session.create": (v) => st.Session.create(v)?.free(),
    "new Session": (v) => new st.Session(v),
    sessionInfo: (v) => st.sessionInfo(v),
    "sessionInfo(options)": (v) => st.sessionInfo(TEXT, v),
  };
  let thrown = 0;
  for (const [name, call] of Object.entries(calls)) {
    for (const [what, value] of Object.entries(hostileValues())) {
      try {
        call(value);
      } catch (e) {
        thrown++;
        assert.ok(e instanceof Error, `${name}(${what}) threw a non-Error: ${String(e)}`);
        assert.ok(!(e instanceof WebAssembly.RuntimeError), `${name}(${what}) trapped: ${e.message}`);
        assert.ok(e.message.length > 0);
      }
      stillWorks(`${name}(${what})`);
    }
  }
  assert.ok(thrown > 50, `only ${thrown} calls threw`);
});

test("a Session keeps working after its own methods throw", () => {
  const s = st.Session.open(TEXT);
  try {
    const methods = [
      "getEntry",
      "getChildren",
      "getLabel",
      "getBranch",
      "buildSessionContext",
      "appendMessage",
      "appendThinkingLevelChange",
      "appendModelChange",
      "appendCompaction",
      "appendCustomEntry",
      "appendSessionInfo",
      "appendCustomMessageEntry",
      "appendLabelChange",
      "branch",
      "branchWithSummary",
      "appendJsonl",
      "createBranchedSession",
      "fork",
    ];
    for (const m of methods) {
      for (const value of Object.values(hostileValues())) {
        try {
          s[m](value, value, value, value);
        } catch (e) {
          assert.ok(e instanceof Error && !(e instanceof WebAssembly.RuntimeError), `${m} threw ${String(e)}`);
        }
        assert.ok(Array.isArray(s.getEntries()));
      }
    }
    const before = s.getEntries().length;
    const id = s.appendMessage({ role: "user", content: "still here", timestamp: 1 });
    assert.equal(s.getEntries().length, before + 1);
    assert.equal(s.getLeafEntry().id, id);
    assert.equal(s.buildSessionContext().messages.at(-1).content, "still here");
  } finally {
    s.free();
  }
  // A freed session throws an Error, not a trap, and nothing else is affected.
  const f = st.Session.open(TEXT);
  f.free();
  assert.throws(
    () => f.getEntries(),
    (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError),
  );
  stillWorks("a freed session");
});

test("thousands of failing calls in a row do not leak or wedge the instance", () => {
  for (let i = 0; i < 5_000; i++) {
    assert.throws(() => st.parseSession(i), TypeError);
    assert.throws(() => st.parseSession("{oops", { strict: true }), SyntaxError);
    assert.throws(() => st.buildSessionContext(TEXT, i), TypeError);
  }
  stillWorks("5,000 failures");
});

test("JS exceptions raised inside a call (revoked proxies, throwing array proxies) never corrupt the instance", () => {
  // Such exceptions come from JS code that the bindings call (Array.isArray on a revoked proxy,
  // a proxy's get trap). They must surface as themselves, every time: no wasm trap later from
  // a leaked stack, no "module was reset" message, no borrowed session left behind.
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const throwingArray = new Proxy([], {
    get() {
      throw new Error("boom from a proxy");
    },
  });
  const calls = [
    () => st.parseSession(revoked.proxy),
    () => st.getTree(throwingArray),
    () => st.buildSessionContext(TEXT, revoked.proxy),
    () => st.inspectSession(throwingArray),
  ];
  for (let i = 0; i < 10_000; i++) {
    for (const call of calls) {
      try {
        call();
      } catch (e) {
        assert.ok(
          !/inside WebAssembly|reset/i.test(e.message) && !(e instanceof WebAssembly.RuntimeError),
          `call ${i}: ${e.message}`,
        );
      }
    }
  }
  stillWorks("10,000 JS exceptions inside calls");
  const s = st.Session.open(TEXT);
  try {
    assert.throws(() => s.buildSessionContext(revoked.proxy), TypeError);
    assert.equal(J(s.buildSessionContext()), EXPECTED.context, "the session is still usable");
    s.appendMessage({ role: "user", content: "x", timestamp: 1 });
  } finally {
    s.free();
  }
});
