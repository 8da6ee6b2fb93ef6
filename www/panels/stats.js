// The Stats tab: the header, the tree's shape, counts by type and role,
// usage and models, and how long opening took (the figures come from
// analysis.js).

import { statsTables, timingLine } from "../analysis.js";
import { el } from "../render.js";

export class StatsPanel {
  constructor(panel) {
    this.panel = panel;
  }

  render(info) {
    const { panel } = this;
    panel.replaceChildren();
    for (const [title, rows] of statsTables(info)) {
      const section = el("section", "stats-section");
      section.append(el("h3", "", title));
      const t = el("table", "kv");
      for (const [k, v] of rows) {
        const tr = el("tr");
        tr.append(el("th", "", k), el("td", "", v));
        t.append(tr);
      }
      section.append(t);
      panel.append(section);
    }
    panel.append(el("p", "muted small", timingLine(info.timings)));
  }
}
