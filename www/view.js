// The page around the graph and the panels: the top bar, progress, banners,
// search and filters, legend, tabs, status bar, the ways to open a file
// (picker, drop, paste) and the address's `#leaf=`. It renders the store's
// state and hands user actions to the handlers its `bind*` methods receive.

import { plainKey, rovingIndex } from "./a11y.js";
import { statusLine } from "./analysis.js";
import { compareHash, parseCompareHash } from "./compare.js";
import { legendIcon } from "./graph.js";
import { leafHash, parseLeafHash } from "./link.js";
import { FILTERS, KINDS, nextTheme, storedTheme } from "./model.js";
import { el } from "./render.js";

const PANELS = ["context", "system", "composition", "entry", "stats", "diagnostics"];
const SVG_NS = "http://www.w3.org/2000/svg";
const THEME_KEY = "session-tree.theme";

export class View {
  constructor(doc = document) {
    this.doc = doc;
    this.$ = (id) => doc.getElementById(id);
    this.graphElement = this.$("graph");
    this.progressTimer = 0;
    this.searchTimer = 0;
    this.dragDepth = 0;
  }

  /** Builds the filter buttons and the legend. */
  renderStatic(filter) {
    for (const f of FILTERS) {
      const b = el("button", "filter", f.name);
      b.type = "button";
      b.dataset.filter = f.key;
      b.title = f.title;
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", f.key === filter ? "true" : "false");
      b.tabIndex = f.key === filter ? 0 : -1; // one tab stop for the group; the arrows move within it
      this.$("filters").append(b);
    }
    // A phone starts with the legend folded: the graph's rows come first.
    if (this.doc.defaultView.matchMedia?.("(max-width: 720px)").matches) this.$("legend").open = false;
    const legend = this.$("legend-items");
    for (let k = 0; k < KINDS.length - 1; k++) {
      if (KINDS[k].key === "usage") continue; // never a row, as in pi
      const item = el("span", "legend-item");
      item.append(legendIcon(k), el("span", "", KINDS[k].name));
      legend.append(item);
    }
    const path = el("span", "legend-item");
    const s = this.doc.createElementNS(SVG_NS, "svg");
    for (const [k, v] of Object.entries({ width: "18", height: "18", class: "legend-icon" })) s.setAttribute(k, v);
    const line = this.doc.createElementNS(SVG_NS, "line");
    for (const [k, v] of Object.entries({ x1: 9, y1: 1, x2: 9, y2: 17, class: "lane hl" })) line.setAttribute(k, v);
    s.append(line);
    path.append(s, el("span", "", "Path to the leaf"));
    const unsent = el("span", "legend-item");
    unsent.append(el("span", "unsent-mark", "not sent"), el("span", "", "on the path, not seen by the model"));
    legend.append(path, unsent);
    // Each branch's cost on its leaf's row (graph.js), off until asked for.
    const costs = el("label", "legend-item legend-costs");
    this.costToggle = el("input");
    this.costToggle.type = "checkbox";
    this.costToggle.dataset.testid = "branch-costs";
    costs.append(this.costToggle, el("span", "", "Each branch's cost, on its leaf"));
    costs.title =
      "On each leaf of a session that branches: the cost below its last fork (its own part), and from the root in the tooltip";
    legend.append(costs);
  }

  /** `handler(on)` when "Each branch's cost" is ticked or unticked. */
  bindCosts(handler) {
    this.costToggle.addEventListener("change", () => handler(this.costToggle.checked));
  }

  /** Renders what changed in the store. */
  render(state, changed) {
    const has = (k) => changed.includes(k);
    if (has("filter")) {
      for (const b of this.$("filters").children) {
        b.setAttribute("aria-checked", b.dataset.filter === state.filter ? "true" : "false");
        b.tabIndex = b.dataset.filter === state.filter ? 0 : -1;
      }
    }
    if (has("tab")) {
      for (const tab of this.doc.querySelectorAll(".tab")) {
        const on = tab.dataset.tab === state.tab;
        tab.setAttribute("aria-selected", on ? "true" : "false");
        tab.tabIndex = on ? 0 : -1; // one tab stop for the list; the arrows move within it
      }
      for (const p of PANELS) this.$(`panel-${p}`).hidden = p !== state.tab;
    }
    if (has("info") && state.info) {
      const { name, stats } = state.info;
      this.$("file-name").textContent = stats.name ? `${stats.name} — ${name}` : name;
      this.$("file-name").title = name;
      this.doc.title = `${stats.name ?? name} · session-tree`;
    }
    if ((has("info") || has("view")) && state.info) this.$("status").textContent = statusLine(state.info, state.view);
  }

