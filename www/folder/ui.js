// The session list page and its wiring: every session of a folder (from
// `session-tree serve`, or a folder opened in the page), search across them,
// and the open session followed live. Logic lives in model.js, local.js and
// ../live.js; this file builds the DOM and connects them to the viewer's
// controller.
//
// URLs: the list is the page without `session`; `?session=REL` opens a
// session (with `&leafId=…&targetId=…` from a search result). The list stays in
// the DOM while a session is open, so Back finds it as it was left.

import { BurstAnnouncer } from "../a11y.js";
import { FollowSwitch, headHash, NewMarker, PollFollower, SerialQueue, ServerFollower } from "../live.js";
import { KINDS } from "../model.js";
import { buildLineage } from "../pkg/cli/lineage.js";
import { fetchSession } from "../remote-source.js";
import { ago, FolderModel, filesUrl, rowTitle } from "./model.js";

const el = (doc, tag, cls, text) => {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const sessionHref = (path, leafId, targetId) => {
  const q = new URLSearchParams({ session: path });
  if (leafId) q.set("leafId", leafId);
  if (targetId) q.set("targetId", targetId);
  return `?${q}`;
};

export class FolderPage {
  constructor({ doc, controller, store, graphElement }) {
    Object.assign(this, { doc, controller, store, graphElement });
    this.served = Boolean(doc.querySelector('meta[name="session-tree-serve"]'));
    this.model = new FolderModel(buildLineage);
    this.local = null; // a LocalFolder once a folder is opened in the page
    this.openPath = null;
    this.follower = null;
    this.queue = new SerialQueue();
    this.marker = new NewMarker();
    this.follow = new FollowSwitch(true);
    this.quiet = 0; // > 0 while the page itself selects (opening, following)
    this.progress = { done: 0, total: 0, ready: false };
    this.searchSeq = 0;
    // New entries of a followed session, said politely once per burst (the page's live region).
    this.announcer = new BurstAnnouncer((text) => {
      const live = doc.getElementById("live");
      if (live) live.textContent = text;
    });
  }

  /** Builds the page's parts; returns whether the folder takes over the start (no sample). */
  start() {
    this.build();
    this.doc.defaultView.addEventListener("popstate", () => this.route());
    this.store.subscribe((state, changed) => {
      if (changed.includes("leafId") && this.follower && !this.quiet && this.follow.selected(state.leafId)) {
        this.renderLive();
      }
      // A file opened some other way (Open file…, a drop, Sample) replaces the
      // followed session: stop following, and show it.
      if (changed.includes("opened") && !this.loading && (this.openPath || !this.view.hidden)) {
        this.stopFollow();
        this.openPath = null;
        if (!this.view.hidden) this.showViewer();
      }
    });
    this.watchRows();
    if (!this.served) return false;
    this.listen();
    this.route();
    return true;
  }

  // --- DOM ----------------------------------------------------------------------

  build() {
    const { doc } = this;
    const actions = doc.querySelector(".topbar .actions");
    this.back = el(doc, "button", "button", "← Sessions");
    this.back.type = "button";
    this.back.dataset.testid = "folder-back";
    this.back.hidden = true;
    this.back.addEventListener("click", () => this.backToList());
    actions?.prepend(this.back);
    if (!this.served) {
      // A button (a label is no tab stop): the directory picker where there is one, else the folder input.
      const label = el(doc, "button", "button", "Open folder…");
      label.type = "button";
      label.title = "Open a folder of sessions (such as ~/.pi/agent/sessions), or drop one";
      this.input = el(doc, "input");
      this.input.type = "file";
      this.input.hidden = true;
      this.input.multiple = true;
      this.input.webkitdirectory = true;
      this.input.dataset.testid = "folder-input";
      this.input.addEventListener("change", () => {
        if (this.input.files?.length) this.openFiles("list", this.input.files);
      });
      this.input.setAttribute("aria-label", "Sessions folder");
      label.addEventListener("click", () => {
        if (typeof this.doc.defaultView.showDirectoryPicker !== "function") {
          this.input.click();
          return;
        }
        this.doc.defaultView
          .showDirectoryPicker({ id: "sessions", mode: "read" })
          .then((handle) => this.openFiles("handle", handle))
          .catch(() => {});
      });
      actions?.insertBefore(label, actions.children[1] ?? null);
      label.after(this.input);
      this.doc.defaultView.addEventListener("drop", (e) => this.dropped(e), true);
    }
    this.liveBox = el(doc, "span", "live-box");
    doc.querySelector(".topbar .file-name")?.after(this.liveBox);

    const view = el(doc, "section", "folder-view");
    view.id = "folder-view";
    view.hidden = true;
    view.setAttribute("aria-label", "Sessions");
    const bar = el(doc, "div", "folder-bar");
    this.search = el(doc, "input", "folder-search");
    Object.assign(this.search, {
      type: "search",
      placeholder: 'Search all sessions: words, "a phrase"',
      autocomplete: "off",
    });
    this.search.spellcheck = false;
    this.search.dataset.testid = "search";
    this.search.setAttribute("aria-label", "Search all sessions");
    this.filter = el(doc, "input", "folder-filter");
    Object.assign(this.filter, { type: "search", placeholder: "Filter the list", autocomplete: "off" });
    this.filter.dataset.testid = "folder-filter";
    this.filter.setAttribute("aria-label", "Filter the list");
    this.status = el(doc, "span", "folder-status");
    this.status.dataset.testid = "folder-progress";
    this.status.setAttribute("role", "status");
    // Sessions | Usage: the list, or what the folder cost (../usage/).
    this.tabs = el(doc, "div", "folder-tabs");
    this.tabs.setAttribute("role", "group");
    this.tabs.setAttribute("aria-label", "Show");
    this.tabButtons = {};
    for (const [name, text] of [
      ["list", "Sessions"],
      ["usage", "Usage"],
    ]) {
      const b = el(doc, "button", "button small", text);
      b.type = "button";
      b.dataset.testid = `folder-show-${name}`;
      b.setAttribute("aria-pressed", name === "list" ? "true" : "false");
      b.addEventListener("click", () => this.showPart(name, true));
      this.tabButtons[name] = b;
      this.tabs.append(b);
    }
    bar.append(this.tabs, this.search, this.filter, this.status);
    this.results = el(doc, "ol", "search-results");
    this.results.dataset.testid = "search-results";
    this.results.hidden = true;
    this.list = el(doc, "div", "session-list");
    this.list.dataset.testid = "session-list";
    this.usageBox = el(doc, "div", "usage-box");
    this.usageBox.hidden = true;
    view.append(bar, this.results, this.list, this.usageBox);
    doc.querySelector("main.layout")?.before(view);
    this.view = view;

    let timer;
    this.search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.runSearch(), 250);
    });
    this.filter.addEventListener("input", () => this.renderList());
    const follow = (e) => {
      const a = e.target.closest("a[data-session-path]");
      if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
      e.preventDefault();
      this.openSession(a.dataset.sessionPath, a.dataset.entryId || null, a.dataset.entryId || null);
    };
    this.list.addEventListener("click", follow);
    this.results.addEventListener("click", follow);
    this.usageBox.addEventListener("click", follow);
  }

  showList() {
    this.stopFollow();
    this.openPath = null;
    this.view.hidden = false;
    this.back.hidden = true;
    this.doc.body.classList.add("showing-folder");
    // A link's missing entry was the session's news; the list shows no session.
    for (const b of this.doc.querySelectorAll('#banners .banner[data-key="missing-link"]')) b.remove();
    this.view.scrollTop = this.savedScroll ?? 0;
    this.renderList();
  }

  showViewer() {
    this.savedScroll = this.view.scrollTop;
    this.view.hidden = true;
    this.back.hidden = !(this.served || this.local);
    this.doc.body.classList.remove("showing-folder");
  }

  backToList() {
    // Back only to an entry of this page's list: an entry reached by the browser's Back or
    // Forward (the page's first, say) may have none before it but another site.
    if (this.doc.defaultView.history.state?.fromList) this.doc.defaultView.history.back();
    else {
      this.doc.defaultView.history.pushState({}, "", "?");
      this.showList();
    }
  }

  /** Shows what the URL names: a session, or the list. */
  route() {
    const q = new URLSearchParams(this.doc.defaultView.location.search);
    const path = q.get("session");
    if (path && (this.served || this.local?.files.has(path))) {
      // Only the hash changed (`#leaf=` typed, or Back between two leaves): the session in
      // view stays, and the hash's own listener follows it. Opening it again cleared what
      // that listener showed (a missing entry's banner) and read the file anew.
      const inView = path === this.openPath && !this.doc.body.classList.contains("showing-folder");
      this.showViewer();
      if (!inView) this.load(path, q.get("leafId"), q.get("targetId"));
    } else if (this.served || this.local) {
      this.showList();
      this.showPart(q.get("view") === "usage" ? "usage" : "list", false);
    }
  }

  /** The list (with search) or the Usage view; `push`: a new history entry (`?view=usage`). */
  async showPart(name, push) {
    const usage = name === "usage";
    for (const [n, b] of Object.entries(this.tabButtons)) b.setAttribute("aria-pressed", n === name ? "true" : "false");
    this.usageBox.hidden = !usage;
    this.list.hidden = usage;
    this.search.hidden = usage;
    this.filter.hidden = usage;
    if (usage) this.results.hidden = true;
    else if (this.search.value.trim()) this.runSearch();
    if (push) this.doc.defaultView.history.pushState({}, "", usage ? "?view=usage" : "?");
    if (!usage) return;
    if (!this.usage) {
      const { UsageView } = await import("../usage/ui.js");
      this.usage = new UsageView(this.doc, {
        load: (options, onProgress) => this.usageData(options, onProgress),
        titleOf: (path) => {
          const row = this.model.rows.get(path);
          return row ? rowTitle(row) : path;
        },
        href: (path, leafId) => sessionHref(path, leafId, leafId),
      });
      this.usageBox.append(this.usage.root);
    }
    this.usage.refresh();
  }

  /** The Usage view's data: from the server, or counted in the page over a folder opened in it. */
  async usageData(options, onProgress) {
    if (this.served) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(options)) if (v) q.set(k, v);
      const res = await fetch(`api/usage?${q}`);
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).trim()}`);
      return res.json();
    }
    await this.loaded;
    const usage = await this.local.usage(this.model.parentNames(), onProgress);
    return usage.view(options);
  }

  openSession(path, leafId, targetId) {
    // `fromList`: the entry before this one is the list (or Usage) this session was opened from.
    this.doc.defaultView.history.pushState({ fromList: !this.view.hidden }, "", sessionHref(path, leafId, targetId));
    this.route();
  }

  // --- the list ---------------------------------------------------------------

  listen() {
    const source = new EventSource("api/list");
    // Each (re)connection sends every row again, then a progress with `rowsReady`.
    source.addEventListener("open", () => this.model.beginSnapshot());
    source.addEventListener("row", (e) => {
      this.model.upsert(JSON.parse(e.data));
      this.scheduleList();
    });
    source.addEventListener("remove", (e) => {
      this.model.remove(JSON.parse(e.data).path);
      this.scheduleList();
    });
    source.addEventListener("progress", (e) => {
      this.progress = JSON.parse(e.data);
      if (this.progress.rowsReady && this.model.endSnapshot()) this.scheduleList();
      this.renderStatus();
    });
  }

  scheduleList() {
    if (this.listTimer) return;
    this.listTimer = setTimeout(() => {
      this.listTimer = null;
      this.renderList();
    }, 60);
  }

  renderStatus() {
    const { done, total, rowsReady, indexed, indexTotal, ready } = this.progress;
    const n = this.model.size;
    const sessions = `${n} session${n === 1 ? "" : "s"}`;
    this.status.textContent = ready
      ? `${sessions} · search index ready`
      : rowsReady
        ? `${sessions} · indexing for search… ${indexed ?? 0} / ${indexTotal ?? 0}`
        : `Reading sessions… ${done} / ${total}`;
    this.status.dataset.ready = ready ? "true" : "false";
  }

  renderList() {
    this.renderStatus();
    if (this.view.hidden) return;
    const { doc } = this;
    const frag = doc.createDocumentFragment();
    const now = Date.now();
    for (const group of this.model.groups(this.filter.value)) {
      const section = el(doc, "section", "session-group");
      section.append(el(doc, "h3", "group-cwd", group.cwd || "(no cwd)"));
      for (const { row, depth, forks } of group.rows) {
        const a = el(doc, "a", "session-row");
        a.href = sessionHref(row.path);
        a.dataset.sessionPath = row.path;
        a.dataset.depth = String(depth);
        if (depth) a.style.setProperty("--depth", String(depth));
        if (row.error || !row.info) a.classList.add("broken");
        const title = el(doc, "span", "session-title", rowTitle(row));
        const meta = el(doc, "span", "session-meta");
        const bits = [];
        if (row.info) bits.push(`${row.info.messageCount} msg`);
        bits.push(ago(row.info?.modified ?? row.mtime, now));
        if (forks) bits.push(`${forks} fork${forks === 1 ? "" : "s"}`);
        meta.textContent = bits.join(" · ");
        a.append(title, meta);
        if (row.problems) {
          const p = el(doc, "span", "session-problems", `${row.problems} problem${row.problems === 1 ? "" : "s"}`);
          p.dataset.testid = "session-problems";
          a.append(p);
        }
        a.title = row.path;
        section.append(a);
      }
      frag.append(section);
    }
    this.list.replaceChildren(frag);
  }

  // --- search -----------------------------------------------------------------

  async runSearch() {
    const q = this.search.value.trim();
    const seq = ++this.searchSeq;
    if (!q) {
      this.results.hidden = true;
      this.results.replaceChildren();
      return;
    }
    let found;
    try {
      if (this.served) {
        const res = await fetch(`api/search?q=${encodeURIComponent(q)}`);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        found = await res.json();
      } else {
        const order = this.model.groups().flatMap((g) => g.rows.map((r) => r.row.path));
        found = await this.local.search(q, order);
      }
    } catch (error) {
      found = { results: [], error: error.message };
    }
    if (seq !== this.searchSeq) return;
    this.renderResults(found);
  }

  renderResults({ results, truncated, error }) {
    const { doc } = this;
    const items = [];
    const head = el(doc, "li", "results-head");
    head.textContent = error
      ? `Search failed: ${error}`
      : `${results.length}${truncated ? "+" : ""} match${results.length === 1 ? "" : "es"}${this.progress.ready || !this.served ? "" : " so far (the index is still being built)"}`;
    items.push(head);
    for (const r of results) {
      const li = el(doc, "li", "result");
      li.dataset.sessionPath = r.path;
      li.dataset.entryId = r.entryId ?? "";
      const a = el(doc, "a");
      a.href = sessionHref(r.path, r.entryId, r.entryId);
      a.dataset.sessionPath = r.path;
      if (r.entryId) a.dataset.entryId = r.entryId;
      const row = this.model.rows.get(r.path);
      a.append(
        el(doc, "span", "result-session", row ? rowTitle(row) : r.path),
        el(doc, "span", "result-role", r.role),
        el(doc, "span", "result-snippet", r.snippet),
      );
      li.append(a);
      items.push(li);
    }
    this.results.replaceChildren(...items);
    this.results.hidden = false;
  }

  // --- opening and following a session -----------------------------------------

  /**
   * What `controller.open` opens `path` with, and where following it starts:
   * `{ source, offset, head, byPiece? }`. A large served file stays on the
   * server: the worker reads it by range (../remote-source.js).
   */
  async fetchSession(path) {
    if (this.local) {
      const buffer = await this.local.bytes(path);
      const bytes = new Uint8Array(buffer);
      return { source: buffer, offset: bytes.length, head: headHash(bytes) };
    }
    return fetchSession(new URL(filesUrl(path), this.doc.baseURI).href);
  }

  /** Opens `path` in the viewer and follows it; Follow starts on unless an entry was asked for. */
  async load(path, leafId, targetId, follow = !leafId && !targetId) {
    this.stopFollow();
    this.openPath = path;
    const { controller } = this;
    let opened;
    try {
      opened = await this.fetchSession(path);
    } catch (error) {
      controller.view.banner("error", `Could not read ${path}: ${error.message}`);
      return;
    }
    if (this.openPath !== path) return;
    const { offset, head } = opened;
    this.byPiece = Boolean(opened.byPiece);
    this.quiet++;
    this.loading = true;
    try {
      await controller.open(opened.source, path.split("/").pop());
      this.loading = false;
      if (this.openPath !== path) return;
      const { graph } = controller;
      // open() has followed the address (`?leafId=&targetId=` or `#leaf=`):
      // select only a leaf it did not reach, and leave the address as it is.
      if (leafId && graph.has(leafId) && controller.store.get().leafId !== leafId) {
        await controller.selectLeaf(leafId, { updateHash: false });
      }
      const target = targetId ?? leafId;
      if (target && graph.has(target)) graph.reveal(target);
    } finally {
      this.quiet--;
      this.loading = false;
    }
    this.marker.look();
    this.follow = new FollowSwitch(follow);
    this.startFollow(path, offset, head);
  }

  startFollow(path, offset, head) {
    const onAppend = (bytes) => this.queue.push(() => this.appended(path, bytes));
    const onReset = () => this.queue.push(() => this.rewritten(path));
    if (this.served) this.follower = new ServerFollower({ path, offset, head, onAppend, onReset }).start();
    else if (this.local?.canFollow(path)) {
      const f = this.local.files.get(path);
      this.follower = new PollFollower({ getFile: () => f.getFile(), offset, head, onAppend, onReset }).start();
    }
    this.renderLive();
  }

  stopFollow() {
    this.announcer.cancel();
    this.follower?.stop();
    this.follower = null;
    this.marker.look();
    this.renderLive();
  }

  async appended(path, bytes) {
    if (this.openPath !== path) return;
    const before = new Set(this.store.get().nodes?.ids ?? []);
    this.quiet++;
    try {
      const msg = await this.controller.appendBytes(bytes);
      if (!msg) return;
      const added = msg.nodes.ids.filter((id) => !before.has(id));
      const looking = this.doc.visibilityState === "visible" && this.follow.on;
      this.marker.arrived(added, looking);
      if (added.length) {
        const n = msg.nodes.ids.length - 1;
        this.announcer.arrived(added.length, {
          kindName: KINDS[msg.nodes.kinds[n]]?.name ?? "Entry",
          text: msg.nodes.summaries[n] ?? "",
        });
      }
      const pick = this.follow.pick(added.length ? msg.defaultLeaf : null);
      if (pick && this.controller.graph.has(pick)) {
        await this.controller.selectLeaf(pick);
        this.controller.graph.reveal(pick);
      }
    } catch (error) {
      // A file read by piece is not followed entry by entry: reloading it on every
      // append would read it all again. The user reloads it when they choose.
      if (this.byPiece && this.openPath === path) return this.grewByPiece(path);
      // The worker could not take the bytes (a migrated file, say): reload it whole.
      if (this.openPath === path) await this.rewritten(path, error.message);
      return;
    } finally {
      this.quiet--;
    }
    this.renderLive();
    this.markRows();
  }

  /** A large file opened by piece grew: following stops, and a banner offers to reload it. */
  grewByPiece(path) {
    this.stopFollow();
    const { leafId } = this.store.get();
    this.controller.view.banner(
      "info",
      `${path} grew. It is opened by piece, so new entries are not shown live: reload it to see them.`,
      [["Reload", () => this.load(path, leafId, null, this.follow.on), "reload-grown"]],
      "grown",
    );
  }

  async rewritten(path, reason) {
    if (this.openPath !== path) return;
    const { leafId } = this.store.get();
    this.controller.view.banner(
      "info",
      reason ? `Reloaded ${path}: ${reason}` : `${path} was rewritten (not appended to); it was reloaded.`,
      [],
      "rewritten",
    );
    await this.load(path, leafId, null, this.follow.on);
  }

  renderLive() {
    const { doc } = this;
    if (!this.follower) {
      this.liveBox.replaceChildren();
      return;
    }
    const live = el(doc, "span", "live-badge");
    live.dataset.testid = "live";
    live.title = "The file is being followed: what is appended to it shows up here";
    live.append(el(doc, "span", "live-dot"), el(doc, "span", "live-label", "Live"));
    const follow = el(doc, "button", "button small", "Follow");
    follow.type = "button";
    follow.dataset.testid = "follow";
    follow.setAttribute("aria-pressed", this.follow.on ? "true" : "false");
    follow.title = "Keep the newest entry selected";
    follow.addEventListener("click", () => {
      if (this.follow.toggle()) {
        const newest = this.store.get().info?.defaultLeaf;
        if (newest && this.controller.graph.has(newest)) {
          this.quiet++;
          this.follow.pick(newest);
          this.controller.selectLeaf(newest).finally(() => this.quiet--);
          this.controller.graph.reveal(newest);
        }
        this.look();
      }
      this.renderLive();
    });
    live.append(follow);
    if (this.marker.count) {
      const news = el(doc, "button", "button small new-marker", `${this.marker.count} new`);
      news.type = "button";
      news.dataset.testid = "new-marker";
      news.title = "Entries that arrived since you last looked: show the first";
      news.addEventListener("click", () => {
        const first = this.marker.first;
        if (first) this.controller.jumpTo(first, false);
        this.look();
      });
      live.append(news);
    }
    this.liveBox.replaceChildren(live);
  }

  look() {
    this.marker.look();
    for (const row of this.graphElement.querySelectorAll(".row.is-new")) row.classList.remove("is-new");
    this.renderLive();
  }

  /** Marks the graph rows of new entries (the graph draws rows as they scroll into view). */
  watchRows() {
    new MutationObserver(() => this.markRows()).observe(this.graphElement, { childList: true, subtree: true });
  }

  markRows() {
    if (!this.marker.count) return;
    for (const row of this.graphElement.querySelectorAll(".row[data-entry-id]")) {
      row.classList.toggle("is-new", this.marker.has(row.dataset.entryId));
    }
  }

  // --- a folder opened in the page -----------------------------------------------

  dropped(e) {
    const items = [...(e.dataTransfer?.items ?? [])];
    const entry = items.map((i) => i.webkitGetAsEntry?.()).find((x) => x?.isDirectory);
    if (!entry) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    const overlay = this.doc.getElementById("drop-overlay");
    if (overlay) overlay.hidden = true;
    this.openFiles("entry", entry);
  }

  async openFiles(kind, source) {
    const local = await import("./local.js");
    const [lib, text] = await Promise.all([import("../pkg/browser.js"), import("../pkg/cli/serve/search-text.js")]);
    const files =
      kind === "list"
        ? local.filesFromList(source)
        : kind === "handle"
          ? await local.filesFromHandle(source)
          : await local.filesFromEntry(source);
    this.local = new local.LocalFolder(files, lib, text);
    this.usage?.root.remove();
    this.usage = null;
    this.model.clear();
    this.progress = { done: 0, total: files.length, ready: false };
    this.savedScroll = 0;
    this.doc.defaultView.history.pushState({}, "", "?");
    this.showList();
    this.showPart("list", false);
    this.loaded = this.local.load(
      (row) => {
        this.model.upsert(row);
        this.scheduleList();
      },
      (done, total) => {
        this.progress = { done, total, rowsReady: done === total, ready: done === total };
        this.renderStatus();
      },
    );
    await this.loaded;
    this.progress.ready = true;
    this.renderList();
  }
}

export function startFolder(options) {
  const page = new FolderPage(options);
  return { page, takesOver: page.start() };
}
