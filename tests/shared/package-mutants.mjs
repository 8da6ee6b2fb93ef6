// The package made deliberately wrong in one way, to check that a harness comparing it with pi
// reports the difference (conformance/harness.test.js). `mutatePackage(api, kind)` changes the
// loaded package in place: its exported functions and `Session`'s prototype, so every import of
// it in the process sees the mutant. `node --import ./mutant-preload.mjs` applies one to a run.
//
//   edit-ignored      a context edit with `replacement: null` no longer omits its target (what
//                     deleting the ContextEdit arm of context::emit does): the context functions
//                     and Session's (buildSessionContext, buildContextEntries, buildSessionProjection)
//   siblings-swapped  every node's children in reverse order: getTree and Session#getTree
//   id-rewritten      the last entry's id renamed: parseSession and Session#getEntries
//   line-dropped      the last line lost: migrate(text) and Session#takePendingLines
//   info-wrong        sessionInfo counts one message too many
//   timestamp-shifted every finite message timestamp of a context 1 ms late: buildSessionContext
//                     and Session#buildSessionContext
//
// And the viewer's DOM-free modules (www/), which an ES module namespace keeps out of reach:
// `VIEWER_MUTANTS` names a module, an export and how to make it wrong; mutant-hooks.mjs serves
// that module, to every importer, with the one export replaced.
//
//   estimate-off-by-one  www/composition.js's estimateTokens one token too high
//   edit-unmarked        www/analysis.js's projectionView no longer marks an entry an edit omits

export const PACKAGE_MUTANTS = [
  "edit-ignored",
  "siblings-swapped",
  "id-rewritten",
  "line-dropped",
  "info-wrong",
  "timestamp-shifted",
];

export const VIEWER_MUTANTS = {
  "estimate-off-by-one": {
    module: new URL("../../www/composition.js", import.meta.url).href,
    name: "estimateTokens",
    // source text: it is evaluated in the served module
    wrap: "(estimate) => (...args) => estimate(...args) + 1",
  },
  "edit-unmarked": {
    module: new URL("../../www/analysis.js", import.meta.url).href,
    name: "projectionView",
    wrap: `(view) => (...args) => {
      const v = view(...args);
      for (const [id, edit] of v.edits) if (edit.kind === "omit") v.edits.delete(id);
      return v;
    }`,
  },
};

const omits = (e) => e?.type === "context_edit" && e.replacement === null;
export const hasOmittingEdit = (entries) => entries.some(omits);
/** Entries with every omitting edit made inert (a custom entry adds nothing to a context). */
export const ignoreOmittingEdits = (entries) =>
  entries.map((e) => (omits(e) ? { ...e, type: "custom", customType: "mutant" } : e));

/** Children in reverse order, at every level of a tree of { children } nodes. */
export function reverseSiblings(nodes) {
  for (const n of nodes) if (Array.isArray(n?.children)) reverseSiblings(n.children.reverse());
  return nodes;
}

/** The last entry (not the header) with a string id gets another id. */
export function renameLast(entries) {
  const last = entries.findLastIndex((e) => typeof e?.id === "string" && e.type !== "session");
  if (last >= 0) entries[last] = { ...entries[last], id: `${entries[last].id}-renamed` };
  return entries;
}

/** The text without its last non-blank line. */
export function withoutLastLine(text) {
  const lines = text.split("\n");
  const last = lines.findLastIndex((l) => l.trim() !== "");
  if (last >= 0) lines.splice(last, 1);
  return lines.join("\n");
}

/** migrate(source) whose text or bytes lose their last line (arrays: as it is). */
export const droppingLine =
  (migrate) =>
  (source, ...rest) => {
    const out = migrate(source, ...rest);
    if (Array.isArray(source)) return out;
    const text = withoutLastLine(typeof out === "string" ? out : new TextDecoder().decode(out));
    return typeof source === "string" ? text : new TextEncoder().encode(text);
  };

/** Mutates the loaded package `api` (exports object of `session-tree`) in place; returns it. */
export function mutatePackage(api, kind) {
  const proto = api.Session.prototype;
  const patch = (name, fn) => {
    const orig = proto[name];
    proto[name] = function (...args) {
      return fn.call(this, orig, ...args);
    };
  };
  if (kind === "edit-ignored") {
    const parse = api.parseSession;
    const migrate = api.migrate;
    for (const name of ["buildSessionContext", "buildContextEntries", "buildSessionProjection"]) {
      const orig = api[name];
      api[name] = (source, ...leaf) => {
        let entries = source;
        if (!Array.isArray(source)) {
          entries = parse(source);
          migrate(entries);
        }
        return hasOmittingEdit(entries) ? orig(ignoreOmittingEdits(entries), ...leaf) : orig(source, ...leaf);
      };
    }
    // the Session methods through the functions above, on its entries
    for (const name of ["buildSessionContext", "buildContextEntries", "buildSessionProjection"]) {
      const ignoring = api[name];
      patch(name, function (orig, leaf) {
        const entries = [this.header, ...this.getEntries()];
        if (!hasOmittingEdit(entries)) return orig.call(this, leaf);
        return ignoring(entries, leaf === undefined ? this.leafId : leaf);
      });
    }
  } else if (kind === "siblings-swapped") {
    const getTree = api.getTree;
    api.getTree = (...a) => reverseSiblings(getTree(...a));
    patch("getTree", function (orig) {
      return reverseSiblings(orig.call(this));
    });
  } else if (kind === "id-rewritten") {
    const parse = api.parseSession;
    api.parseSession = (...a) => renameLast(parse(...a));
    patch("getEntries", function (orig) {
      return renameLast(orig.call(this));
    });
  } else if (kind === "line-dropped") {
    api.migrate = droppingLine(api.migrate);
    patch("takePendingLines", function (orig) {
      const lines = orig.call(this);
      return lines.length > 1 ? lines.slice(0, -1) : lines;
    });
  } else if (kind === "info-wrong") {
    const info = api.sessionInfo;
    api.sessionInfo = (...a) => {
      const r = info(...a);
      return r && r.messageCount > 0 ? { ...r, messageCount: r.messageCount + 1 } : r;
    };
  } else if (kind === "timestamp-shifted") {
    const shift = (context) => {
      for (const m of context?.messages ?? []) if (Number.isFinite(m?.timestamp)) m.timestamp += 1;
      return context;
    };
    const context = api.buildSessionContext;
    api.buildSessionContext = (...a) => shift(context(...a));
    patch("buildSessionContext", function (orig, ...a) {
      return shift(orig.call(this, ...a));
    });
  } else throw new Error(`unknown package mutant ${kind}: one of ${PACKAGE_MUTANTS.join(", ")}`);
  return api;
}
