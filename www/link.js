// Where the address sends the viewer, without the DOM: `#leaf=<id>` (the
// viewer's own), or pi's `?leafId=<id>&targetId=<id>`, followed in the open
// file. Used by the controller when a file opens and when the address's hash
// changes (typed, pasted, Back and Forward). Unit tests: tests/viewer/unit/link.test.mjs.

/** The entry id in a `#leaf=<id>` hash (percent-decoded when it decodes), or `null`. */
export function parseLeafHash(hash) {
  const m = /^#leaf=(.+)$/.exec(hash ?? "");
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/** The hash naming `id` as the leaf. */
export function leafHash(id) {
  return `#leaf=${encodeURIComponent(id)}`;
}

/**
 * Where `link` (`{ leafId, targetId, ours }`, the address's position; `ours`:
 * the viewer wrote it itself, for the file it had open before) leads in a file
 * that has the entries `has(id)` says it has; `fallback` is the leaf shown when
 * the link names none or one the file lacks.
 *
 * Returns `{ leaf, targetId, missing, tell, waits }`: `leaf` to show (or
 * `null`); `targetId` to highlight, only with the link's own leaf; `missing`,
 * the link's leaf when the file lacks it (the address is then rewritten to
 * `leaf`, so a copied link names what is shown); `tell`, whether to say so (a
 * link someone followed, not the viewer's own leftover from another file).
 *
 * `sample`: the file is the viewer's sample, shown before the user opens
 * theirs. A link someone followed `waits` there: the address keeps it, for the
 * session it was made for.
 */
export function followLink(link, has, fallback, { sample = false } = {}) {
  const wanted = link?.leafId ?? null;
  const linked = wanted !== null && has(wanted) ? wanted : null;
  const missing = wanted !== null && linked === null ? wanted : null;
  const target = link?.targetId ?? null;
  const tell = missing !== null && !link.ours;
  return {
    leaf: linked ?? fallback ?? null,
    targetId: linked !== null && target !== null && has(target) ? target : null,
    missing,
    tell,
    waits: tell && sample,
  };
}

/**
 * The banner's words for a link to `id`, an entry the file lacks. `kept`: the
 * leaf shown before stays (a hash changed while a file was open); `sample`:
 * the file is the sample, and the link waits for its session; else the file
 * was just opened at its last entry.
 */
export function missingLinkText(id, { kept = false, sample = false } = {}) {
  if (sample) return `The link's entry ${id} is not in the sample: open the session it was made for to go there.`;
  const shown = kept ? "the leaf shown is kept" : "its last entry is shown";
  return `The link's entry ${id} is not in this file; ${shown}.`;
}
