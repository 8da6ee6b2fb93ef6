// The worker's half of "Share…": the path to a leaf as a branch file (pi's
// createBranchedSession, as "Download branch" saves it), scanned for secrets
// (redact.js); then, with the strings the user chose, redacted and turned
// into one HTML file (share.js) whose context comes from the package run on
// the redacted branch. A file that would still hold a chosen string is not
// made.

import { flattenTree } from "./analysis.js";
import { leaks, redactJsonl, redactor, scanEntries } from "./redact.js";
import { shareData, shareDocument } from "./share.js";

let viewScript = null;

/** share-view.js's text, to inline (read once, from next to this module). */
async function viewerScript() {
  if (viewScript === null) {
    const res = await fetch(new URL("./share-view.js", import.meta.url));
    if (!res.ok) throw new Error(`could not read share-view.js (HTTP ${res.status})`);
    viewScript = await res.text();
  }
  return viewScript;
}

const baseName = (name) => String(name || "session").replace(/\.jsonl?$/i, "");

/** The branch ending at `leafId` as a new session file's JSONL. */
function branchJsonl(doc, leafId) {
  if (!doc) throw new Error("No session is open.");
  if (!doc.session.getBranch(leafId).length) throw new Error(`No entry with id "${leafId}" in this session.`);
  return doc.session.createBranchedSession(leafId, doc.name ? { parentSession: doc.name } : {});
}

/** The secrets in the branch ending at `leafId` and in the file's name (the file's title may use it). */
export function scanBranch(st, doc, leafId) {
  const entries = st.parseSession(branchJsonl(doc, leafId));
  const findings = scanEntries([...entries, { "file name": String(doc.name ?? "") }]);
  return { findings, entries: entries.length };
}

/**
 * The shared file for the branch ending at `leafId`, with every one of
 * `redactions` (`{ kind, text, replacement }`) replaced: `{ html, fileName, leafId }`.
 * Throws, naming them, if any of those strings would remain in the file.
 */
export async function buildShare(st, doc, leafId, redactions) {
  const redacted = redactJsonl(branchJsonl(doc, leafId), redactions);
  const redact = redactor(redactions);
  const { nodes, labels } = flattenTree(st.getTree(st.parseSession(redacted)));
  const session = st.Session.open(redacted);
  try {
    // A label leaf is copied to the end of the branch file with a new id; the
    // branch's last entry then has the same context.
    const leaf = session.getEntry(leafId) ? leafId : (session.getLeafEntry()?.id ?? null);
    const projection = session.buildSessionProjection(leaf);
    const title = redact(session.getSessionName() ?? baseName(doc.name));
    const data = shareData({ title, nodes, labels, leafId: leaf, projection, redacted: redactions.length });
    const html = shareDocument({ title, jsonl: redacted, data, script: await viewerScript() });
    const left = leaks(html, [...new Set(redactions.map((r) => r.text))]);
    if (left.length) {
      const shown = left.map((s) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)).join(", ");
      throw new Error(
        `The file was not made: ${shown} would still be in it (in entry ids, entry types or the viewer's own code, which are not redacted). Untick or change ${left.length === 1 ? "it" : "them"}.`,
      );
    }
    return { html, fileName: `${redact(baseName(doc.name))}-shared-${leafId}.html`, leafId: leaf };
  } finally {
    session.free();
  }
}
