// The viewer page: creates the store, the worker client, the page view, the
// graph and the panels, and connects them through the controller. Nothing
// happens on import but the one call to `start()` at the end.

import { Controller } from "./controller.js";
import { startFolder } from "./folder/ui.js";
import { Graph } from "./graph.js";
import { ComparePanel } from "./panels/compare.js";
import { CompositionPanel } from "./panels/composition.js";
import { ContextPanel } from "./panels/context.js";
import { DiagnosticsPanel } from "./panels/diagnostics.js";
import { EntryPanel } from "./panels/entry.js";
import { StatsPanel } from "./panels/stats.js";
import { SystemPanel } from "./panels/system.js";
import { ShareDialog } from "./share-dialog.js";
import { createStore } from "./store.js";
import { View } from "./view.js";
import { WorkerClient } from "./worker-client.js";

export function start(doc = document) {
  const $ = (id) => doc.getElementById(id);
  const store = createStore();
  const view = new View(doc);
  view.renderStatic(store.get().filter);
  const client = new WorkerClient(new URL("./worker.js", import.meta.url), {
    onProgress: (stage, fraction) => view.showProgress(stage, fraction),
    onPreview: (reply) => controller.preview(reply),
    onError: (message) => view.banner("error", message),
  });
  const graph = new Graph(view.graphElement);
  // The panels call back into the controller, created just below.
  const jump = (id, select) => controller.jumpTo(id, select);
  const panels = {
    context: new ContextPanel($("context-head"), $("context"), { onJump: jump }),
    system: new SystemPanel($("system-prompt"), { onJump: (id) => jump(id, false) }),
    composition: new CompositionPanel($("composition"), { onJump: (id) => jump(id, false) }),
    entry: new EntryPanel($("panel-entry"), { onSelect: (id) => controller.selectLeaf(id), onJump: jump }),
    stats: new StatsPanel($("panel-stats")),
    diagnostics: new DiagnosticsPanel($("diagnostics"), $("diag-count"), {
      canJump: (id) => graph.has(id),
      onJump: (id) => jump(id, false),
    }),
    compare: new ComparePanel($("compare-view"), {
      onSwap: () => controller.swapCompare(),
      onClose: () => controller.closeCompare(),
      onJump: (id) => controller.closeCompare(id),
    }),
    share: new ShareDialog($("share-dialog")),
  };
  const controller = new Controller({ store, client, view, graph, panels });
  controller.bind();

  // A small handle for tests and the curious.
  window.__viewer = {
    get opened() {
      return store.get().opened;
    },
    get state() {
      const s = store.get();
      return {
        leafId: s.leafId,
        filter: s.filter,
        query: s.query,
        count: s.info?.count ?? 0,
        shown: s.view?.count ?? 0,
        partial: s.info?.partial === true, // the first rows of a file still being read
      };
    },
    visibleIds() {
      const { view: rows, nodes } = store.get();
      return rows ? Array.from(rows.rowNode, (n) => nodes.ids[n]) : [];
    },
    open: (source, name) => controller.open(source, name),
    select: (id) => controller.selectLeaf(id),
    goTo: (leafId, targetId) => controller.goTo(leafId, targetId),
    setFilter: (filter) => controller.setFilter(filter),
  };

  // The session list (folder/ui.js): served by `session-tree serve`, it shows
  // the list or the session the URL names instead of the sample.
  const folder = startFolder({ doc, controller, store, graphElement: view.graphElement });
  window.__folder = folder.page;
  if (!folder.takesOver) controller.loadSample();
  return controller;
}

start();
