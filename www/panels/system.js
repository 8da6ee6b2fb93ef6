// The System tab: the system prompt and tools the model has at the leaf (pi-ai's
// `currentSystemMessage`, replayed by the package), its sections by name, and
// what changed since the system message before the latest one (analysis.js's
// `systemView`).

import { chip, el, jumpLink } from "../render.js";

export class SystemPanel {
  /** `onJump(id)`: go to an entry in the graph. */
  constructor(box, { onJump }) {
    this.box = box;
    this.onJump = onJump;
  }

  render(leafId, system) {
    const { box } = this;
    box.replaceChildren();
    box.dataset.leaf = leafId;
    const title = el("div", "panel-title");
    title.append(el("strong", "", "System prompt"), el("span", "muted", " at "), jumpLink(leafId, this.onJump));
    box.append(title);
    if (!system) {
      box.append(
        el(
          "p",
          "empty",
          "No system message reaches the model here: the session was written before pi 1.6, or this leaf comes before its first request.",
        ),
      );
      return;
    }
    const meta = el("div", "context-meta");
    meta.append(
      chip(`${system.content.length.toLocaleString("en-US")} characters of text`, "muted"),
      chip(`${system.sections.length} section${system.sections.length === 1 ? "" : "s"}`, "muted"),
      chip(`${system.tools.length} tool${system.tools.length === 1 ? "" : "s"}`, "muted"),
    );
    if (system.sourceId) {
      const from = el("span", "muted small", "latest system message: ");
      from.append(jumpLink(system.sourceId, this.onJump));
      meta.append(from);
    }
    box.append(meta);

    if (system.content) {
      box.append(el("h3", "sub", "Text"));
      const pre = el("pre", "output prompt");
      pre.textContent = system.content;
      box.append(pre);
    }

    if (system.sections.length) {
      box.append(el("h3", "sub", "Sections"));
      for (const s of system.sections) {
        const d = el("details", "section");
        d.dataset.section = s.name;
        const summary = el("summary");
        summary.append(el("span", "mono", s.name), el("span", "muted small", ` ${s.text.length} characters`));
        if (s.status !== "same") summary.append(chip(s.status, s.status === "new" ? "ok" : "warn"));
        const pre = el("pre", "output prompt");
        pre.textContent = s.text;
        d.append(summary, pre);
        box.append(d);
      }
    }

    box.append(el("h3", "sub", "Tools"));
    if (system.tools.length === 0) box.append(el("p", "empty", "No tools."));
    const list = el("ul", "tools");
    for (const t of system.tools) {
      const li = el("li", `tool tool-${t.status}`);
      li.dataset.tool = t.name;
      li.dataset.status = t.status;
      li.append(el("span", "tool-name", t.name));
      if (t.status === "added") li.append(chip("added", "ok"));
      if (t.description) li.append(el("span", "muted small tool-desc", t.description));
      list.append(li);
    }
    for (const name of system.removed) {
      const li = el("li", "tool tool-removed");
      li.dataset.tool = name;
      li.dataset.status = "removed";
      li.append(el("span", "tool-name", name), chip("removed", "warn"));
      list.append(li);
    }
    box.append(list);
    if (system.tools.some((t) => t.status === "added") || system.removed.length)
      box.append(el("p", "muted small", "Added and removed: since the system message before the latest one."));
  }

  /** Empties the panel, saying `text` (why there is nothing). */
  renderNothing(text = "Nothing to show.") {
    this.box.replaceChildren(el("p", "empty", text));
    delete this.box.dataset.leaf;
  }
}
