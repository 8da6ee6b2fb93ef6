// The Context tab: pi's buildSessionProjection at the leaf, with the model,
// thinking level and path length above it. Each message names the entry it
// comes from, and says so when a context edit replaced its content. Long
// contexts are drawn in chunks as they scroll into view.

import { messageLabel } from "../a11y.js";
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
  render(leafId, { context, sources, editedBy, pathNodes, state, ms }, { targetId = null } = {}) {
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
    const replaced = editedBy.filter(Boolean).length;
    if (replaced) meta.append(chip(`${replaced} replaced by context edits`, "warn"));
    meta.title = `buildSessionProjection took ${ms} ms`;
    head.append(title, meta);
    box.replaceChildren();
    box.dataset.leaf = leafId;
    // A list of messages for screen readers, each named by its role and place.
    if (messages.length) box.setAttribute("role", "list");
    else box.removeAttribute("role");
    let shown = 0;
    const more = () => {
      const end = Math.min(messages.length, shown + CHUNK);
      const frag = document.createDocumentFragment();
      for (; shown < end; shown++) {
        const k = shown;
        const checkpoint =
          messages[k]?.role === "system" &&
          sources[k + 1] === sources[k] &&
          messages[k + 1]?.role === "compactionSummary";
        const art = this.message(messages[k], k, sources[k], editedBy[k], checkpoint);
        art.setAttribute("role", "listitem");
        const role = messages[k] === undefined || messages[k] === null ? null : messages[k].role;
        art.setAttribute("aria-label", messageLabel(role, k, messages.length, sources[k]));
        frag.append(art);
      }
      box.append(frag);
      if (shown < messages.length) {
        // In an item of its own: a list holds only items.
        const item = el("div", "more-item");
        item.setAttribute("role", "listitem");
        const b = el("button", "button more", `Show more (${messages.length - shown} left)`);
        b.type = "button";
        b.addEventListener("click", () => {
          item.remove();
          more();
        });
        item.append(b);
        box.append(item);
        const io = new IntersectionObserver((entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            io.disconnect();
            if (item.isConnected) {
              item.remove();
              more();
            }
          }
        });
        io.observe(b);
      }
    };
    if (messages.length === 0) box.append(el("p", "empty", "The model receives nothing at this leaf."));
    more();
    if (targetId) this.highlight(targetId, more, () => shown < messages.length);
  }

  /** One message, marked with its source entry and the edit that replaced it. */
  message(msg, index, sourceId, editId, checkpoint) {
    const art = renderMessage(msg, { index, onJump: this.onJump });
    art.dataset.sourceId = sourceId;
    const head = art.querySelector(".msg-head");
    const from = el("span", "source muted small", "from ");
    from.append(jumpLink(sourceId, (id) => this.onJump(id, false)));
    head?.insertBefore(from, head.querySelector(".msg-time"));
    if (checkpoint) {
      art.classList.add("checkpoint");
      const c = chip("compaction checkpoint", "muted");
      c.title = "The system prompt and tools as the compaction stored them";
      from.before(c);
    }
    if (editId) {
      art.dataset.edited = "replaced";
      const note = el("div", "edited-note");
      note.append(
        el("span", "", "Content replaced by context edit "),
        jumpLink(editId, (id) => this.onJump(id, false)),
      );
      head?.after(note);
    }
    return art;
  }

  /** Scrolls to and marks the messages of entry `id`, drawing more chunks until they are in. */
  highlight(id, more, hasMore) {
    for (const old of this.box.querySelectorAll(".msg.target")) old.classList.remove("target");
    let found = this.box.querySelectorAll(`[data-source-id="${CSS.escape(id)}"]`);
    while (found.length === 0 && hasMore()) {
      this.box.querySelector(".more-item")?.remove();
      more();
      found = this.box.querySelectorAll(`[data-source-id="${CSS.escape(id)}"]`);
    }
    for (const m of found) m.classList.add("target");
    found[0]?.scrollIntoView({ block: "center" });
  }

  /** A session without entries. */
  /** Empties the panel, saying `text` (why there is nothing). */
  renderNothing(text = "Nothing to show.") {
    this.box.removeAttribute("role");
    this.box.replaceChildren(el("p", "empty", text));
    delete this.box.dataset.leaf;
    this.head.replaceChildren();
  }
}
