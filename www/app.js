// The viewer page: wires the worker, the graph, the side panels and the
// ways to open a session (sample, file picker, drop, paste).

import { Graph, legendIcon } from "./graph.js";
import { KINDS, FILTERS } from "./model.js";
import { renderMessage, el, json, formatTokens } from "./render.js";
import { codeBlock } from "./markdown.js";

const $ = (id) => document.getElementById(id);

const state = {
  info: null,
  nodes: null,
  view: null,
  filter: "default",
  query: "",
  leafId: null,
  cursorId: null,
  opening: 0,
};

// --- worker -----------------------------------------------------------------
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
let nextReq = 1;
const pending = new Map();
// A module worker may drop messages that arrive while its imports (the wasm)
// are still loading, so requests wait for its "ready".
let workerReady;
const ready = new Promise((resolve) => {
  workerReady = resolve;
});
async function request(msg, transfer = []) {
  await ready;
  const req = nextReq++;
  return new Promise((resolve, reject) => {
    pending.set(req, { resolve, reject });
    worker.postMessage({ ...msg, req }, transfer);
  });
}
worker.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "progress") return showProgress(msg.stage, msg.fraction);
  if (msg.type === "ready") return workerReady();
  const p = pending.get(msg.req);
  if (!p) return;
  pending.delete(msg.req);
  if (msg.type === "error") p.reject(new Error(msg.message));
  else p.resolve(msg);
};
worker.onerror = (event) => banner("error", `The worker failed: ${event.message ?? "unknown error"}`);

// --- progress ---------------------------------------------------------------
let progressTimer = 0;
function showProgress(stage, fraction) {
  $("progress-label").textContent = `${stage}…`;
  $("progress-bar").value = fraction;
}
function startProgress(label) {
  showProgress(label, 0);
  clearTimeout(progressTimer);
  progressTimer = setTimeout(() => {
    $("progress").hidden = false;
  }, 120);
  document.body.classList.add("busy");
}
function stopProgress() {
  clearTimeout(progressTimer);
  $("progress").hidden = true;
  document.body.classList.remove("busy");
}

// --- banners ----------------------------------------------------------------
function banner(kind, text, actions = [], key = "") {
  const box = el("div", `banner banner-${kind}`);
  if (key) box.dataset.key = key;
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  box.append(el("span", "banner-text", text));
  for (const [label, fn, testid] of actions) {
    const b = el("button", "button small", label);
    b.type = "button";
    if (testid) b.dataset.testid = testid;
    b.addEventListener("click", fn);
    box.append(b);
  }
  const close = el("button", "banner-close", "×");
  close.type = "button";
  close.title = "Dismiss";
  close.addEventListener("click", () => box.remove());
  box.append(close);
  $("banners").append(box);
  return box;
}

// --- graph ------------------------------------------------------------------
const graph = new Graph($("graph"), {
  onSelect: (id) => selectLeaf(id),
  onCursor: (id) => {
    state.cursorId = id;
    if (currentTab === "entry") showEntry(id);
  },
});

for (const f of FILTERS) {
  const b = el("button", "filter", f.name);
  b.type = "button";
  b.dataset.filter = f.key;
  b.title = f.title;
  b.setAttribute("role", "radio");
  b.setAttribute("aria-checked", f.key === state.filter ? "true" : "false");
  b.addEventListener("click", () => setFilter(f.key));
  $("filters").append(b);
}
for (let k = 0; k < KINDS.length - 1; k++) {
  const item = el("span", "legend-item");
  item.append(legendIcon(k), el("span", "", KINDS[k].name));
  $("legend-items").append(item);
}
{
  const path = el("span", "legend-item");
  const s = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  s.setAttribute("width", "18");
  s.setAttribute("height", "18");
  s.setAttribute("class", "legend-icon");
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  for (const [k, v] of Object.entries({ x1: 9, y1: 1, x2: 9, y2: 17, class: "lane hl" })) line.setAttribute(k, v);
  s.append(line);
  path.append(s, el("span", "", "Path to the leaf"));
  const unsent = el("span", "legend-item");
  unsent.append(el("span", "unsent-mark", "not sent"), el("span", "", "on the path, not seen by the model"));
  $("legend-items").append(path, unsent);
}

async function setFilter(filter) {
  state.filter = filter;
  for (const b of $("filters").children) b.setAttribute("aria-checked", b.dataset.filter === filter ? "true" : "false");
  await refreshView();
}

