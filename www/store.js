// The page's state, in one place: what is open, what is shown, what is
// selected. Changes go through `set`, which tells the subscribers which keys
// changed; nothing else writes to the state.

/** The state before anything is open. */
export const initialState = () => ({
  /** What the worker reported on opening: name, count, stats, diagnostics, timings… */
  info: null,
  /** Per node columns: ids, kinds, summaries, labels, times, parent, refs. */
  nodes: null,
  /** The rows the filter and search show, laid out. */
  view: null,
  filter: "default",
  query: "",
  /** The selected leaf: the context is built there. */
  leafId: null,
  /** The entry under the graph's cursor (the Entry tab shows it). */
  cursorId: null,
  tab: "context",
  /** How many sessions have been opened (tests wait on it). */
  opened: 0,
});

export function createStore(initial = initialState()) {
  let state = Object.freeze({ ...initial });
  const listeners = new Set();
  return {
    get: () => state,
    /** Merges `patch`; subscribers hear of it when a value really changed. */
    set(patch) {
      const before = state;
      state = Object.freeze({ ...state, ...patch });
      const changed = Object.keys(patch).filter((k) => !Object.is(before[k], state[k]));
      if (changed.length === 0) return;
      for (const listener of listeners) listener(state, changed);
    },
    /** `listener(state, changedKeys)` after each change; returns the unsubscribe function. */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
