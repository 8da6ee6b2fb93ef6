// The Entry tab: one entry as the file has it, its message rendered, its raw
// JSON below.

import { codeBlock } from "../markdown.js";
import { editLine } from "../model.js";
import { el, json, jumpLink, renderMessage } from "../render.js";

export class EntryPanel {
  /** `onSelect(id)`: make the entry the leaf; `onJump(id)`: go to an entry. */
  constructor(panel, { onSelect, onJump }) {
    this.panel = panel;
    this.onSelect = onSelect;
    this.onJump = onJump;
  }

  renderEmpty(text = "No entry selected.") {
    this.panel.replaceChildren(el("p", "empty", text));
  }

  render(id, entry) {
    const { panel } = this;
    // Drawn again under the keyboard's focus (its own "Make this the leaf" redraws it): the
    // focus goes to the new button, not to the page's body.
    const hadFocus = panel.contains(panel.ownerDocument.activeElement);
    panel.replaceChildren();
    const head = el("div", "entry-head");
    head.append(el("strong", "", String(entry?.type ?? "entry")), el("span", "muted", " "), el("span", "mono", id));
    const use = el("button", "button small", "Make this the leaf");
    use.type = "button";
    use.addEventListener("click", () => this.onSelect(id));
    head.append(use);
    panel.append(head);
    if ((entry?.type === "context_edit" || entry?.type === "label") && typeof entry.targetId === "string") {
      const target = el("p", "muted small", entry.type === "context_edit" ? `${editLine(entry)} · target ` : "target ");
      target.append(jumpLink(entry.targetId, this.onJump));
      panel.append(target);
    }
    if (entry?.type === "message") panel.append(renderMessage(entry.message, { onJump: this.onJump }));
    const raw = el("details", "raw");
    raw.open = entry?.type !== "message";
    raw.append(el("summary", "", "Raw JSON"), codeBlock(json(entry), "json"));
    panel.append(raw);
    if (hadFocus) use.focus({ preventScroll: true });
  }
}
