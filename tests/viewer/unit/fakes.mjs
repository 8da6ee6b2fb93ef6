// Test doubles shared by the viewer's unit tests: timers the test drives, and
// an EventSource that records what was made of it.

/** Timers the test drives: `advance(ms)` runs what is due, in the order it is due; `pending()` counts those left. */
export function fakeTimers() {
  let now = 0;
  let seq = 0;
  const due = new Map();
  return {
    setTimeout: (fn, ms) => {
      due.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (id) => due.delete(id),
    advance(ms) {
      now += ms;
      for (const [id, t] of [...due].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at <= now && due.delete(id)) t.fn();
      }
    },
    /** How many timers are set and not yet run or cleared. */
    pending: () => due.size,
  };
}

/** An EventSource whose events the test emits; `last` is the newest made, `all` every one since `all` was emptied. */
export class FakeEventSource {
  static last = null;
  static all = [];
  constructor(url) {
    this.url = url;
    this.listeners = {};
    this.closed = false;
    FakeEventSource.last = this;
    FakeEventSource.all.push(this);
  }
  addEventListener(type, fn) {
    this.listeners[type] = fn;
  }
  emit(type, data) {
    this.listeners[type]?.({ data: JSON.stringify(data) });
  }
  close() {
    this.closed = true;
  }
}
