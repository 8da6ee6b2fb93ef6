// The Usage view over a folder: the range picker, the range's totals, spend
// per day (or week, or month) as an SVG bar chart stacked by model, and the
// most expensive sessions and branches as links. It draws what `load(options)`
// gives (usage-data.js's view, from `serve` or from a folder opened in the
// page); the geometry is model.js's.

import { formatCost, formatTokens, isDate, layoutChart, PRESETS, rangeOf, today } from "./model.js";

const SVG = "http://www.w3.org/2000/svg";

const el = (doc, tag, cls, text) => {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const svg = (doc, tag, attrs = {}) => {
  const e = doc.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};

const round = (n) => Math.round(n * 100) / 100;
const plural = (n, word) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

const TOTALS = [
  ["cost", "Cost", formatCost],
  ["totalTokens", "Tokens", formatTokens],
  ["input", "Input", formatTokens],
  ["output", "Output", formatTokens],
  ["cacheRead", "Cache read", formatTokens],
  ["cacheWrite", "Cache write", formatTokens],
  ["records", "Requests", (n) => n.toLocaleString("en-US")],
];

export class UsageView {
  /**
   * `load(options)` resolves to the view's data for `{ since, until,
   * timeZone, bars }`; `titleOf(path)` names a session; `href(path, leafId)`
   * is the link that opens it.
   */
  constructor(doc, { load, titleOf, href, timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone }) {
    Object.assign(this, { doc, load, titleOf, href, timeZone });
    this.seq = 0;
    this.data = null;
    this.root = el(doc, "section", "usage-view");
    this.root.dataset.testid = "usage-view";
    this.root.setAttribute("aria-label", "Usage and spend");
    this.build();
  }

  build() {
    const { doc } = this;
    const controls = el(doc, "div", "usage-controls");
    const field = (text, input) => {
      const label = el(doc, "label", "usage-field");
      label.append(el(doc, "span", "usage-field-name", text), input);
      return label;
    };
    this.preset = el(doc, "select");
    this.preset.dataset.testid = "usage-preset";
    for (const p of [...PRESETS, { id: "custom", label: "Custom dates" }]) {
      const o = el(doc, "option", null, p.label);
      o.value = p.id;
      this.preset.append(o);
    }
    this.since = el(doc, "input");
    this.until = el(doc, "input");
    for (const [input, id] of [
      [this.since, "usage-since"],
      [this.until, "usage-until"],
    ]) {
      input.type = "date";
      input.dataset.testid = id;
    }
    this.bars = el(doc, "select");
    this.bars.dataset.testid = "usage-bars";
    for (const [value, text] of [
      ["auto", "Auto"],
      ["day", "Days"],
      ["week", "Weeks"],
      ["month", "Months"],
    ]) {
      const o = el(doc, "option", null, text);
      o.value = value;
      this.bars.append(o);
    }
    this.status = el(doc, "span", "usage-status");
    this.status.setAttribute("role", "status");
    this.status.dataset.testid = "usage-status";
    controls.append(
      field("Range", this.preset),
      field("From", this.since),
      field("To", this.until),
      field("Bars", this.bars),
      this.status,
    );
    this.preset.addEventListener("change", () => this.refresh());
    const custom = () => {
      this.preset.value = "custom";
      this.refresh();
    };
    this.since.addEventListener("change", custom);
    this.until.addEventListener("change", custom);
    this.bars.addEventListener("change", () => this.refresh());

    this.totals = el(doc, "dl", "usage-totals");
    this.totals.dataset.testid = "usage-totals";
    this.note = el(doc, "p", "usage-note");
    this.chartBox = el(doc, "div", "usage-chart-box");
    this.chartBox.tabIndex = 0;
    this.chartBox.setAttribute("aria-label", "Spend chart (scrolls sideways when wide)");
    this.legend = el(doc, "ul", "usage-legend");
    this.legend.dataset.testid = "usage-legend";
    const lists = el(doc, "div", "usage-lists");
    const list = (title, testid) => {
      const section = el(doc, "section", "usage-list");
      section.append(el(doc, "h3", null, title));
      const ol = el(doc, "ol");
      ol.dataset.testid = testid;
      section.append(ol);
      lists.append(section);
      return ol;
    };
    this.sessions = list("Most expensive sessions in the range", "usage-sessions");
    this.branches = list("Most expensive branches (all time; the part below each one's last fork)", "usage-branches");
    this.root.append(controls, this.totals, this.note, this.chartBox, this.legend, lists);
  }

  /** The options the controls say. */
  options() {
    const on = today(this.timeZone);
    const { since, until } = rangeOf(this.preset.value, on, { since: this.since.value, until: this.until.value });
    return { since, until, timeZone: this.timeZone, bars: this.bars.value };
  }

  async refresh() {
    const seq = ++this.seq;
    const options = this.options();
    this.status.textContent = "Counting…";
    this.root.dataset.ready = "false";
    let data;
    try {
      data = await this.load(options, (done, total) => {
        if (seq === this.seq) this.status.textContent = `Reading sessions… ${done} / ${total}`;
      });
    } catch (error) {
      if (seq !== this.seq) return;
      this.status.textContent = `Could not count the usage: ${error?.message ?? error}`;
      return;
    }
    if (seq !== this.seq) return;
    this.data = data;
    this.render();
    this.root.dataset.ready = "true";
  }

  render() {
    const { doc, data } = this;
    if (this.preset.value !== "custom") {
      // The date inputs show the range the chart covers.
      this.since.value = isDate(data.since) ? data.since : (data.first ?? "");
      this.until.value = isDate(data.until) ? data.until : (data.last ?? "");
    }
    this.status.textContent = `${plural(data.files, "session file")} · by ${data.unit}`;
    const items = [];
    for (const [key, name, format] of TOTALS) {
      const box = el(doc, "div", "usage-total");
      const dd = el(doc, "dd", null, format(data.total[key]));
      dd.dataset.testid = `usage-total-${key}`;
      dd.dataset.value = String(data.total[key]);
      box.append(el(doc, "dt", null, name), dd);
      items.push(box);
    }
    this.totals.replaceChildren(...items);
    const notes = [];
    if (data.copies) notes.push(`${plural(data.copies, "request")} repeated in forks and copies counted once.`);
    if (data.total.incomplete)
      notes.push(`${plural(data.total.incomplete, "request")} had usage fields missing or not numbers (counted as 0).`);
    if (data.skipped?.length) notes.push(`${plural(data.skipped.length, "file")} could not be read as sessions.`);
    this.note.textContent = notes.join(" ");
    this.drawChart();
    this.fillLists();
  }

  drawChart() {
    const { doc, data } = this;
    const width = Math.max(320, this.chartBox.clientWidth || 800);
    const layout = layoutChart(data, { width, height: 260 });
    this.layout = layout;
    if (!layout.bars.length) {
      this.chartBox.replaceChildren(el(doc, "p", "usage-empty", "No paid requests in this range."));
      this.legend.replaceChildren();
      return;
    }
    const root = svg(doc, "svg", {
      width: round(layout.width),
      height: layout.height,
      viewBox: `0 0 ${round(layout.width)} ${layout.height}`,
      class: "usage-chart",
      role: "img",
      "data-testid": "usage-chart",
      "aria-label": `Spend per ${data.unit}, stacked by model: ${formatCost(data.total.cost)} in ${plural(layout.bars.length, data.unit)}`,
    });
    const { plot } = layout;
    for (const t of layout.yTicks) {
      root.append(
        svg(doc, "line", {
          x1: plot.x,
          x2: round(plot.x + plot.w),
          y1: round(t.y),
          y2: round(t.y),
          class: "usage-grid",
        }),
      );
      const label = svg(doc, "text", { x: plot.x - 6, y: round(t.y + 4), class: "usage-axis", "text-anchor": "end" });
      label.textContent = formatCost(t.value);
      root.append(label);
    }
    for (const bar of layout.bars) {
      const g = svg(doc, "g", { class: "usage-bar", "data-key": bar.key, "data-cost": bar.cost });
      const title = svg(doc, "title");
      title.textContent = [
        `${bar.label}: ${formatCost(bar.cost)}`,
        ...bar.segments.map((s) => `${s.model}: ${formatCost(s.cost)}`),
      ].join("\n");
      g.append(title);
      // A transparent column: the bar's tooltip over its whole height, empty days included.
      g.append(
        svg(doc, "rect", { x: round(bar.x), y: plot.y, width: round(bar.w), height: plot.h, class: "usage-hit" }),
      );
      for (const s of bar.segments) {
        if (s.h <= 0) continue;
        g.append(
          svg(doc, "rect", {
            x: round(bar.x),
            y: round(s.y),
            width: round(Math.max(bar.w, 1)),
            height: round(Math.max(s.h, 0.5)),
            class: `usage-seg slot-${s.slot}`,
            "data-model": s.model,
          }),
        );
      }
      root.append(g);
    }
    root.append(
      svg(doc, "line", {
        x1: plot.x,
        x2: round(plot.x + plot.w),
        y1: plot.y + plot.h,
        y2: plot.y + plot.h,
        class: "usage-baseline",
      }),
    );
    for (const t of layout.xTicks) {
      const label = svg(doc, "text", {
        x: round(t.x),
        y: plot.y + plot.h + 18,
        class: "usage-axis",
        "text-anchor": "middle",
      });
      label.textContent = t.label;
      root.append(label);
    }
    this.chartBox.replaceChildren(root);
    this.legend.replaceChildren(
      ...layout.legend.map((item) => {
        const li = el(doc, "li");
        li.append(el(doc, "span", `usage-swatch slot-${item.slot}`), el(doc, "span", "usage-model", item.label));
        if (item.cost !== null) li.append(el(doc, "span", "usage-cost", formatCost(item.cost)));
        if (item.models) li.title = item.models.join("\n");
        return li;
      }),
    );
  }

  fillLists() {
    const { doc, data } = this;
    const link = (path, leafId, title, usage, extra) => {
      const li = el(doc, "li");
      const a = el(doc, "a", "usage-link");
      a.href = this.href(path, leafId);
      a.dataset.sessionPath = path;
      if (leafId) a.dataset.entryId = leafId;
      a.title = path;
      a.dataset.cost = String(usage.cost);
      a.append(el(doc, "span", "usage-link-title", title), el(doc, "span", "usage-link-meta", extra));
      li.append(a, el(doc, "span", "usage-cost", formatCost(usage.cost)));
      return li;
    };
    this.sessions.replaceChildren(
      ...(data.sessions.length
        ? data.sessions.map((s) =>
            link(
              s.path,
              null,
              this.titleOf(s.path),
              s.usage,
              `${plural(s.usage.records, "request")} · ${formatTokens(s.usage.totalTokens)} tokens`,
            ),
          )
        : [el(doc, "li", "muted", "None in this range.")]),
    );
    this.branches.replaceChildren(
      ...(data.branches.length
        ? data.branches.map((b) =>
            link(
              b.path,
              b.leafId,
              this.titleOf(b.path),
              b.own,
              `leaf ${b.leafId} · its path from the root ${formatCost(b.usage.cost)}`,
            ),
          )
        : [el(doc, "li", "muted", "No session in this folder branches.")]),
    );
  }
}
