// What the viewer does: opens sessions, asks the worker for views, contexts,
// entries and exports, and keeps the store, the graph, the panels and the
// page in step. It holds no DOM of its own.

import { followLink, missingLinkText } from "./link.js";
import { openRequest, REQUEST } from "./messages.js";

export class Controller {
  /** `panels`: `{ context, system, composition, entry, stats, diagnostics }`. */
  constructor({ store, client, view, graph, panels }) {
    Object.assign(this, { store, client, view, graph, panels });
    this.openSeq = 0; // the latest open; older ones are dropped when they finish
    this.viewSeq = 0; // the latest view request, likewise
    this.selecting = false; // a select request is under way
    this.wantedLeaf = null; // the leaf to fetch next, once it is done
    this.targetId = null; // the entry a link asked to highlight, until another leaf is picked
    this.opening = false; // an open is under way (its first rows may come before it ends)
    this.hashPending = false; // the address's hash changed during an open: followed once it ends
    this.sampleShown = false; // the file shown is the viewer's sample
  }

  /** Connects the components' events to the controller. */
  bind() {
    const { view, graph, store } = this;
    store.subscribe((state, changed) => view.render(state, changed));
    graph.bind({
      onSelect: (id) => this.selectLeaf(id),
      onCursor: (id) => {
        store.set({ cursorId: id });
        if (store.get().tab === "entry") this.showEntry(id);
      },
      onJump: (id) => this.jumpTo(id, false),
    });
    view.bindFilter((filter) => this.setFilter(filter));
    view.bindSearch({
      onQuery: (query) => this.setQuery(query),
      onSubmit: async (query) => {
        await this.setQuery(query);
        graph.focusCursor();
        view.focusGraph();
      },
      onClear: () => {
        this.setQuery("");
        view.focusGraph();
      },
    });
    view.bindTabs((tab) => this.showTab(tab));
    view.bindHashChange((id) => this.followLeafHash(id));
    view.bindOpen((source, name) => this.open(source, name));
    view.bindSample(() => this.loadSample());
    view.bindExport(() => this.exportBranch());
    this.bindCompare();
    view.bindShare(() => this.shareBranch());
    view.bindTheme();
    view.bindMenu();
    view.bindCosts((on) => graph.showCosts(on));
  }

  async setFilter(filter) {
    this.store.set({ filter });
    await this.refreshView();
  }

  async setQuery(query) {
    this.store.set({ query });
    await this.refreshView();
  }

  /** Asks the worker for the rows of the current filter and search. */
  async refreshView() {
    const { info, filter, query, leafId } = this.store.get();
    if (!info) return;
    const seq = ++this.viewSeq;
    const { view } = await this.client.request({ type: REQUEST.view, filter, query, keepId: leafId });
    if (seq !== this.viewSeq) return;
    this.store.set({ view });
    this.graph.setView(view);
    if (leafId) this.graph.reveal(leafId);
  }

  /**
   * Makes `id` the leaf: marks it, then fetches its context and path. A
   * `targetId` (pi's link) is highlighted in the graph and the context; any
   * other selection drops the highlight.
   */
  async selectLeaf(id, { updateHash = true, targetId = null } = {}) {
    if (!this.store.get().info || !id) return;
    this.store.set({ leafId: id });
    if (updateHash) {
      this.view.clearLinkQuery();
      this.view.setHashLeaf(id);
    }
    this.targetId = targetId;
    this.graph.setTarget(targetId);
    this.graph.setSelection(id);
    this.view.enableExport();
    // One request at a time; only the latest selection is fetched next.
    this.wantedLeaf = id;
    if (this.selecting) return;
    this.selecting = true;
    try {
      while (this.wantedLeaf) {
        const leaf = this.wantedLeaf;
        this.wantedLeaf = null;
        let msg;
        try {
          msg = await this.client.request({ type: REQUEST.select, entryId: leaf });
        } catch (error) {
          // A later selection is fetched all the same; this one's failure is shown only if it is the last.
          if (this.wantedLeaf) continue;
          throw error;
        }
        if (this.wantedLeaf) continue;
        this.graph.setPath(leaf, msg.pathNodes, msg.state);
        this.graph.setEdits(msg.edits);
        this.panels.context.render(leaf, msg, { targetId: this.targetId });
        this.panels.system.render(leaf, msg.system);
        this.panels.composition.render(leaf, msg);
        if (this.store.get().tab === "entry") this.showEntry(leaf);
      }
    } catch (error) {
      const why = `Could not build the context: ${error.message}`;
      this.clearPanels(why);
      this.view.banner("error", why);
    } finally {
      this.selecting = false;
    }
    // A tool-call-only assistant turn is hidden by pi's filters unless it is the leaf.
    if (this.graph.isHidden(id)) await this.refreshView();
    if (targetId && targetId === this.targetId) await this.revealTarget(targetId);
  }

