// The page inside a shared branch file. share.js inlines this file's text in
// the HTML it builds, so it is a plain script with no imports: it reads the
// data share.js embedded (entries' summaries and filters, the context at the
// leaf) and the redacted JSONL, and draws the branch, pi's filters, the
// context and each entry's JSON. It fetches nothing, and puts session text
// in the page through textContent only.

(() => {
  const CSS = `
:root { --bg: #f6f7f9; --surface: #fff; --border: #e2e5ea; --text: #1c2230; --muted: #525b6d; --accent: #4f46e5;
  --selected: rgba(79, 70, 229, 0.13); --code: #f3f4f7;
  --k-user: #2563eb; --k-assistant: #16a34a; --k-tool: #64748b; --k-bash: #d97706; --k-custom-message: #db2777;
  --k-compaction: #7c3aed; --k-branch-summary: #0d9488; --k-model: #0891b2; --k-thinking: #a16207; --k-label: #ca8a04;
  --k-session-info: #475569; --k-custom: #94a3b8; --k-system: #9333ea; --k-context-edit: #e11d48; --k-usage: #94a3b8;
  --k-other: #dc2626; --label-text: #854d0e; color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --bg: #0f1218; --surface: #161a22; --border: #2a303c; --text: #e3e7ee;
  --muted: #a3aab8; --accent: #8b87ff; --selected: rgba(139, 135, 255, 0.18); --code: #1d222c;
  --label-text: #facc15; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--text); background: var(--bg); }
header.top { padding: 10px 16px; background: var(--surface); border-bottom: 1px solid var(--border); }
header.top h1 { font-size: 16px; margin: 0; }
.muted { color: var(--muted); } .mono { font-family: ui-monospace, monospace; font-size: 12.5px; }
.layout { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(320px, 1fr); gap: 12px; padding: 12px 16px; }
@media (max-width: 900px) { .layout { grid-template-columns: 1fr; } }
section.pane { background: var(--surface); border: 1px solid var(--border); border-radius: 8px; padding: 10px; min-width: 0; }
.filters, .tabs { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 8px; }
button { font: inherit; color: inherit; background: var(--surface); border: 1px solid var(--border); border-radius: 6px;
  padding: 3px 10px; cursor: pointer; }
button[aria-pressed="true"], button[aria-selected="true"] { border-color: var(--accent); color: var(--accent); }
ol.rows { list-style: none; margin: 0; padding: 0; }
li.row { display: flex; gap: 8px; align-items: baseline; padding: 3px 6px 3px 22px; position: relative; cursor: pointer;
  border-radius: 4px; }
li.row::before { content: ""; position: absolute; left: 9px; top: 0; bottom: 0; border-left: 2px solid var(--border); }
li.row::after { content: ""; position: absolute; left: 5px; top: 9px; width: 10px; height: 10px; border-radius: 50%;
  background: var(--dot, var(--k-other)); }
li.row.leaf { font-weight: 600; } li.row.current { background: var(--selected); }
.row-open { all: unset; display: flex; gap: 8px; align-items: baseline; min-width: 0; flex: 1; cursor: pointer; }
.row-open:focus-visible, button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
@media (max-width: 600px) { .layout { padding: 8px; gap: 8px; } header.top { padding: 8px 10px; }
  li.row { padding-top: 6px; padding-bottom: 6px; } }
.summary { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.tag { flex: 0 1 auto; min-width: 0; max-width: 40%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
  font-size: 11px; padding: 0 6px; border-radius: 999px; border: 1px solid var(--k-label); color: var(--label-text); }
article.msg { border: 1px solid var(--border); border-left: 3px solid var(--dot, var(--k-other)); border-radius: 6px;
  padding: 6px 10px; margin-bottom: 8px; }
article.msg header { display: flex; gap: 8px; align-items: baseline; font-size: 12.5px; }
.msg-text, pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
pre { background: var(--code); padding: 6px 8px; border-radius: 4px; font: 12px/1.4 ui-monospace, monospace; }
img { max-width: 100%; }
#jsonl-box { margin: 0 16px 24px; } #jsonl-box textarea { width: 100%; font: 12px ui-monospace, monospace; }
`;
  const KIND_COLOR = (kind) => `var(--k-${kind})`;
  const ROLE_KIND = {
    user: "user",
    assistant: "assistant",
    toolResult: "tool",
    bashExecution: "bash",
    custom: "custom-message",
    branchSummary: "branch-summary",
    compactionSummary: "compaction",
    system: "system",
  };

  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const json = (v) => {
    try {
      return JSON.stringify(v, null, 2) ?? String(v);
    } catch {
      return String(v);
    }
  };

  const style = document.createElement("style");
  style.textContent = CSS;
  document.head.append(style);

  const data = JSON.parse(document.getElementById("share-data").textContent);
  const entries = new Map();
  for (const line of document.getElementById("session-jsonl").value.split("\n")) {
    try {
      const e = JSON.parse(line);
      if (e && typeof e.id === "string") entries.set(e.id, e);
    } catch {
      // a line that is not JSON stays in the text area, as it was
    }
  }

  const state = { filter: "default", tab: "context", current: null };
  const app = document.getElementById("app");

  const top = el("header", "top");
  top.append(el("h1", "", data.title));
  top.append(
    el(
      "div",
      "muted",
      `A shared branch of a pi session: ${data.rows.length} entries, the leaf ${data.leafId ?? "(none)"}, ` +
        `${data.redacted} string${data.redacted === 1 ? "" : "s"} redacted. Everything is in this file.`,
    ),
  );
  const layout = el("div", "layout");
  const left = el("section", "pane");
  const right = el("section", "pane");
  layout.append(left, right);
  app.append(top, layout);

  const filters = el("div", "filters");
  filters.setAttribute("role", "radiogroup");
  for (const f of data.filters) {
    const b = el("button", "filter", f.name);
    b.type = "button";
    b.title = f.title;
    b.dataset.filter = f.key;
    b.addEventListener("click", () => {
      state.filter = f.key;
      drawRows();
    });
    filters.append(b);
  }
  const rows = el("ol", "rows");
  rows.dataset.testid = "share-rows";
  left.append(filters, rows);

  function drawRows() {
    for (const b of filters.children)
      b.setAttribute("aria-pressed", b.dataset.filter === state.filter ? "true" : "false");
    rows.replaceChildren();
    for (const r of data.rows) {
      if (!r.filters.includes(state.filter)) continue;
      const li = el("li", `row k-${r.kind}`);
      li.dataset.entryId = r.id;
      li.style.setProperty("--dot", KIND_COLOR(r.kind));
      if (r.id === data.leafId) li.classList.add("leaf");
      if (r.id === state.current) li.classList.add("current");
      li.title = `${r.kindName} · ${r.time}`;
      // One button per row, so the keyboard reaches every entry; it reads kind, id, label and text.
      const open = el("button", "row-open");
      open.type = "button";
      if (r.id === state.current) open.setAttribute("aria-current", "true");
      open.append(el("span", "sr-only", `${r.kindName}${r.id === data.leafId ? ", the leaf" : ""}: `));
      open.append(el("span", "mono muted", r.id));
      if (r.label) {
        // Cut when long (the row's text keeps its place); the whole label is its title.
        const tag = el("span", "tag", r.label);
        tag.title = r.label;
        open.append(tag);
      }
      open.append(el("span", "summary", r.summary));
      li.append(open);
      li.addEventListener("click", () => {
        state.current = r.id;
        state.tab = "entry";
        drawRows();
        drawSide();
      });
      rows.append(li);
    }
  }

  const tabs = el("div", "tabs");
  tabs.setAttribute("role", "tablist");
  for (const [key, name] of [
    ["context", "Context at the leaf"],
    ["entry", "Entry"],
  ]) {
    const b = el("button", "tab", name);
    b.type = "button";
    b.dataset.tab = key;
    b.setAttribute("role", "tab");
    b.addEventListener("click", () => {
      state.tab = key;
      drawSide();
    });
    tabs.append(b);
  }
  const side = el("div", "side");
  right.append(tabs, side);

  function contentText(content) {
    if (typeof content === "string") return content;
    if (!Array.isArray(content)) return "";
    return content
      .filter((b) => b && b.type === "text" && typeof b.text === "string")
      .map((b) => b.text)
      .join("\n");
  }

  function message({ sourceId, message: m }, index) {
    const role = m && typeof m === "object" ? String(m.role) : "unknown";
    const art = el("article", "msg");
    art.dataset.role = role;
    art.dataset.sourceId = sourceId;
    art.style.setProperty("--dot", KIND_COLOR(ROLE_KIND[role] ?? "other"));
    const head = el("header");
    head.append(el("strong", "", role), el("span", "muted mono", `#${index + 1} from ${sourceId}`));
    if (role === "toolResult" || role === "assistant") {
      const extra = role === "toolResult" ? m.toolName : m.model ? `${m.provider ?? ""}/${m.model}` : "";
      if (extra) head.append(el("span", "muted", String(extra)));
    }
    art.append(head);
    let text;
    if (role === "bashExecution") text = `$ ${String(m.command ?? "")}\n${String(m.output ?? "")}`;
    else if (role === "branchSummary" || role === "compactionSummary") text = String(m.summary ?? "");
    else text = contentText(m?.content);
    art.append(el("div", "msg-text", text));
    if (Array.isArray(m?.content)) {
      for (const b of m.content) {
        if (!b || typeof b !== "object" || b.type === "text") continue;
        if (b.type === "thinking") {
          const d = el("details");
          d.append(el("summary", "muted", "Thinking"), el("pre", "", String(b.thinking ?? "")));
          art.append(d);
        } else if (b.type === "toolCall") {
          art.append(el("pre", "tool-call", `→ ${String(b.name)} ${json(b.arguments)}`));
        } else if (b.type === "image") {
          const ok =
            /^image\/(png|jpeg|gif|webp)$/.test(String(b.mimeType)) && /^[A-Za-z0-9+/=\s]+$/.test(String(b.data));
          if (ok) {
            const img = el("img");
            img.alt = "image from the session";
            img.src = `data:${b.mimeType};base64,${String(b.data).replace(/\s+/g, "")}`;
            art.append(img);
          } else art.append(el("div", "muted", "[image, not shown]"));
        } else art.append(el("pre", "", json(b)));
      }
    }
    if (m?.usage && typeof m.usage === "object") {
      const cost = m.usage.cost && typeof m.usage.cost.total === "number" ? ` · $${m.usage.cost.total.toFixed(4)}` : "";
      art.append(el("div", "muted", `${Number(m.usage.totalTokens) || 0} tokens${cost}`));
    }
    return art;
  }

  function drawSide() {
    for (const b of tabs.children) b.setAttribute("aria-selected", b.dataset.tab === state.tab ? "true" : "false");
    side.replaceChildren();
    if (state.tab === "context") {
      const { messages, model, thinkingLevel } = data.context;
      side.append(
        el(
          "p",
          "muted",
          `${messages.length} message${messages.length === 1 ? "" : "s"} sent to the model at ${data.leafId}` +
            ` · ${model ? `${model.provider}/${model.modelId}` : "no model yet"} · thinking: ${thinkingLevel}`,
        ),
      );
      const box = el("div", "context");
      box.dataset.testid = "context";
      box.dataset.leaf = data.leafId ?? "";
      messages.forEach((m, i) => {
        box.append(message(m, i));
      });
      side.append(box);
    } else {
      const e = entries.get(state.current);
      side.append(
        e ? el("pre", "entry-json", json(e)) : el("p", "muted", "Click an entry to see it as the file has it."),
      );
    }
  }

  drawRows();
  drawSide();
  window.__share = { rows: data.rows.length, leafId: data.leafId };
})();
