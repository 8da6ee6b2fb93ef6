// The Composition tab: what fills the context at the leaf (characters and
// estimated tokens by role and by tool, the provider's own input count), and
// the tokens and cost of the path beside the whole file. The figures come
// from composition.js in the worker.

import { USAGE_SOURCES } from "../analysis.js";
import { ESTIMATE_NOTE, summaryCostLine } from "../composition.js";
import { chip, el, jumpLink } from "../render.js";

// A figure the file made NaN or infinite comes as null in the package's JSON: shown as "–".
const n = (v) => (Number.isFinite(v) ? v.toLocaleString("en-US") : "–");
const money = (v) => (Number.isFinite(v) ? `$${v.toFixed(4)}` : "–");

function table(head, rows) {
  const t = el("table", "grid");
  const tr = el("tr");
  for (const h of head) tr.append(el("th", "ch", h));
  t.append(tr);
  for (const r of rows) t.append(r);
  return t;
}

function bar(share) {
  const b = el("span", "bar");
  const fill = el("span", "bar-fill");
  fill.style.width = `${Math.max(0, Math.min(100, share * 100)).toFixed(1)}%`;
  b.append(fill);
  return b;
}

export class CompositionPanel {
  /** `onJump(id)`: go to an entry in the graph. */
  constructor(box, { onJump }) {
    this.box = box;
    this.onJump = onJump;
    this.fileUsage = null;
  }

  /** The whole file's usage (from the `opened` reply's stats), shown beside the path's. */
  setFile(usage) {
    this.fileUsage = usage;
  }

  render(leafId, { composition, pathUsage }) {
    const { box } = this;
    const { total, byRole, byTool, lastInput } = composition;
    box.replaceChildren();
    box.dataset.leaf = leafId;
    const title = el("div", "panel-title");
    title.append(
      el("strong", "", "What fills the context"),
      el("span", "muted", " at "),
      jumpLink(leafId, this.onJump),
    );
    box.append(title);

    const sum = el("div", "context-meta");
    const est = chip(`≈ ${n(total.tokens)} tokens (estimate)`, "model");
    est.dataset.estimate = String(total.tokens);
    sum.append(
      chip(`${n(total.messages)} messages`, "muted"),
      chip(`${n(total.chars)} characters`, "muted"),
      ...(total.images ? [chip(`${n(total.images)} image${total.images === 1 ? "" : "s"}`, "muted")] : []),
      est,
    );
    if (lastInput) {
      const m = chip(`${n(lastInput.total)} input tokens reported`, "ok");
      m.dataset.reported = String(lastInput.total);
      m.title = `The last assistant message with usage (#${lastInput.index + 1}) reported input ${n(lastInput.input)} + cache read ${n(lastInput.cacheRead)} + cache write ${n(lastInput.cacheWrite)}: what its request sent, before its own reply`;
      sum.append(m);
    }
    box.append(sum);
    const note = el("p", "muted small estimate-note", `Characters are text only; ${ESTIMATE_NOTE}.`);
    note.dataset.testid = "estimate-note";
    box.append(note);
    if (lastInput)
      box.append(
        el(
          "p",
          "muted small",
          `Measured: message #${lastInput.index + 1}, the last assistant message with usage, reported ${n(lastInput.total)} input tokens (input ${n(lastInput.input)}, cache read ${n(lastInput.cacheRead)}, cache write ${n(lastInput.cacheWrite)}); the messages after it are not in that figure.`,
        ),
      );

    box.append(el("h3", "sub", "By role"));
    const max = Math.max(1, ...byRole.map((r) => r.tokens));
    box.append(
      table(
        ["role", "messages", "characters", "images", "est. tokens", ""],
        byRole.map((r) => {
          const tr = el("tr");
          tr.dataset.compRole = r.name;
          tr.dataset.chars = String(r.chars);
          tr.dataset.tokens = String(r.tokens);
          const share = el("td", "cd");
          share.append(bar(r.tokens / max));
          tr.append(
            el("td", "cd mono", r.name),
            el("td", "cd num", n(r.messages)),
            el("td", "cd num", n(r.chars)),
            el("td", "cd num", r.images ? n(r.images) : ""),
            el("td", "cd num", n(r.tokens)),
            share,
          );
          return tr;
        }),
      ),
    );

    box.append(el("h3", "sub", "By tool (calls and results)"));
    if (byTool.length === 0) box.append(el("p", "empty", "No tool calls or results in this context."));
    else {
      const tmax = Math.max(1, ...byTool.map((r) => r.tokens));
      box.append(
        table(
          ["tool", "calls", "results", "characters", "est. tokens", ""],
          byTool.map((r) => {
            const tr = el("tr");
            tr.dataset.compTool = r.name;
            tr.dataset.chars = String(r.chars);
            const share = el("td", "cd");
            share.append(bar(r.tokens / tmax));
            tr.append(
              el("td", "cd mono", r.name),
              el("td", "cd num", n(r.calls)),
              el("td", "cd num", n(r.results)),
              el("td", "cd num", n(r.chars)),
              el("td", "cd num", n(r.tokens)),
              share,
            );
            return tr;
          }),
        ),
      );
    }

    box.append(el("h3", "sub", "Tokens and cost: this path and the whole file"));
    const file = this.fileUsage;
    const row = (label, get, cls = "") => {
      const tr = el("tr", cls);
      tr.append(el("th", "ch", label), el("td", "cd num", get(pathUsage)), el("td", "cd num", file ? get(file) : ""));
      return tr;
    };
    const rows = [
      row("cost", (u) => money(u.cost), "strong"),
      row("tokens (input + output + cache)", (u) => n(u.total), "strong"),
      row("input", (u) => n(u.input)),
      row("output", (u) => n(u.output)),
      row("cache read", (u) => n(u.cacheRead)),
      row("cache write", (u) => n(u.cacheWrite)),
    ];
    const sources = new Set([...Object.keys(pathUsage.by), ...Object.keys(file?.by ?? {})]);
    for (const s of sources) {
      const pick = (u) => {
        const b = u.by[s];
        return b ? `${money(b.cost)} · ${n(b.total)}` : "–";
      };
      rows.push(row(`from ${USAGE_SOURCES[s] ?? s}`, pick, "source"));
    }
    const t = table(["", "this path", "whole file"], rows);
    t.dataset.testid = "usage-table";
    box.append(t);
    for (const [label, u] of [
      ["This path", pathUsage],
      ["The whole file", file],
    ]) {
      const line = u && summaryCostLine(u);
      if (!line) continue;
      const p = el("p", "small", `${label}: ${line}`);
      p.dataset.testid = "summary-cost";
      box.append(p);
    }
    box.append(
      el(
        "p",
        "muted small",
        "As pi's session stats count usage: assistant messages, usage entries (cache warming), compactions, branch summaries and tool results that report usage. The path is every entry from the root to the leaf, whether the model sees it or not.",
      ),
    );
  }

  /** Empties the panel, saying `text` (why there is nothing). */
  renderNothing(text = "Nothing to show.") {
    this.box.replaceChildren(el("p", "empty", text));
    delete this.box.dataset.leaf;
  }
}