  // --- feedback ---------------------------------------------------------------

  showProgress(stage, fraction) {
    this.$("progress-label").textContent = `${stage}…`;
    this.$("progress-bar").value = fraction;
  }

  /** Shows the progress bar only if the work takes longer than a blink. */
  startProgress(label) {
    this.showProgress(label, 0);
    clearTimeout(this.progressTimer);
    this.progressTimer = setTimeout(() => {
      this.$("progress").hidden = false;
    }, 120);
    this.doc.body.classList.add("busy");
  }

  stopProgress() {
    clearTimeout(this.progressTimer);
    this.$("progress").hidden = true;
    this.doc.body.classList.remove("busy");
  }

  /** A dismissible banner; `actions` are `[label, onClick, testid?]`; a `key`'s banner replaces the one shown. */
  banner(kind, text, actions = [], key = "") {
    const box = el("div", `banner banner-${kind}`);
    if (key) {
      for (const old of this.$("banners").querySelectorAll(".banner[data-key]")) {
        if (old.dataset.key === key) old.remove();
      }
      box.dataset.key = key;
    }
    box.setAttribute("role", kind === "error" ? "alert" : "status");
    box.append(el("span", "banner-text", text));
    for (const [label, fn, testid] of actions) {
      const b = el("button", "button small", label);
      b.type = "button";
      if (testid) b.dataset.testid = testid;
      b.addEventListener("click", fn);
      box.append(b);
    }
    const close = el("button", "banner-close", "×");
    close.type = "button";
    close.title = "Dismiss";
    close.addEventListener("click", () => box.remove());
    box.append(close);
    this.$("banners").append(box);
    return box;
  }

  clearBanners() {
    for (const b of [...this.$("banners").children]) b.remove();
  }

  enableExport() {
    this.$("export-button").disabled = false;
    this.$("share-button").disabled = false;
  }

  /** Says `text` to screen readers, politely (the page's live region). */
  say(text) {
    this.$("live").textContent = text;
  }

  focusGraph(options) {
    this.graphElement.focus(options);
  }