  /** Scrolls the graph to a link's target; if the filter hides it, shows every entry first. */
  async revealTarget(id) {
    if (!this.graph.has(id)) return;
    if (this.graph.isHidden(id) && this.store.get().filter !== "all") await this.setFilter("all");
    this.graph.reveal(id);
  }

  /**
   * Goes where a pi link points: `leafId` becomes the leaf, and `targetId`
   * (when given) is scrolled to and highlighted. The address says the same.
   */
  async goTo(leafId, targetId = null) {
    if (!this.graph.has(leafId)) return;
    const url = new URL(location.href);
    url.hash = "";
    url.searchParams.set("leafId", leafId);
    if (targetId) url.searchParams.set("targetId", targetId);
    else url.searchParams.delete("targetId");
    history.replaceState(null, "", url);
    await this.selectLeaf(leafId, {
      updateHash: false,
      targetId: targetId && this.graph.has(targetId) ? targetId : null,
    });
    if (!targetId) this.graph.reveal(leafId);
  }

  /**
   * `#leaf=<id>` put in the address while a file is open (typed, pasted, Back
   * or Forward): `id` becomes the leaf. An entry the file lacks is said so in a
   * banner, and the address goes back to the leaf shown (as an open does with
   * such a link), so it never names what is not there.
   */
  async followLeafHash(id) {
    const { info, leafId } = this.store.get();
    // No file, or only the first rows of one whose open failed: there is no leaf to go to.
    // The session list shown instead (serve): the file behind it is not the one in view.
    if (id === null || !info || info.partial || this.view.listShown()) return;
    // The open reads the address once its file is read; a change after that read is followed at its end.
    if (this.opening) {
      this.hashPending = true;
      return;
    }
    const sample = this.sampleShown;
    const to = followLink({ leafId: id, targetId: null, ours: false }, (x) => this.graph.has(x), leafId, { sample });
    if (to.missing !== null) {
      this.view.banner("info", missingLinkText(to.missing, { kept: true, sample }), [], "missing-link");
      // In the sample, the link waits in the address for the session it was made for.
      if (!to.waits) this.view.setHashLeaf(leafId);
      return;
    }
    if (to.leaf === leafId) return;
    const selected = this.selectLeaf(to.leaf, { updateHash: false });
    this.view.ownLink();
    this.graph.reveal(to.leaf);
    await selected;
  }

  /** Scrolls the graph to `id` and focuses it; makes it the leaf unless `select` is false. */
  jumpTo(id, select = true) {
    if (!this.graph.has(id)) return;
    if (select) this.selectLeaf(id);
    this.graph.reveal(id);
    this.view.focusGraph({ preventScroll: true });
  }

  showTab(tab) {
    this.store.set({ tab });
    if (tab === "entry") {
      const { cursorId, leafId } = this.store.get();
      this.showEntry(cursorId ?? leafId);
    }
  }

  /** Fills the Entry tab with `id`, unless the cursor has moved on by the time it arrives. */
  async showEntry(id) {
    if (!id) {
      this.panels.entry.renderEmpty();
      return;
    }
    const { entry } = await this.client.request({ type: REQUEST.entry, entryId: id });
    const { cursorId, leafId } = this.store.get();
    if ((cursorId ?? leafId) !== id) return;
    this.panels.entry.render(id, entry);
  }

  /**
   * The context, system and composition panels (and the entry) emptied,
   * saying `why` (or each its own "nothing" line): nothing they showed of one session may stay beside
   * another's title, nor after their own update failed.
   */
  clearPanels(why) {
    const { panels } = this;
    for (const p of [panels.context, panels.system, panels.composition]) p.renderNothing(why);
    panels.entry.renderEmpty(why);
  }

