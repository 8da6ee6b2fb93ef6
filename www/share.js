// The shared branch as one HTML file, without the DOM: the data the page
// inside shows (per entry display and filter data, the context at the leaf)
// and the file itself, with the redacted JSONL as plain text, the data as
// JSON and the viewer script (share-view.js) inline. Nothing in it refers to
// anything outside it, and its Content-Security-Policy forbids fetching
// anything. Unit tests: tests/viewer/unit/share.test.mjs.

import { describeNodes } from "./analysis.js";
import { FILTERS, KINDS, passesFilter } from "./model.js";

/**
 * What the shared page shows, from the redacted branch flattened as the
 * viewer flattens a tree (`nodes`, `labels`), the leaf, and the package's
 * `buildSessionProjection` there: per entry its id, kind, one-line summary,
 * label, time and the filters that show it (pi's filters; a tool-only
 * assistant turn only as the leaf); then the context's messages with the
 * entry each comes from.
 */
export function shareData({ title, nodes, labels, leafId, projection, redacted }) {
  const { kinds, summaries, toolOnly, times } = describeNodes(nodes);
  const rows = nodes.map((e, i) => ({
    id: String(e.id),
    kind: KINDS[kinds[i]]?.key ?? "other",
    kindName: KINDS[kinds[i]]?.name ?? "Other",
    summary: summaries[i],
    label: labels[i] ?? null,
    time: times[i],
    filters: FILTERS.filter((f) => (!toolOnly[i] || e.id === leafId) && passesFilter(f.key, e, labels[i])).map(
      (f) => f.key,
    ),
  }));
  const messages = [];
  for (const { sourceEntry, messages: ms } of projection.entries) {
    for (const message of ms) messages.push({ sourceId: String(sourceEntry?.id ?? ""), message });
  }
  return {
    title,
    leafId,
    redacted,
    filters: FILTERS.map(({ key, name, title }) => ({ key, name, title })),
    rows,
    context: { messages, thinkingLevel: projection.thinkingLevel, model: projection.model },
  };
}

const htmlText = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const htmlAttr = (s) => htmlText(s).replace(/"/g, "&quot;");

/** JSON that can sit in a `<script>` element: every `<` written `\u003c` (only strings hold one). */
export const scriptJson = (value) => JSON.stringify(value).replace(/</g, "\\u003c");

/** What the shared file may load: nothing at all; inline script and style, and images from data: URLs. */
export const SHARE_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/**
 * The shared file: `jsonl` (the redacted branch) as the text of a read-only
 * text area, `data` (from `shareData`) as JSON, `script` (share-view.js's
 * text) inline.
 */
export function shareDocument({ title, jsonl, data, script }) {
  if (/<\/script/i.test(script) || /<!--/.test(script)) throw new Error("the viewer script cannot be inlined as it is");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${htmlAttr(SHARE_CSP)}">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="session-tree viewer">
<title>${htmlText(title)} · shared branch</title>
</head>
<body>
<noscript><p>This page shows a pi session branch; it needs JavaScript. The session itself is below.</p></noscript>
<main id="app"></main>
<details id="jsonl-box"><summary>The session as shared (redacted JSONL)</summary>
<textarea id="session-jsonl" readonly spellcheck="false" rows="12" cols="100">
${htmlText(jsonl)}</textarea>
</details>
<script type="application/json" id="share-data">${scriptJson(data)}</script>
<script>
${script}
</script>
</body>
</html>
`;
}