  /** Saves `contents` as a file download. */
  download(contents, filename, type = "application/jsonl") {
    const blob = new Blob([contents], { type });
    const url = URL.createObjectURL(blob);
    const a = el("a");
    a.href = url;
    a.download = filename;
    this.doc.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  // --- the address --------------------------------------------------------------

  /**
   * The position the address asks for: `leafId` from `#leaf=<id>`, else from
   * pi's `?leafId=<id>`; `targetId` from `?targetId=<id>` (or `null`).
   */
  link() {
    const q = new URLSearchParams(location.search);
    const hash = this.hashLeaf();
    const query = q.get("leafId") || null;
    // A target belongs to its link's leaf: not to a leaf picked since.
    const targetId = hash === null || hash === query ? q.get("targetId") || null : null;
    // `ours`: the address names the leaf the viewer showed for the file it had open (it
    // wrote it, or followed it there), not a link still to follow.
    const ours = this.ownAddress !== undefined && location.search + location.hash === this.ownAddress;
    return { leafId: hash ?? query, targetId, ours };
  }

  /** The address as it is names the leaf shown: a file opened next is not told it lacks that entry. */
  ownLink() {
    this.ownAddress = location.search + location.hash;
  }

  /** Drops pi's `?leafId=`/`&targetId=` once they are followed, keeping the rest of the address. */
  clearLinkQuery() {
    const url = new URL(location.href);
    if (!url.searchParams.has("leafId") && !url.searchParams.has("targetId")) return;
    url.searchParams.delete("leafId");
    url.searchParams.delete("targetId");
    history.replaceState(null, "", url);
  }

  /** The entry id in `#leaf=<id>`, or `null`. */
  hashLeaf() {
    return parseLeafHash(location.hash);
  }

  /** Whether the session list (folder/ui.js) is shown in place of the viewer. */
  listShown() {
    return this.doc.body.classList.contains("showing-folder");
  }

  /** Writes `#leaf=<id>` (no hash for a `null` id) without adding a history entry. */
  setHashLeaf(id) {
    if (id === null || id === undefined) {
      if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    } else {
      const hash = leafHash(id);
      if (location.hash !== hash) history.replaceState(null, "", hash);
    }
    this.ownLink();
  }

  // --- user actions -------------------------------------------------------------

  bindHashChange(handler) {
    window.addEventListener("hashchange", () => handler(this.hashLeaf()));
  }

  /** Clicks, and the radio group's arrows (wrapping), which check the next filter as they move. */
  bindFilter(handler) {
    const group = this.$("filters");
    group.addEventListener("click", (e) => {
      const b = e.target.closest?.(".filter");
      if (b) handler(b.dataset.filter);
    });
    group.addEventListener("keydown", (e) => {
      const buttons = [...group.children];
      const next = rovingIndex(plainKey(e), buttons.indexOf(e.target), buttons.length, { upDown: true });
      if (next < 0) return;
      e.preventDefault();
      buttons[next].focus();
      handler(buttons[next].dataset.filter);
    });
  }

  /** Clicks, and the tab list's keys: ← → (wrapping), Home and End move to a tab and show it. */
  bindTabs(handler) {
    const tabs = [...this.doc.querySelectorAll(".tab")];
    for (const tab of tabs) tab.addEventListener("click", () => handler(tab.dataset.tab));
    tabs[0]?.parentElement.addEventListener("keydown", (e) => {
      const next = rovingIndex(plainKey(e), tabs.indexOf(e.target), tabs.length);
      if (next < 0) return;
      e.preventDefault();
      handler(tabs[next].dataset.tab);
      tabs[next].focus();
    });
  }

  /**
   * `onQuery(text)` a moment after typing stops; `onSubmit(text)` on Enter or
   * ArrowDown (to move into the graph); `onClear()` on Escape.
   */
  bindSearch({ onQuery, onSubmit, onClear }) {
    const search = this.$("search");
    search.addEventListener("input", () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => onQuery(search.value), 150);
    });
    search.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === "ArrowDown") {
        e.preventDefault();
        clearTimeout(this.searchTimer);
        onSubmit(search.value);
      }
      if (e.key === "Escape") {
        search.value = "";
        onClear();
      }
    });
    // "/" anywhere but in a text field goes to the search box.
    this.doc.addEventListener("keydown", (e) => {
      if (e.key === "/" && !e.target.closest?.("input, textarea")) {
        e.preventDefault();
        search.focus();
        search.select();
      }
    });
  }

  /**
   * The header's actions on a narrow screen: folded behind "Menu" (style.css
   * shows the button only there). Picking an action, Escape or a tap outside
   * folds them again; Escape hands the focus back to the button.
   */
  bindMenu() {
    const button = this.$("menu-button");
    const bar = button.closest(".topbar");
    const open = (on) => {
      bar.classList.toggle("menu-open", on);
      button.setAttribute("aria-expanded", on ? "true" : "false");
    };
    button.addEventListener("click", () => {
      const on = !bar.classList.contains("menu-open");
      open(on);
      if (on) this.$("actions").querySelector("button:not([hidden]):not(:disabled)")?.focus();
    });
    this.$("actions").addEventListener("click", (e) => {
      if (e.target.closest?.("button")) open(false);
    });
    this.doc.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && bar.classList.contains("menu-open")) {
        open(false);
        button.focus();
      }
    });
    this.doc.addEventListener("pointerdown", (e) => {
      if (!bar.contains(e.target)) open(false);
    });
  }

  bindShare(handler) {
    this.$("share-button").addEventListener("click", handler);
  }

  /**
   * The theme toggle: auto (the system's `prefers-color-scheme`), light, dark.
   * The choice is remembered in localStorage and set as `data-theme` on <html>.
   */
  bindTheme() {
    const button = this.$("theme-button");
    const read = () => {
      try {
        return storedTheme(localStorage.getItem(THEME_KEY));
      } catch {
        return "auto"; // storage may be off; the toggle still works for the page
      }
    };
    const apply = (theme) => {
      if (theme === "auto") delete this.doc.documentElement.dataset.theme;
      else this.doc.documentElement.dataset.theme = theme;
      button.textContent = `Theme: ${theme}`;
      button.dataset.theme = theme;
    };
    apply(read());
    button.addEventListener("click", () => {
      const theme = nextTheme(button.dataset.theme);
      try {
        localStorage.setItem(THEME_KEY, theme);
      } catch {}
      apply(theme);
    });
  }

  bindExport(handler) {
    this.$("export-button").addEventListener("click", handler);
  }

  bindSample(handler) {
    this.$("sample-button").addEventListener("click", handler);
  }

  /** `handler(source, name)` for a picked, dropped or pasted session. */
  bindOpen(handler) {
    const $ = this.$;
    $("open-button").addEventListener("click", () => $("file-input").click());
    $("file-input").addEventListener("change", (e) => {
      const file = e.target.files?.[0];
      if (file) handler(file, file.name);
      e.target.value = "";
    });
    $("paste-button").addEventListener("click", () => {
      $("paste-text").value = "";
      $("paste-dialog").showModal();
      $("paste-text").focus();
    });
    $("paste-dialog").addEventListener("close", () => {
      $("paste-button").focus();
      if ($("paste-dialog").returnValue === "open" && $("paste-text").value.trim()) {
        handler($("paste-text").value, "pasted.jsonl");
      }
    });
    const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
    this.doc.addEventListener("dragenter", (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      this.dragDepth++;
      $("drop-overlay").hidden = false;
    });
    this.doc.addEventListener("dragover", (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    });
    this.doc.addEventListener("dragleave", () => {
      this.dragDepth = Math.max(0, this.dragDepth - 1);
      if (!this.dragDepth) $("drop-overlay").hidden = true;
    });
    this.doc.addEventListener("drop", (e) => {
      e.preventDefault();
      this.dragDepth = 0;
      $("drop-overlay").hidden = true;
      const file = e.dataTransfer?.files?.[0];
      if (file) handler(file, file.name);
    });
    this.doc.addEventListener("paste", (e) => {
      if (e.target.closest?.("input, textarea, dialog")) return;
      const text = e.clipboardData?.getData("text/plain");
      if (text?.trim().startsWith("{")) {
        e.preventDefault();
        handler(text, "pasted.jsonl");
      }
    });
  }

  // --- compare (compare.js, panels/compare.js) ------------------------------------

  /** `[a, b]` from `#compare=<a>,<b>`, or `null`. */
  comparePair() {
    return parseCompareHash(location.hash);
  }

  /** Opens the comparison of `a` and `b` as a new history entry. */
  goCompare(a, b) {
    location.hash = compareHash(a, b);
  }

  /** Goes to `#leaf=<id>` as a new history entry. */
  goLeaf(id) {
    location.hash = leafHash(id);
  }

  showCompare(on) {
    const box = this.$("compare-view");
    const hadFocus = box.contains(this.doc.activeElement);
    box.hidden = !on;
    this.doc.body.classList.toggle("comparing", on);
    if (on) box.focus({ preventScroll: true });
    // Closing the view hands the focus back to the graph, where the leaf is.
    else if (hadFocus) this.focusGraph({ preventScroll: true });
  }

  /**
   * `onHash()` when the address changes (Back and Forward included); `onPick(id)`
   * on a modifier-click (Alt, Ctrl, Meta or Shift) on an entry of the graph, or
   * the next click on one after "Compare with…".
   */
  bindCompare({ onHash, onPick }) {
    const button = this.$("compare-button");
    let armed = false;
    const arm = (on) => {
      armed = on;
      button.setAttribute("aria-pressed", on ? "true" : "false");
      this.doc.body.classList.toggle("picking", on);
      this.say(on ? "Pick the entry to compare with: arrow keys, then Enter. Escape cancels." : "");
    };
    this.doc.defaultView.addEventListener("hashchange", () => onHash());
    // Armed, the graph takes the focus: the arrows move to the entry, Enter picks it.
    button.addEventListener("click", () => {
      arm(!armed);
      if (armed) this.focusGraph();
    });
    this.doc.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && armed) {
        arm(false);
        button.focus();
      }
    });
    this.graphElement.addEventListener(
      "keydown",
      (e) => {
        if (!armed || (e.key !== "Enter" && e.key !== " ")) return;
        const active = this.graphElement.getAttribute("aria-activedescendant");
        const row = active && this.doc.getElementById(active);
        if (!row?.dataset.entryId) return;
        // Capturing listeners run first on their own element; stop the graph's (select the leaf).
        e.stopImmediatePropagation();
        e.preventDefault();
        arm(false);
        onPick(row.dataset.entryId);
      },
      true,
    );
    // Capturing, so the graph's own click (make it the leaf) does not run.
    this.graphElement.addEventListener(
      "click",
      (e) => {
        const row = e.target.closest?.(".row[data-entry-id]");
        if (!row || !(armed || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey)) return;
        e.stopPropagation();
        e.preventDefault();
        arm(false);
        onPick(row.dataset.entryId);
      },
      true,
    );
  }
}
