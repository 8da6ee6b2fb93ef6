// The branch graph: a virtualized list of rows, each with a slice of the lane
// graph drawn as a small SVG. Only the rows in view (plus a margin) exist in
// the DOM; the layout itself (rows, columns, connector masks) comes from the
// worker, so scrolling costs the same for 50 entries or 100,000.

import { plainKey, rowMarks } from "./a11y.js";
import { PATH } from "./messages.js";
import { KIND, KINDS } from "./model.js";
import { el } from "./render.js";

export const ROW = 30;
const LANE = 16;
const PAD = 10;
const MID = ROW / 2;
const SVG_NS = "http://www.w3.org/2000/svg";
const OVERSCAN = 12;
const LANE_COLORS = 8;

const svg = (tag, attrs) => {
  const node = document.createElementNS(SVG_NS, tag);
  for (const k in attrs) node.setAttribute(k, attrs[k]);
  return node;
};

/** The node marker of a kind, centred on (x, y). */
export function shape(kind, x, y, scale = 1) {
  const cls = `node k-${KINDS[kind]?.key ?? "other"}`;
  const r = 5.5 * scale;
  switch (kind) {
    case KIND.user:
    case KIND.assistant:
      return svg("circle", { cx: x, cy: y, r, class: cls });
    case KIND.toolResult:
      return svg("rect", {
        x: x - r * 0.8,
        y: y - r * 0.8,
        width: r * 1.6,
        height: r * 1.6,
        rx: 1.5 * scale,
        class: cls,
      });
    case KIND.bash:
      return svg("rect", { x: x - r * 0.9, y: y - r * 0.9, width: r * 1.8, height: r * 1.8, rx: 0.5, class: cls });
    case KIND.customMessage: {
      const g = svg("g", { class: cls });
      g.append(
        svg("circle", { cx: x, cy: y, r: r + 0.5, class: "ring" }),
        svg("circle", { cx: x, cy: y, r: r - 2.5 * scale }),
      );
      return g;
    }
    case KIND.compaction:
    case KIND.branchSummary: {
      const d = r * 1.35;
      return svg("path", { d: `M${x} ${y - d}L${x + d} ${y}L${x} ${y + d}L${x - d} ${y}Z`, class: cls });
    }
    case KIND.model:
    case KIND.thinking: {
      const d = r * 1.1;
      return svg("path", { d: `M${x} ${y - d}L${x + d} ${y + d * 0.8}L${x - d} ${y + d * 0.8}Z`, class: cls });
    }
    case KIND.label: {
      const d = r;
      return svg("path", {
        d: `M${x - d} ${y - d * 0.75}H${x + d * 0.3}L${x + d * 1.1} ${y}L${x + d * 0.3} ${y + d * 0.75}H${x - d}Z`,
        class: cls,
      });
    }
    case KIND.sessionInfo:
      return svg("circle", { cx: x, cy: y, r: r - 0.5, class: `${cls} hollow` });
    case KIND.custom:
      return svg("rect", { x: x - r * 0.75, y: y - r * 0.75, width: r * 1.5, height: r * 1.5, class: `${cls} hollow` });
    case KIND.system: {
      // A hexagon: the prompt the other messages build on.
      const d = r * 1.15;
      const h = d * 0.87;
      return svg("path", {
        d: `M${x - d} ${y}L${x - d / 2} ${y - h}H${x + d / 2}L${x + d} ${y}L${x + d / 2} ${y + h}H${x - d / 2}Z`,
        class: cls,
      });
    }
    case KIND.contextEdit: {
      const d = r * 1.2;
      return svg("path", { d: `M${x} ${y - d}L${x + d} ${y}L${x} ${y + d}L${x - d} ${y}Z`, class: `${cls} hollow` });
    }
    case KIND.usage:
      return svg("circle", { cx: x, cy: y, r: r * 0.5, class: cls });
    default: {
      const d = r * 0.8;
      return svg("path", {
        d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}`,
        class: `${cls} cross`,
      });
    }
  }
}

export function legendIcon(kind) {
  const s = svg("svg", { width: 18, height: 18, viewBox: "0 0 18 18", "aria-hidden": "true", class: "legend-icon" });
  s.append(shape(kind, 9, 9));
  return s;
}

/**
 * The graph pane. Its owner feeds it with `setData` (a newly opened session),
 * `setView` (another filter or search), `setSelection` and `setPath` (the
 * leaf and the path to it), and hears back through `bind`.
 */
export class Graph {
  constructor(scroller) {
    this.scroller = scroller;
    this.onSelect = null;
    this.onCursor = null;
    this.onJump = null;
    this.spacer = el("div", "graph-spacer");
    this.layer = el("div", "graph-rows");
    // The scroller is the listbox and keeps the focus; the cursor's row is its
    // active descendant, so a screen reader reads each row the arrows reach.
    scroller.setAttribute("role", "listbox");
    scroller.append(this.spacer);
    this.spacer.append(this.layer);
    this.nodes = null;
    this.view = null;
    this.cursor = -1; // row
    this.selectedNode = -1;
    this.pathNodes = null;
    this.pathState = null; // per node: a PATH value
    this.frame = 0;
    scroller.addEventListener("scroll", () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(scroller);
    scroller.addEventListener("keydown", (e) => this.key(e));
    this.layer.addEventListener("click", (e) => {
      const jump = e.target.closest?.("[data-jump]");
      if (jump) {
        e.stopPropagation();
        this.onJump?.(jump.dataset.jump);
        return;
      }
      const row = e.target.closest?.(".row");
      if (!row) return;
      const r = Number(row.dataset.row);
      this.setCursor(r, false);
      this.onSelect?.(this.nodes.ids[this.view.rowNode[r]]);
    });
  }

  /**
   * `onSelect(id)`: an entry was clicked or chosen with Enter; `onCursor(id)`:
   * the cursor moved to it; `onJump(id)`: a reference in a row (a context
   * edit's target) was clicked.
   */
  bind({ onSelect, onCursor, onJump }) {
    this.onSelect = onSelect;
    this.onCursor = onCursor;
    this.onJump = onJump;
  }

  /** A newly opened session: its nodes and first view, with nothing selected yet. */
  setData(nodes, view) {
    this.selectedNode = -1;
    this.pathNodes = null;
    this.pathState = null;
    this.edits = new Map();
    this.targetId = null;
    this.hl = null;
    this.leafRow = -1;
    this.setNodes(nodes);
    this.setView(view);
  }

  /** Shows (or hides) each branch's cost on its leaf's row (`nodes.costs`, from the package's usage report). */
  showCosts(on) {
    this.costsOn = on;
    this.schedule();
  }

  /** Whether the session has an entry with this id. */
  has(id) {
    return this.nodeOf?.has(id) ?? false;
  }

  /** Whether the entry exists but the current filter or search hides it. */
  isHidden(id) {
    const node = this.nodeOf?.get(id);
    return node !== undefined && this.rowOfNode[node] < 0;
  }

  /** Marks the entry as the leaf, before its path arrives. */
  setSelection(id) {
    this.selectedNode = this.nodeOf.get(id) ?? -1;
    this.schedule();
  }

  setNodes(nodes) {
    this.nodes = nodes;
    this.keptFrom = new Map(); // entry id -> compaction ids keeping from it
    const { ids, kinds, refs } = nodes;
    for (let i = 0; i < ids.length; i++) {
      if (kinds[i] === KIND.compaction && refs[i]) {
        const list = this.keptFrom.get(refs[i]) ?? [];
        list.push(ids[i]);
        this.keptFrom.set(refs[i], list);
      }
    }
    this.nodeOf = new Map();
    for (let i = 0; i < ids.length; i++) this.nodeOf.set(ids[i], i);
  }

  setView(view) {
    this.view = view;
    this.rowOfNode = new Int32Array(this.nodes.ids.length).fill(-1);
    for (let r = 0; r < view.count; r++) this.rowOfNode[view.rowNode[r]] = r;
    this.spacer.style.height = `${view.count * ROW}px`;
    this.width = PAD * 2 + Math.max(1, Math.min(view.lanes, 32)) * LANE;
    this.scroller.style.setProperty("--graph-width", `${this.width}px`);
    this.computeHighlight();
    this.cursor = Math.min(this.cursor, view.count - 1);
    this.schedule();
  }

  /**
   * The context edits the selected leaf's path applies: target id →
   * `{ editId, kind }` (`kind` is "omit" or "replace").
   */
  setEdits(edits) {
    this.edits = edits;
    this.schedule();
  }

  /** Highlights one entry (pi's `targetId` link), or none for `null`. */
  setTarget(id) {
    this.targetId = id;
    this.schedule();
  }

  /** The leaf and the path to it: node indices, root first, and a PATH value for each. */
  setPath(leafId, pathNodes, pathState) {
    this.selectedNode = this.nodeOf.get(leafId) ?? -1;
    this.pathNodes = pathNodes;
    this.pathState = new Uint8Array(this.nodes.ids.length);
    for (let i = 0; i < pathNodes.length; i++) if (pathNodes[i] >= 0) this.pathState[pathNodes[i]] = pathState[i];
    this.computeHighlight();
    this.schedule();
  }

  /** Rows, connector halves and curves of the visible tree that lie on the path. */
  computeHighlight() {
    const v = this.view;
    if (!v || !this.pathNodes) return;
    const hlTop = new Uint32Array(v.count);
    const hlBot = new Uint32Array(v.count);
    const hlCurve = new Uint8Array(v.count);
    const rows = [];
    for (let i = 0; i < this.pathNodes.length; i++) {
      const n = this.pathNodes[i];
      if (n >= 0 && this.rowOfNode[n] >= 0) rows.push(this.rowOfNode[n]);
    }
    for (let k = 1; k < rows.length; k++) {
      const p = rows[k - 1],
        r = rows[k];
      if (v.parentRow[r] !== p) continue;
      const pc = v.col[p],
        c = v.col[r];
      if (pc >= 32) continue;
      const bit = (1 << pc) >>> 0;
      hlBot[p] |= bit;
      for (let q = p + 1; q < r; q++) {
        hlTop[q] |= bit;
        hlBot[q] |= bit;
      }
      if (pc === c) hlTop[r] |= bit;
      else hlCurve[r] = 1;
    }
    this.hl = { hlTop, hlBot, hlCurve };
    // The leaf's row, or (when the filter hides the leaf) its nearest visible ancestor's.
    this.leafRow = rows.length ? rows[rows.length - 1] : -1;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  visibleRange() {
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.view.count - 1, Math.ceil((top + height) / ROW) + OVERSCAN);
    return [first, last];
  }

  render() {
    if (!this.view || !this.nodes) return;
    const [first, last] = this.visibleRange();
    // A row that looks as it did keeps its element. A click is a press and a release on one
    // element: when a frame (a scroll, a live append, a selection) replaced every row in
    // between, the browser sent no click at all, and the entry was not selected.
    const kept = new Map();
    for (const child of [...this.layer.children]) {
      const r = child.dataset.row === undefined ? -1 : Number(child.dataset.row);
      if (r < first || r > last) child.remove();
      else kept.set(r, child);
    }
    // The kept rows stay in ascending order, so each new one goes before the next kept one.
    let next = this.layer.firstElementChild;
    for (let r = first; r <= last; r++) {
      const fresh = this.row(r);
      const old = kept.get(r);
      if (!old) {
        this.layer.insertBefore(fresh, next);
        continue;
      }
      next = old.nextElementSibling;
      if (!old.isEqualNode(fresh)) old.replaceWith(fresh);
    }
    if (this.view.count === 0) {
      const empty = el("div", "graph-empty", "No entries match this filter.");
      empty.setAttribute("role", "option");
      empty.setAttribute("aria-disabled", "true");
      empty.setAttribute("aria-selected", "false");
      this.layer.append(empty);
    }
    const active = this.cursor >= first && this.cursor <= last ? `graph-row-${this.cursor}` : null;
    if (active) this.scroller.setAttribute("aria-activedescendant", active);
    else this.scroller.removeAttribute("aria-activedescendant");
  }

  row(r) {
    const v = this.view;
    const { ids, kinds, summaries, labels, times, refs } = this.nodes;
    const node = v.rowNode[r];
    const id = ids[node];
    const state = this.pathState?.[node] ?? 0;
    const row = el("div", "row");
    row.dataset.row = r;
    row.dataset.entryId = id;
    row.style.top = `${r * ROW}px`;
    row.setAttribute("role", "option");
    row.id = `graph-row-${r}`;
    const isLeaf = node === this.selectedNode || (r === this.leafRow && this.rowOfNode[this.selectedNode] < 0);
    row.setAttribute("aria-selected", isLeaf ? "true" : "false");
    if (isLeaf) row.classList.add("selected");
    if (r === this.cursor) row.classList.add("cursor");
    if (id === this.targetId) {
      row.classList.add("target");
      row.dataset.target = "true";
    }
    if (state) row.classList.add("on-path", state === PATH.unsent ? "unsent" : "sent");

    const g = svg("svg", {
      class: "lanes",
      width: this.width,
      height: ROW,
      viewBox: `0 0 ${this.width} ${ROW}`,
      "aria-hidden": "true",
    });
    const x = (c) => PAD + c * LANE + LANE / 2;
    const top = v.topMask[r],
      bot = v.botMask[r];
    const hl = this.hl;
    const segs = (mask, y1, y2, cls, hlMask) => {
      for (let m = mask, c = 0; m; m >>>= 1, c++) {
        if (!(m & 1)) continue;
        const on = hlMask && (hlMask >>> c) & 1;
        g.append(
          svg("line", { x1: x(c), y1, x2: x(c), y2, class: `${cls} lane-${c % LANE_COLORS}${on ? " hl" : ""}` }),
        );
      }
    };
    segs(top, 0, MID, "lane", hl?.hlTop[r]);
    segs(bot, MID, ROW, "lane", hl?.hlBot[r]);
    const c = v.col[r];
    const pr = v.parentRow[r];
    if (pr >= 0 && v.col[pr] !== c) {
      const px = x(v.col[pr]),
        cx = x(c);
      g.append(
        svg("path", {
          d: `M${px} 0C${px} ${MID * 0.9} ${cx} ${MID * 0.2} ${cx} ${MID}`,
          class: `lane curve lane-${c % LANE_COLORS}${hl?.hlCurve[r] ? " hl" : ""}`,
        }),
      );
    }
    if (isLeaf) g.append(svg("circle", { cx: x(c), cy: MID, r: 9.5, class: "leaf-ring" }));
    const mark = shape(kinds[node], Math.min(x(c), this.width - 8), MID);
    if (state === PATH.unsent) mark.classList.add("unsent");
    g.append(mark);
    row.append(g);

    const body = el("div", "row-body");
    const kindKey = KINDS[kinds[node]]?.key ?? "other";
    body.append(el("span", `kind-badge k-${kindKey}`, KINDS[kinds[node]]?.name ?? "Other"));
    body.append(el("span", "sr-only", ":"));
    if (labels[node] !== undefined && labels[node] !== null) {
      const t = el("span", "tag", labels[node]);
      t.title = labels[node]; // the whole label, when the row cuts it
      body.append(t);
    }
    const kept = this.keptFrom.get(id);
    if (kept) {
      const t = el("span", "tag kept", "kept from here");
      t.title = `Compaction ${kept.join(", ")} keeps the context from this entry on`;
      body.append(t);
    }
    if (kinds[node] === KIND.branchSummary && refs[node]) {
      const t = el("span", "tag from", `from ${refs[node]}`);
      t.title = "This summary stands for the branch that ended at this entry";
      body.append(t);
    }
    if (kinds[node] === KIND.contextEdit && refs[node]) {
      // Not a button: an option holds no control. The Entry tab has the same link for the keyboard.
      const t = el("span", "tag edit-ref mono", `→ ${refs[node]}`);
      t.dataset.jump = refs[node];
      t.title = "Go to the entry this edit changes";
      body.append(t);
    }
    const edit = this.edits?.get(id);
    if (edit) {
      // The context panel's note links to the edit for the keyboard.
      const t = el("span", `tag edited ${edit.kind}`, edit.kind === "omit" ? "omitted" : "replaced");
      t.dataset.jump = edit.editId;
      t.dataset.edited = edit.kind === "omit" ? "omitted" : "replaced";
      t.title = `Context edit ${edit.editId} ${edit.kind === "omit" ? "leaves this entry out of" : "replaces this entry's content in"} the context at the selected leaf`;
      body.append(t);
    }
    if (state === PATH.unsent && edit?.kind !== "omit") {
      const t = el("span", "unsent-mark", "not sent");
      t.title = "On the path to the selected leaf, but not part of what the model receives";
      body.append(t);
    }
    const cost = this.costsOn ? this.nodes.costs?.[node] : null;
    if (cost) {
      const t = el("span", "tag cost", `$${cost.own.toFixed(2)}`);
      t.dataset.cost = String(cost.own);
      t.title = `This branch cost $${cost.own.toFixed(4)} below its last fork, $${cost.path.toFixed(4)} from the root`;
      body.append(t);
    }
    body.append(el("span", "row-text", summaries[node]));
    const time = el("time", "row-time", shortTime(times[node]));
    time.title = times[node];
    body.append(time);
    row.append(body);
    row.title = `${id}`;
    const marks = rowMarks({ isLeaf, state });
    if (marks) body.append(el("span", "sr-only", marks));
    return row;
  }

  /** Puts the cursor on its row again, or on the first row, and scrolls to it. */
  focusCursor() {
    this.setCursor(Math.max(0, this.cursor));
  }

  setCursor(r, scroll = true) {
    if (!this.view || this.view.count === 0) return;
    this.cursor = Math.max(0, Math.min(this.view.count - 1, r));
    if (scroll) this.scrollToRow(this.cursor);
    this.onCursor?.(this.nodes.ids[this.view.rowNode[this.cursor]]);
    this.schedule();
  }

  scrollToRow(r, center = false) {
    const top = r * ROW;
    const s = this.scroller;
    const h = s.clientHeight;
    if (center) s.scrollTop = Math.max(0, top - h / 2 + ROW / 2);
    else if (top < s.scrollTop) s.scrollTop = top;
    else if (top + ROW > s.scrollTop + h) s.scrollTop = top + ROW - h;
    this.schedule();
  }

  /** Puts the cursor on `entryId` (or its nearest visible ancestor on the path). */
  reveal(entryId, center = true) {
    if (!this.view) return;
    const node = this.nodeOf.get(entryId);
    let r = node !== undefined ? this.rowOfNode[node] : -1;
    if (r < 0 && this.pathNodes) {
      for (let i = this.pathNodes.length - 1; i >= 0 && r < 0; i--) {
        const n = this.pathNodes[i];
        if (n >= 0) r = this.rowOfNode[n];
      }
    }
    if (r < 0) return;
    this.cursor = r;
    this.scrollToRow(r, center);
  }

  key(e) {
    if (!this.view || this.view.count === 0) return;
    const page = Math.max(1, Math.floor(this.scroller.clientHeight / ROW) - 1);
    let r = Math.max(this.cursor, 0);
    switch (plainKey(e)) {
      case "ArrowDown":
      case "j":
        r++;
        break;
      case "ArrowUp":
      case "k":
        r--;
        break;
      case "PageDown":
        r += page;
        break;
      case "PageUp":
        r -= page;
        break;
      case "Home":
        r = 0;
        break;
      case "End":
        r = this.view.count - 1;
        break;
      case "ArrowLeft":
      case "h": {
        const p = this.view.parentRow[r];
        if (p >= 0) r = p;
        break;
      }
      case "ArrowRight":
      case "l": {
        for (let q = r + 1; q < this.view.count; q++)
          if (this.view.parentRow[q] === r) {
            r = q;
            break;
          }
        break;
      }
      case "Enter":
      case " ":
        e.preventDefault();
        if (this.cursor >= 0) this.onSelect?.(this.nodes.ids[this.view.rowNode[this.cursor]]);
        return;
      default:
        return;
    }
    e.preventDefault();
    this.setCursor(r);
  }
}

function shortTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return d.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}
