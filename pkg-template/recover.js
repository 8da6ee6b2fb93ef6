// A wasm trap (a bug, or memory running out) leaves a WebAssembly instance
// unusable. Every export (functions, and classes' constructors, statics and
// methods) goes through `recovering`: a trap resets the instance
// and surfaces as an ordinary Error, and the next call runs on a fresh one.
// (`make build` also writes this file as recover.cjs for CommonJS.)
//
// The same wrapper keeps the objects (`Session`, `UsageLedger`) sound when a
// callback of the caller's (a byte source's `read`, a `toJSON`, a getter)
// calls back into the package:
// - a method of an object that is inside a call of its own is refused with
//   a clear Error before it reaches wasm (wasm-bindgen's borrow check would
//   throw through wasm, and the reference it leaks keeps the object from
//   ever being freed);
// - a trap inside such a nested call resets the instance only once the
//   outermost call has returned (their frames still run on it), and every
//   call around it throws too (what they computed is not to be trusted).
// - an error the engine throws inside the module (a JS stack overflow, memory
//   running out) unwinds its frames without their cleanup: the shadow stack
//   they held and their borrows stay behind (a `Session` could then never be
//   used mutably or freed again). `__stackMark` shows it, and the instance is
//   replaced as after a trap.
// It also says what wasm-bindgen's own messages do not: a method called on an
// object after `free()`, or on something that is not one; and `free()` of an
// object from before a reset is a no-op (it would free memory of the new
// instance that belongs to something else).

export function recovering(glue, names) {
  const reset = glue.__wbg_reset_state;
  // The glue's instance id, which it stamps on each object as `__wbg_inst`:
  // 0 at load, one more at each reset.
  let instance = 0;
  // Calls into the module in progress (more than one inside a callback).
  let depth = 0;
  // A trap not yet reported by every call that was in progress around it.
  let trapped = null;
  // The objects inside a method call and those calls' names, innermost
  // last: as deep as the calls nest, so almost always empty or one long (a
  // WeakMap cost a hash lookup, a set and a delete on every call).
  const busy = [];
  const busyNames = [];

  const failed = (name, trap) =>
    new Error(
      `session-tree: ${name} failed inside WebAssembly (${trap.message}); the module was reset, and sessions opened before are no longer usable`,
      { cause: trap },
    );

  // The shadow stack's place between calls (see `unwound`).
  const mark = glue.__stackMark;
  // Taken now, with no call running (a new instance starts at the same place).
  const base = typeof mark === "function" ? mark() : undefined;
  // Whether the shadow stack is elsewhere than between earlier calls: an
  // error unwound the module's frames. (Only when no call is running.)
  const unwound = () => typeof mark === "function" && mark() !== base;
  const replace = () => {
    reset();
    instance++;
  };
  // An unwound call is found where the stack may be nearly used up (a
  // stack overflow): the instance is replaced at the start of the next call.
  let pending = false;
  // An error went through a nested call (one made from a callback), which
  // the callback may have caught: the next call first asks the stack. Only
  // then: asking costs a call into the module, on every call otherwise.
  let suspect = false;
  const settle = () => {
    if (depth !== 0 || !(pending || suspect)) return;
    suspect = false;
    if (pending || unwound()) {
      pending = false;
      replace();
    }
  };

  const call = (fn, self, args, name) => {
    depth++;
    let result;
    let interrupted = null;
    try {
      result = fn.apply(self, args);
    } catch (error) {
      if (depth > 1) suspect = true;
      if (error instanceof WebAssembly.RuntimeError) trapped ??= error;
      else if (depth === 1 && trapped === null && unwoundSafely()) interrupted = error;
      else if (trapped === null) throw error;
    } finally {
      depth--;
    }
    if (interrupted !== null) {
      pending = true;
      throw failed(name, interrupted);
    }
    if (trapped !== null) {
      const trap = trapped;
      if (depth === 0) {
        trapped = null;
        replace();
      }
      throw failed(name, trap);
    }
    return result;
  };

  const unwoundSafely = () => {
    try {
      return unwound();
    } catch {
      return false;
    }
  };

  const guard = (fn, name) =>
    function (...args) {
      settle();
      return call(fn, this, args, name);
    };

  // A method or getter of class `Class`: `this` must be a live object of it.
  const guardMethod = (fn, name, Class, isFree) =>
    function (...args) {
      settle();
      if (!(this instanceof Class) || typeof this.__wbg_ptr !== "number") {
        throw new TypeError(`${name}: called on ${describe(this)}, not a ${Class.name}`);
      }
      const stale = this.__wbg_inst !== undefined && this.__wbg_inst !== instance;
      if (isFree && (this.__wbg_ptr === 0 || stale)) {
        // Freed already, or its memory went with the instance it was made in.
        this.__wbg_ptr = 0;
        return undefined;
      }
      if (this.__wbg_ptr === 0) {
        throw new Error(`${name}: this ${Class.name} was freed (free() was called on it)`);
      }
      if (stale) {
        throw new Error(
          `${name}: this ${Class.name} was made before the module was reset after a failure inside WebAssembly, and is no longer usable; make a new one`,
        );
      }
      const at = busy.indexOf(this);
      if (at !== -1) {
        const running = busyNames[at];
        throw new Error(
          `${name}: called while ${running} is still running on the same ${Class.name} (from a callback it made: a byte source's read, a toJSON, a getter); call it once that has returned`,
        );
      }
      busy.push(this);
      busyNames.push(name);
      try {
        return call(fn, this, args, name);
      } finally {
        busy.pop();
        busyNames.pop();
      }
    };

  const api = {};
  for (const name of names) {
    const value = glue[name];
    if (typeof value !== "function") continue;
    if (!/^[A-Z]/.test(name)) {
      api[name] = guard(value, name);
      continue;
    }
    // A class: wrap its static and instance methods and getters in place.
    for (const [target, prefix, method] of [
      [value, `${name}.`, false],
      [value.prototype, `${name}#`, true],
    ]) {
      for (const key of Reflect.ownKeys(target)) {
        const d = Object.getOwnPropertyDescriptor(target, key);
        if (key === "constructor" || key === "prototype" || !d.configurable) continue;
        // `Symbol.dispose` is `free` under another name.
        const shown = typeof key === "symbol" ? (key === Symbol.dispose ? "free" : String(key)) : key;
        if (typeof shown === "string" && shown.startsWith("__")) continue;
        const wrap = (fn) =>
          method ? guardMethod(fn, prefix + shown, value, shown === "free") : guard(fn, prefix + shown);
        if (typeof d.value === "function") d.value = wrap(d.value);
        else if (d.get) d.get = wrap(d.get);
        else continue;
        Object.defineProperty(target, key, d);
      }
    }
    // Its constructor too (`new UsageLedger()` calls into the module): a
    // proxy, so `instanceof`, statics and the prototype stay the class's own.
    api[name] = new Proxy(value, {
      construct(target, args, newTarget) {
        settle();
        return call(Reflect.construct, null, [target, args, newTarget], `new ${name}`);
      },
    });
  }
  return api;
}

function describe(value) {
  if (value === null) return "null";
  if (typeof value !== "object" && typeof value !== "function") return typeof value;
  return "an object";
}
