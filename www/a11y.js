// What assistive technology hears and which keys move where, without the DOM: the spoken name of a
// graph row's marks, the name of a context message, and the live announcements of a
// followed session (at most one per burst of arrivals). graph.js,
// panels/context.js and folder/ui.js put these strings in the page.
// Unit tests: tests/viewer/unit/a11y.test.mjs.

import { PATH } from "./messages.js";

/**
 * What a graph row adds for a screen reader to what it shows (kind, labels,
 * tags, text, time, "not sent"): whether it is the selected leaf or on the
 * path to it. `state` is a PATH value; "" for neither.
 */
export function rowMarks({ isLeaf = false, state = PATH.off }) {
  if (isLeaf) return ", selected leaf";
  return state === PATH.off ? "" : ", on the path";
}

const ROLE_NAMES = {
  user: "User",
  assistant: "Assistant",
  toolResult: "Tool result",
  bashExecution: "Bash",
  custom: "Custom message",
  hookMessage: "Custom message",
  branchSummary: "Branch summary",
  compactionSummary: "Compaction summary",
  system: "System",
};

/** A context message's accessible name: its role, its place in the context, the entry it comes from. */
export function messageLabel(role, index, total, sourceId) {
  // `null`: no message at all (a `message` entry without one).
  const name = role === null ? "Missing" : (ROLE_NAMES[role] ?? `Message (${role})`);
  return `${name} message, ${index + 1} of ${total}${sourceId ? `, from entry ${sourceId}` : ""}`;
}

/** What to announce when entries arrive: their count and the newest one's kind and text. */
export function arrivalText(count, last) {
  if (count <= 0) return "";
  const head = `${count} new entr${count === 1 ? "y" : "ies"}`;
  return last ? `${head}; latest: ${last.kindName}: ${last.text}` : head;
}

/**
 * Polite announcements of a followed session. Arrivals within `quietMs` of
 * each other make one burst, announced once when it has been quiet that
 * long: a chatty agent writing ten entries a second is one sentence, not
 * ten. `say(text)` speaks (a live region's text); `timers` is
 * `{ setTimeout, clearTimeout }` (injected so tests run without waiting).
 */
export class BurstAnnouncer {
  constructor(say, { quietMs = 1500, timers = globalThis } = {}) {
    Object.assign(this, { say, quietMs, timers });
    this.count = 0;
    this.last = null;
    this.timer = null;
  }

  /** `count` entries arrived; `last`: `{ kindName, text }` of the newest. */
  arrived(count, last) {
    if (count <= 0) return;
    this.count += count;
    this.last = last ?? this.last;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(() => this.flush(), this.quietMs);
  }

  /** Announces the burst so far (the timer does this once arrivals stop). */
  flush() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (!this.count) return;
    const text = arrivalText(this.count, this.last);
    this.count = 0;
    this.last = null;
    this.say(text);
  }

  /** Drops a pending burst (following stopped, another session opened). */
  cancel() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.count = 0;
    this.last = null;
  }
}

/**
 * Where the arrows move in a group with one tab stop (tabs, radio buttons):
 * the index after `at` of `count` items for `key`, wrapping, or -1 when the
 * key is not one of the group's. ← and → always; ↑ and ↓ too in a radio
 * group (`upDown`); Home and End go to the ends.
 */
export function rovingIndex(key, at, count, { upDown = false } = {}) {
  if (at < 0 || count <= 0) return -1;
  const step = { ArrowRight: 1, ArrowLeft: -1, ...(upDown ? { ArrowDown: 1, ArrowUp: -1 } : {}) }[key];
  if (step) return (at + step + count) % count;
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return -1;
}

/**
 * The key of a keydown that a widget's own keys may take: `e.key`, or `null`
 * when Alt, Ctrl or ⌘ is held. Those are the browser's and the system's
 * (Alt+← is Back, Ctrl+L the address bar, Ctrl+K search): a widget that took
 * them as its plain keys would swallow them.
 */
export function plainKey(e) {
  return e.altKey || e.ctrlKey || e.metaKey ? null : e.key;
}
