// `recovering` (pkg/recover.js) wraps a class's constructor as it wraps its
// methods: a trap inside `new UsageLedger()` resets the instance and surfaces
// as the package's Error, not a raw WebAssembly.RuntimeError
// (docs/hunt-leftovers.md). The trap build cannot trap inside a constructor on
// demand, so the glue here is a stand-in with the glue's shape: a class whose
// constructor traps once, and the reset function.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as st from "session-tree";
import { recovering } from "../../pkg/recover.js";

function standIn() {
  const state = { resets: 0, trapNext: false };
  class Ledger {
    constructor(n) {
      if (state.trapNext) {
        state.trapNext = false;
        throw new WebAssembly.RuntimeError("unreachable");
      }
      this.__wbg_ptr = 8;
      this.n = n;
    }
    get files() {
      return this.n;
    }
    static make() {
      return new Ledger(7);
    }
  }
  const glue = {
    Ledger,
    __wbg_reset_state() {
      state.resets++;
    },
  };
  return { api: recovering(glue, ["Ledger"]), state, Ledger };
}

test("a trap in a constructor resets the instance and throws the package's Error", () => {
  const { api, state } = standIn();
  state.trapNext = true;
  assert.throws(
    () => new api.Ledger(1),
    (error) =>
      !(error instanceof WebAssembly.RuntimeError) &&
      /^session-tree: new Ledger failed inside WebAssembly \(unreachable\); the module was reset/.test(error.message) &&
      error.cause instanceof WebAssembly.RuntimeError,
  );
  assert.equal(state.resets, 1);
  // and the next one is made as usual
  const ledger = new api.Ledger(3);
  assert.equal(ledger.files, 3);
});

test("a wrapped class is still the class: instanceof, statics, prototype, arguments", () => {
  const { api, Ledger } = standIn();
  const ledger = new api.Ledger(5);
  assert.ok(ledger instanceof api.Ledger);
  assert.ok(ledger instanceof Ledger);
  assert.equal(Object.getPrototypeOf(ledger), Ledger.prototype);
  assert.equal(api.Ledger.prototype, Ledger.prototype);
  assert.ok(api.Ledger.make() instanceof api.Ledger);
  assert.equal(ledger.files, 5);
  // the package's own: a ledger made with `new` works, and is one
  const real = new st.UsageLedger();
  assert.ok(real instanceof st.UsageLedger);
  assert.equal(real.files, 0);
  real.free();
});
