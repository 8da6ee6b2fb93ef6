// A wasm trap (a bug, or memory running out) leaves a WebAssembly instance
// unusable. Every export goes through `recovering`: a trap resets the instance
// and surfaces as an ordinary Error, and the next call runs on a fresh one.
// (`make build` also writes this file as recover.cjs for CommonJS.)

export function recovering(glue, names) {
  const reset = glue.__wbg_reset_state;
  const guard = (fn, name) =>
    function (...args) {
      try {
        return fn.apply(this, args);
      } catch (error) {
        if (!(error instanceof WebAssembly.RuntimeError)) throw error;
        reset();
        throw new Error(
          `session-tree: ${name} failed inside WebAssembly (${error.message}); the module was reset, and sessions opened before are no longer usable`,
          { cause: error },
        );
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
    for (const [target, prefix] of [
      [value, `${name}.`],
      [value.prototype, `${name}#`],
    ]) {
      for (const key of Object.getOwnPropertyNames(target)) {
        const d = Object.getOwnPropertyDescriptor(target, key);
        if (key === "constructor" || key === "prototype" || !d.configurable) continue;
        if (typeof d.value === "function") d.value = guard(d.value, prefix + key);
        else if (d.get) d.get = guard(d.get, prefix + key);
        else continue;
        Object.defineProperty(target, key, d);
      }
    }
    api[name] = value;
  }
  return api;
}
