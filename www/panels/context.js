// The Context tab: what buildSessionContext returns at the leaf, with the
// model, thinking level and path length above it. Long contexts are drawn in
// chunks as they scroll into view.

import { PATH } from "../messages.js";
import { chip, el, jumpLink, renderMessage } from "../render.js";

const CHUNK = 200;

export class ContextPanel {
  /** `onJump(id, select)`: go to an entry in the graph (and make it the leaf unless `select` is false). */
  constructor(head, box, { onJump }) {
    this.head = head;
    this.box = box;
    this.onJump = onJump;
  }

  /** The context at `leafId`, from the worker's `selected` reply. */
  render(leafId, { context, pathNodes, state, ms }) {
    const { head, box } = this;
    const { messages, thinkingLevel, model } = context;
    let hidden = 0;
    for (let i = 0; i < state.length; i++) if (state[i] === PATH.unsent) hidden++;
    head.replaceChildren();
    const title = el("div", "context-title");
    title.append(
      el("strong", "", `${messages.length} message${messages.length === 1 ? "" : "s"}`),
      el("span", "muted", " sent to the model at "),
      jumpLink(leafId, (id) => this.onJump(id, false)),
    );
    const meta = el("div", "context-meta");
    meta.append(
      chip(model ? `${model.provider}/${model.modelId}` : "no model yet", "model"),
      chip(`thinking: ${thinkingLevel}`, "thinking"),
      chip(`${pathNodes.length} entries on the path`, "muted"),
    );
    if (hidden) meta.append(chip(`${hidden} not sent`, "muted"));
    meta.title = `buildSessionContext took ${ms} ms`;
    head.append(title, meta);
    box.replaceChildren();
    box.dataset.leaf = leafId;
    let shown = 0;
    const more = () => {
      const end = Math.min(messages.length, shown + CHUNK);
      const frag = document.createDocumentFragment();
      for (; shown < end; shown++) frag.append(renderMessage(messages[shown], { index: shown, onJump: this.onJump }));
      box.append(frag);
      if (shown < messages.length) {
        const b = el("button", "button more", `Show more (${messages.length - shown} left)`);
        b.type = "button";
        b.addEventListener("click", () => {
          b.remove();
          more();
        });
        box.append(b);
        const io = new IntersectionObserver((entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            io.disconnect();
            if (b.isConnected) {
              b.remove();
              more();
            }
          }
        });
        io.observe(b);
      }
    };
    if (messages.length === 0) box.append(el("p", "empty", "The model receives nothing at this leaf."));
    more();
  }

  /** A session without entries. */
  renderNothing() {
    this.box.replaceChildren(el("p", "empty", "Nothing to show."));
    this.head.replaceChildren();
  }
}
