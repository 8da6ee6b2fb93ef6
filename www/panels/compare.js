// The compare view: the fork point of two branches, then each side after it
// as a column (entries, tool calls, files touched, tokens and cost). It draws
// what compare.js's `compareBranches` returns; `onSwap`, `onClose` and
// `onJump(id)` go back to the controller.

import { formatTokens } from "../analysis.js";
import { KINDS } from "../model.js";
import { chip, el, jumpLink } from "../render.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export class ComparePanel {
  constructor(box, { onSwap, onClose, onJump }) {
    this.box = box;
    Object.assign(this, { onSwap, onClose, onJump });
  }

  /** Shows the comparison of leaves `a` and `b`. */
  render(comparison) {
    const { box } = this;
    const { fork, a, b } = comparison;
    box.replaceChildren();
    box.dataset.a = a.leafId;
    box.dataset.b = b.leafId;
    const head = el("div", "compare-head");
    head.append(el("h2", "", "Two branches side by side"));
    const swap = el("button", "button small", "Swap sides");
    swap.type = "button";
    swap.dataset.testid = "compare-swap";
    swap.addEventListener("click", () => this.onSwap());
    const close = el("button", "button small", "Close");
    close.type = "button";
    close.dataset.testid = "compare-close";
    close.addEventListener("click", () => this.onClose());
    head.append(swap, close);

    const forkBox = el("div", "compare-fork");
    forkBox.dataset.testid = "fork-point";
    if (fork) {
      forkBox.dataset.entryId = fork.id;
      forkBox.append(
        el("span", "muted", "Fork point (last common entry): "),
        jumpLink(fork.id, (id) => this.onJump(id)),
        el("span", "compare-summary", ` ${fork.summary}`),
        el("span", "muted small", ` · entry ${fork.index + 1} of both paths`),
      );
    } else {
      forkBox.dataset.entryId = "";
      forkBox.append(el("span", "muted", "No common entry: the two leaves are on different roots."));
    }

    const columns = el("div", "compare-columns");
    columns.append(this.side("A", "side-a", a), this.side("B", "side-b", b));
    box.append(head, forkBox, columns);
  }

  side(name, testid, side) {
    const col = el("section", "compare-side");
    col.dataset.testid = testid;
    col.dataset.leaf = side.leafId;
    const title = el("h3", "");
    title.append(
      el("span", "", `Side ${name}: leaf `),
      jumpLink(side.leafId, (id) => this.onJump(id)),
    );
    const u = side.usage;
    const meta = el("div", "context-meta");
    meta.append(
      chip(`${side.rows.length} after the fork`, "muted"),
      chip(plural(side.messages, "message"), "muted"),
      chip(plural(side.toolCalls.length, "tool call"), "muted"),
      chip(plural(side.files.length, "file"), "muted"),
    );
    if (u) {
      meta.append(
        chip(
          `${formatTokens(u.totalTokens)} tokens (in ${formatTokens(u.input)}, out ${formatTokens(u.output)})`,
          "muted",
        ),
        chip(`$${u.cost.toFixed(4)}`, "muted"),
      );
      meta.lastChild.dataset.testid = "compare-cost";
    }
    col.append(title, meta);

    const files = el("details", "compare-files");
    files.open = side.files.length > 0 && side.files.length <= 12;
    files.append(el("summary", "", `Files touched (${side.files.length})`));
    const fl = el("ul", "compare-list");
    for (const f of side.files) {
      const li = el("li", "mono", f.path);
      li.append(el("span", "muted", ` ${f.tools.join(", ")}`));
      fl.append(li);
    }
    files.append(fl);
    const calls = el("details", "compare-calls");
    calls.append(el("summary", "", `Tool calls (${side.toolCalls.length})`));
    const cl = el("ul", "compare-list");
    for (const c of side.toolCalls) cl.append(el("li", "mono", c.text));
    calls.append(cl);
    col.append(files, calls);

    const list = el("ol", "compare-entries");
    for (const r of side.rows) {
      const li = el("li", `compare-entry k-${KINDS[r.kind]?.key ?? "other"}`);
      li.dataset.entryId = r.id;
      const id = el("button", "link-button mono", r.id);
      id.type = "button";
      id.addEventListener("click", () => this.onJump(r.id));
      li.append(
        el("span", "compare-kind", KINDS[r.kind]?.name ?? "Other"),
        id,
        el("span", "compare-summary", r.summary),
      );
      list.append(li);
    }
    if (!side.rows.length) col.append(el("p", "empty", "Nothing after the fork point: this leaf is the fork point."));
    col.append(list);
    return col;
  }

  renderError(message) {
    this.box.replaceChildren(el("p", "empty", message));
  }
}
