// The Diagnostics tab: what inspectSession found, one item per problem, with
// a link to the entry when the graph has it; and the count on the tab.

import { el, jumpLink } from "../render.js";

export class DiagnosticsPanel {
  /** `canJump(id)`: whether the graph has the entry; `onJump(id)`: go there. */
  constructor(box, count, { canJump, onJump }) {
    this.box = box;
    this.count = count;
    this.canJump = canJump;
    this.onJump = onJump;
  }

  render(list) {
    const { box, count } = this;
    box.replaceChildren();
    count.textContent = String(list.length);
    count.classList.toggle("bad", list.length > 0);
    if (list.length === 0) {
      box.append(el("p", "empty ok", "No problems: the file is a clean version 3 session."));
      return;
    }
    const ul = el("ul", "diag-list");
    for (const d of list) {
      const li = el("li", `diag diag-${d.kind}`);
      li.dataset.kind = d.kind;
      const head = el("div", "diag-head");
      head.append(el("span", "chip warn mono", d.kind));
      if (d.line !== undefined) head.append(el("span", "chip muted", `line ${d.line}`));
      if (d.entryId !== undefined) {
        if (this.canJump(d.entryId)) head.append(jumpLink(d.entryId, this.onJump));
        else head.append(el("span", "mono muted", d.entryId));
      }
      li.append(head, el("div", "diag-message", d.message));
      ul.append(li);
    }
    box.append(ul);
  }
}