  /**
   * The first rows of a file read by piece, before the rest is read (the
   * worker's `preview`), shown if they belong to the latest open.
   */
  preview({ info, nodes, view: rows }) {
    if (!this.opening) return;
    this.store.set({ info: { ...info, partial: true }, nodes, view: rows, leafId: null, cursorId: null });
    this.graph.setData(nodes, rows);
    this.clearPanels("Reading the rest of the file…");
  }

  /**
   * Opens a `File`/`Blob`, `ArrayBuffer` or JSONL string; a later open wins over an earlier one.
   * `sample`: it is the viewer's sample (a link it lacks waits for the user's file).
   */
  async open(source, name, { sample = false } = {}) {
    const { store, view, graph, panels } = this;
    const seq = ++this.openSeq;
    this.opening = true;
    view.startProgress("Reading");
    try {
      const { filter, query } = store.get();
      const { message, transfer } = openRequest(source, name, filter, query);
      const opened = await this.client.request(message, transfer);
      if (seq !== this.openSeq) return;
      view.clearBanners();
      const { info, nodes, view: rows } = opened;
      store.set({ info, nodes, view: rows, leafId: null, cursorId: null });
      graph.setData(nodes, rows);
      this.clearPanels();
      panels.stats.render(info);
      panels.diagnostics.render(info.diagnostics);
      panels.composition.setFile(info.stats.tokens);
      this.announce(info);
      // `#leaf=<id>`, or pi's `?leafId=<id>&targetId=<id>`; else pi's default leaf.
      this.hashPending = false; // the address is read now
      // A link to an entry this file lacks: the address names the leaf shown instead, and a
      // link someone followed (not the previous file's leaf) is told about.
      this.sampleShown = sample;
      const to = followLink(view.link(), (id) => graph.has(id), info.defaultLeaf, { sample });
      const { leaf, targetId, missing } = to;
      if (to.tell) view.banner("info", missingLinkText(missing, { sample }), [], "missing-link");
      // A link the sample lacks stays in the address, for the session it was made for.
      const rewrite = missing !== null && !to.waits;
      if (leaf && graph.has(leaf)) {
        await this.selectLeaf(leaf, { updateHash: rewrite, targetId });
        if (!targetId) graph.reveal(leaf);
      } else if (rewrite) view.setHashLeaf(null);
      // A link followed here is this file's leaf now: the next file is not told it lacks it.
      if (missing === null && leaf === view.link().leafId) view.ownLink();
      await this.followCompareHash();
      store.set({ opened: store.get().opened + 1 });
    } catch (error) {
      if (seq !== this.openSeq) return;
      const why = `Could not open ${name}: ${error.message}`;
      // The first rows of this file may be shown already: the panels say it failed.
      if (store.get().info?.partial) this.clearPanels(why);
      view.banner("error", why);
    } finally {
      if (seq === this.openSeq) {
        this.opening = false;
        view.stopProgress();
      }
    }
    if (seq === this.openSeq && this.hashPending) {
      this.hashPending = false;
      await this.followLeafHash(view.hashLeaf());
    }
  }

  /**
   * Live follow (live.js, folder/ui.js): bytes appended to the open file go to
   * the worker's session; the graph is rebuilt with the selection kept.
   * Resolves with the worker's reply (`added`, `defaultLeaf`, `nodes`).
   */
  async appendBytes(bytes) {
    const { info, filter, query, leafId } = this.store.get();
    if (!info) return null;
    const buffer = bytes.slice().buffer;
    const msg = await this.client.request({ type: REQUEST.append, bytes: buffer, filter, query, keepId: leafId }, [
      buffer,
    ]);
    const next = { ...info, count: msg.count, stats: msg.stats, defaultLeaf: msg.defaultLeaf };
    next.bytes = (info.bytes ?? 0) + bytes.length;
    const scroll = this.graph.scroller?.scrollTop;
    this.store.set({ info: next, nodes: msg.nodes, view: msg.view });
    this.graph.setData(msg.nodes, msg.view);
    if (scroll !== undefined) this.graph.scroller.scrollTop = scroll;
    this.panels.stats.render(next);
    if (leafId && this.graph.has(leafId)) await this.selectLeaf(leafId, { updateHash: false });
    return msg;
  }