let searchTimer = 0;
$("search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    state.query = $("search").value;
    refreshView();
  }, 150);
});
$("search").addEventListener("keydown", (e) => {
  if (e.key === "Enter" || e.key === "ArrowDown") {
    e.preventDefault();
    clearTimeout(searchTimer);
    state.query = $("search").value;
    refreshView().then(() => {
      graph.setCursor(Math.max(0, graph.cursor));
      $("graph").focus();
    });
  }
  if (e.key === "Escape") {
    $("search").value = "";
    state.query = "";
    refreshView();
    $("graph").focus();
  }
});

let viewSeq = 0;
async function refreshView() {
  if (!state.info) return;
  const seq = ++viewSeq;
  const { view } = await request({ type: "view", filter: state.filter, query: state.query, keepId: state.leafId });
  if (seq !== viewSeq) return;
  state.view = view;
  graph.setView(view);
  if (state.leafId) graph.reveal(state.leafId);
  updateStatus();
}

// --- selection and context ------------------------------------------------
let selecting = false;
let wantedLeaf = null;
async function selectLeaf(id, { updateHash = true } = {}) {
  if (!state.info || !id) return;
  state.leafId = id;
  if (updateHash) {
    const hash = `#leaf=${encodeURIComponent(id)}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
  graph.selectedNode = graph.nodeOf.get(id) ?? -1;
  graph.schedule();
  $("export-button").disabled = false;
  // One request at a time; only the latest selection is fetched next.
  wantedLeaf = id;
  if (selecting) return;
  selecting = true;
  try {
    while (wantedLeaf) {
      const leaf = wantedLeaf;
      wantedLeaf = null;
      const msg = await request({ type: "select", entryId: leaf });
      if (wantedLeaf) continue;
      graph.setPath(graph.nodeOf.get(leaf) ?? -1, msg.pathNodes, msg.state);
      renderContext(leaf, msg);
      if (currentTab === "entry") showEntry(leaf);
    }
  } catch (error) {
    banner("error", `Could not build the context: ${error.message}`);
  } finally {
    selecting = false;
  }
  // A tool-call-only assistant turn is hidden by pi's filters unless it is the leaf.
  if (graph.rowOfNode[graph.nodeOf.get(id)] < 0) await refreshView();
}

const CHUNK = 200;
function renderContext(leafId, { context, pathNodes, state: pathState, ms }) {
  const head = $("context-head");
  const box = $("context");
  const { messages, thinkingLevel, model } = context;
  let hidden = 0;
  for (let i = 0; i < pathState.length; i++) if (pathState[i] === 2) hidden++;
  head.replaceChildren();
  const title = el("div", "context-title");
  title.append(
    el("strong", "", `${messages.length} message${messages.length === 1 ? "" : "s"}`),
    el("span", "muted", " sent to the model at "),
    jumpLink(leafId),
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
    for (; shown < end; shown++) frag.append(renderMessage(messages[shown], { index: shown, onJump: jumpTo }));
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

function chip(text, cls = "") {
  return el("span", `chip ${cls}`, text);
}
function jumpLink(id) {
  const b = el("button", "link-button mono", id);
  b.type = "button";
  b.addEventListener("click", () => jumpTo(id, false));
  return b;
}
function jumpTo(id, select = true) {
  if (!graph.nodeOf.has(id)) return;
  if (select) selectLeaf(id);
  graph.reveal(id);
  $("graph").focus({ preventScroll: true });
}

// --- tabs ---------------------------------------------------------------------
let currentTab = "context";
for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
function showTab(name) {
  currentTab = name;
  for (const tab of document.querySelectorAll(".tab"))
    tab.setAttribute("aria-selected", tab.dataset.tab === name ? "true" : "false");
  for (const p of ["context", "entry", "stats", "diagnostics"]) $(`panel-${p}`).hidden = p !== name;
  if (name === "entry") showEntry(state.cursorId ?? state.leafId);
}

async function showEntry(id) {
  const panel = $("panel-entry");
  if (!id) {
    panel.replaceChildren(el("p", "empty", "No entry selected."));
    return;
  }
  const { entry } = await request({ type: "entry", entryId: id });
  if ((state.cursorId ?? state.leafId) !== id) return;
  panel.replaceChildren();
  const head = el("div", "entry-head");
  head.append(el("strong", "", String(entry?.type ?? "entry")), el("span", "muted", " "), el("span", "mono", id));
  const use = el("button", "button small", "Make this the leaf");
  use.type = "button";
  use.addEventListener("click", () => selectLeaf(id));
  head.append(use);
  panel.append(head);
  if (entry?.type === "message") panel.append(renderMessage(entry.message, { onJump: jumpTo }));
  const raw = el("details", "raw");
  raw.open = entry?.type !== "message";
  raw.append(el("summary", "", "Raw JSON"), codeBlock(json(entry), "json"));
  panel.append(raw);
}

// --- stats and diagnostics ------------------------------------------------
function renderStats(info) {
  const panel = $("panel-stats");
  panel.replaceChildren();
  const s = info.stats;
  const table = (title, rows) => {
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
  };
  const h = info.header;
  table(
    "Header",
    h
      ? [
          ["id", String(h.id ?? "")],
          ["version", `${h.version ?? "(none: 1)"}${info.migrated ? " → 3, migrated in memory" : ""}`],
          ["created", String(h.timestamp ?? "")],
          ["cwd", String(h.cwd ?? "")],
          ...(h.parentSession ? [["parent session", String(h.parentSession)]] : []),
          ...(s.name ? [["name", s.name]] : []),
        ]
      : [["header", "missing"]],
  );
  table("Tree", [
    ["entries", String(info.count)],
    ["roots", String(s.roots)],
    ["leaves", String(s.leaves)],
    ["branch points", String(s.branchPoints)],
    ["depth", String(s.maxDepth)],
    ["file size", `${(info.bytes / 1024).toFixed(1)} KiB`],
  ]);
  table(
    "Entries by type",
    Object.entries(s.byType)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, String(v)]),
  );
  table(
    "Messages by role",
    Object.entries(s.byRole)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, String(v)]),
  );
  const t = s.tokens;
  table("Usage (all assistant turns)", [
    ["turns with usage", String(t.turns)],
    ["total tokens", formatTokens(t.total)],
    ["input", formatTokens(t.input)],
    ["output", formatTokens(t.output)],
    ["cache read", formatTokens(t.cacheRead)],
    ["cache write", formatTokens(t.cacheWrite)],
    ["cost", `$${t.cost.toFixed(4)}`],
  ]);
  if (s.models.length)
    table(
      "Models",
      s.models.map(([k, v]) => [k, `${v} turn${v === 1 ? "" : "s"}`]),
    );
  const timing = el(
    "p",
    "muted small",
    `Opened in ${Object.entries(info.timings)
      .map(([k, v]) => `${k} ${v} ms`)
      .join(", ")}.`,
  );
  panel.append(timing);
}

function renderDiagnostics(list) {
  const box = $("diagnostics");
  box.replaceChildren();
  $("diag-count").textContent = String(list.length);
  $("diag-count").classList.toggle("bad", list.length > 0);
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
      if (graph.nodeOf?.has(d.entryId)) head.append(jumpLink(d.entryId));
      else head.append(el("span", "mono muted", d.entryId));
    }
    li.append(head, el("div", "diag-message", d.message));
    ul.append(li);
  }
  box.append(ul);
}

function updateStatus() {
  const info = state.info;
  if (!info) return;
  const parts = [`${info.count} entries`];
  if (state.view && state.view.count !== info.count) parts.push(`${state.view.count} shown`);
  parts.push(`${info.stats.leaves} leaves`, `${info.stats.branchPoints} branch points`);
  if (info.diagnostics.length)
    parts.push(`${info.diagnostics.length} problem${info.diagnostics.length === 1 ? "" : "s"}`);
  parts.push(`opened in ${Object.values(info.timings).reduce((a, b) => a + b, 0)} ms`);
  $("status").textContent = parts.join(" · ");
}

// --- opening ------------------------------------------------------------------
async function openSource(source, name) {
  const seq = ++state.opening;
  startProgress("Reading");
  try {
    const msg =
      source instanceof Blob
        ? { type: "open", file: source, name }
        : typeof source === "string"
          ? { type: "open", text: source, name }
          : { type: "open", bytes: source, name };
    const transfer = source instanceof ArrayBuffer ? [source] : [];
    const opened = await request({ ...msg, filter: state.filter, query: state.query }, transfer);
    if (seq !== state.opening) return;
    for (const b of [...$("banners").children]) b.remove();
    const { info, nodes, view } = opened;
    state.info = info;
    state.nodes = nodes;
    state.view = view;
    state.leafId = null;
    state.cursorId = null;
    $("file-name").textContent = info.stats.name ? `${info.stats.name} — ${name}` : name;
    $("file-name").title = name;
    document.title = `${info.stats.name ?? name} · session-tree`;
    graph.pathNodes = null;
    graph.pathState = null;
    graph.selectedNode = -1;
    graph.setNodes(nodes);
    graph.setView(view);
    renderStats(info);
    renderDiagnostics(info.diagnostics);
    updateStatus();
    if (info.migrated) {
      banner(
        "info",
        `This is a version ${info.fromVersion ?? 1} session: it was migrated to version 3 in memory (new ids, parent links${info.fromVersion === 2 ? ", hookMessage → custom" : ""}).`,
        [["Download migrated JSONL", downloadMigrated, "download-migrated"]],
        "migrated",
      );
    }
    if (info.diagnostics.length) {
      banner(
        "warn",
        `${info.diagnostics.length} problem${info.diagnostics.length === 1 ? "" : "s"} found in this file; it is shown as far as it could be read.`,
        [["Show diagnostics", () => showTab("diagnostics")]],
        "diagnostics",
      );
    }
    if (info.count === 0) banner("warn", "No entries could be read from this file.");
    const fromHash = leafFromHash();
    const leaf = fromHash && graph.nodeOf.has(fromHash) ? fromHash : info.defaultLeaf;
    if (leaf && graph.nodeOf.has(leaf)) {
      await selectLeaf(leaf, { updateHash: fromHash === leaf });
      graph.reveal(leaf);
    } else {
      $("context").replaceChildren(el("p", "empty", "Nothing to show."));
      $("context-head").replaceChildren();
    }
    window.__viewer.opened++;
  } catch (error) {
    banner("error", `Could not open ${name}: ${error.message}`);
  } finally {
    if (seq === state.opening) stopProgress();
  }
}

function leafFromHash() {
  const m = /^#leaf=(.+)$/.exec(location.hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}
window.addEventListener("hashchange", () => {
  const id = leafFromHash();
  if (id && graph.nodeOf?.has(id) && id !== state.leafId) {
    selectLeaf(id, { updateHash: false });
    graph.reveal(id);
  }
});

function download(contents, filename) {
  const blob = new Blob([contents], { type: "application/jsonl" });
  const url = URL.createObjectURL(blob);
  const a = el("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
const baseName = () => (state.info?.name ?? "session").replace(/\.jsonl?$/i, "");

async function downloadMigrated() {
  const { jsonl } = await request({ type: "migrated" });
  if (jsonl !== null) download(jsonl, `${baseName()}.v3.jsonl`);
}
$("export-button").addEventListener("click", async () => {
  if (!state.leafId) return;
  try {
    const { text } = await request({ type: "export", entryId: state.leafId });
    download(text, `${baseName()}-branch-${state.leafId}.jsonl`);
  } catch (error) {
    banner("error", `Could not export the branch: ${error.message}`);
  }
});

$("file-input").addEventListener("change", (e) => {
  const file = e.target.files?.[0];
  if (file) openSource(file, file.name);
  e.target.value = "";
});
$("sample-button").addEventListener("click", () => loadSample());
$("paste-button").addEventListener("click", () => {
  $("paste-text").value = "";
  $("paste-dialog").showModal();
  $("paste-text").focus();
});
$("paste-dialog").addEventListener("close", () => {
  if ($("paste-dialog").returnValue === "open" && $("paste-text").value.trim())
    openSource($("paste-text").value, "pasted.jsonl");
});

let dragDepth = 0;
const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
document.addEventListener("dragenter", (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  $("drop-overlay").hidden = false;
});
document.addEventListener("dragover", (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = "copy";
});
document.addEventListener("dragleave", () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) $("drop-overlay").hidden = true;
});
document.addEventListener("drop", (e) => {
  e.preventDefault();
  dragDepth = 0;
  $("drop-overlay").hidden = true;
  const file = e.dataTransfer?.files?.[0];
  if (file) openSource(file, file.name);
});
document.addEventListener("paste", (e) => {
  if (e.target.closest?.("input, textarea, dialog")) return;
  const text = e.clipboardData?.getData("text/plain");
  if (text && text.trim().startsWith("{")) {
    e.preventDefault();
    openSource(text, "pasted.jsonl");
  }
});
document.addEventListener("keydown", (e) => {
  if (e.key === "/" && !e.target.closest?.("input, textarea")) {
    e.preventDefault();
    $("search").focus();
    $("search").select();
  }
});

async function loadSample() {
  try {
    const res = await fetch("sample.jsonl");
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    await openSource(await res.arrayBuffer(), "sample.jsonl");
  } catch (error) {
    banner("error", `Could not load the sample: ${error.message}`);
  }
}

// A small handle for tests and the curious.
window.__viewer = {
  opened: 0,
  get state() {
    return {
      leafId: state.leafId,
      filter: state.filter,
      query: state.query,
      count: state.info?.count ?? 0,
      shown: state.view?.count ?? 0,
    };
  },
  visibleIds() {
    return state.view ? Array.from(state.view.rowNode, (n) => state.nodes.ids[n]) : [];
  },
  select: (id) => selectLeaf(id),
  setFilter,
};

loadSample();