  /** The banners a newly opened file calls for: migrated, problems found, empty. */
  announce(info) {
    const { view } = this;
    if (info.migrated) {
      const hooks = info.fromVersion === 2 ? ", hookMessage → custom" : "";
      view.banner(
        "info",
        `This is a version ${info.fromVersion ?? 1} session: it was migrated to version 3 in memory (new ids, parent links${hooks}).`,
        [["Download migrated JSONL", () => this.downloadMigrated(), "download-migrated"]],
        "migrated",
      );
    }
    const problems = info.diagnostics.length;
    if (problems) {
      view.banner(
        "warn",
        `${problems} problem${problems === 1 ? "" : "s"} found in this file; it is shown as far as it could be read.`,
        [["Show diagnostics", () => this.showTab("diagnostics")]],
        "diagnostics",
      );
    }
    if (info.count === 0) view.banner("warn", "No entries could be read from this file.");
  }

  async loadSample() {
    try {
      const res = await fetch("sample.jsonl");
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      await this.open(await res.arrayBuffer(), "sample.jsonl", { sample: true });
    } catch (error) {
      this.view.banner("error", `Could not load the sample: ${error.message}`);
    }
  }

  baseName() {
    return (this.store.get().info?.name ?? "session").replace(/\.jsonl?$/i, "");
  }

  async downloadMigrated() {
    const { jsonl } = await this.client.request({ type: REQUEST.migrated });
    if (jsonl !== null) this.view.download(jsonl, `${this.baseName()}.v3.jsonl`);
  }

  /** Downloads the path to the leaf as a new session file. */
  async exportBranch() {
    const { leafId } = this.store.get();
    if (!leafId) return;
    try {
      const { text } = await this.client.request({ type: REQUEST.export, entryId: leafId });
      this.view.download(text, `${this.baseName()}-branch-${leafId}.jsonl`);
    } catch (error) {
      this.view.banner("error", `Could not export the branch: ${error.message}`);
    }
  }

  // --- two branches side by side (compare.js, panels/compare.js) -----------------

  bindCompare() {
    const { view, store } = this;
    this.compareSeq = 0;
    view.bindCompare({
      onHash: () => this.followCompareHash(),
      // A modifier-click on an entry, or the entry picked after "Compare with…".
      onPick: (id) => {
        const leaf = store.get().leafId;
        if (leaf && id && id !== leaf) view.goCompare(leaf, id);
      },
    });
  }

  /** Shows the comparison `#compare=<a>,<b>` asks for, or hides the view when the address asks for none. */
  async followCompareHash() {
    const { view, panels } = this;
    const pair = view.comparePair();
    const seq = ++this.compareSeq;
    if (!pair) {
      view.showCompare(false);
      return;
    }
    if (!this.store.get().info) return;
    try {
      const { comparison } = await this.client.request({ type: REQUEST.compare, a: pair[0], b: pair[1] });
      if (seq !== this.compareSeq) return;
      panels.compare.render(comparison);
    } catch (error) {
      if (seq !== this.compareSeq) return;
      panels.compare.renderError(`Could not compare: ${error.message}`);
    }
    view.showCompare(true);
  }

  swapCompare() {
    const pair = this.view.comparePair();
    if (pair) this.view.goCompare(pair[1], pair[0]);
  }

  /** Leaves the compare view for the leaf of side A (a new history entry, so Back returns). */
  closeCompare(id) {
    const pair = this.view.comparePair();
    const leaf = id ?? pair?.[0];
    if (leaf) this.view.goLeaf(leaf);
  }

  // --- share one branch, redacted (share-worker.js, share-dialog.js) ----------------

  /** Scans the path to the leaf for secrets, then opens the review; the review makes the file. */
  async shareBranch() {
    const { leafId } = this.store.get();
    if (!leafId) return;
    try {
      const { findings } = await this.client.request({ type: REQUEST.shareScan, entryId: leafId });
      this.panels.share.open(leafId, findings, async (redactions) => {
        const { html, fileName } = await this.client.request({ type: REQUEST.shareBuild, entryId: leafId, redactions });
        this.view.download(html, fileName, "text/html");
      });
    } catch (error) {
      this.view.banner("error", `Could not share the branch: ${error.message}`);
    }
  }
}
