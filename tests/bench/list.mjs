// The bench's "list" row: a folder of 1,000 generated sessions of mixed sizes
// (v1, v2 and v3, half of them as pi 1.6 writes them), listed by pi 1.6.0's
// `SessionManager.listAll(dir)` and by our `session-tree list` path
// (`listSessions` of session-tree/node, then `orderSessions`). Both
// sides read every `.jsonl` file directly in the folder (pi's listAll of a
// folder: readdir, the names ending in .jsonl, read ten at a time; ours: the
// same names, read 32 at a time), reading included in the timing.
//
//   BENCH_ONLY=list node --expose-gc bench/bench.mjs     (from tests/: only this row)

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { orderSessions } from "../../pkg/cli/lineage.js";
import { listSessions } from "../../pkg/files/folder.cjs";
import { SessionManager } from "../shared/pi.mjs";
import { caseSeed } from "../shared/rng.mjs";
import { generateSession, PI16_FEATURES } from "../shared/sessions.mjs";

export const LIST_SEED = 0x1157a11;
export const LIST_FILES = 1000;
export const LIST_TARGET = 4;
// pi 1.6's additions, but not null message content: pi's list drops such a
// session (its buildSessionInfo throws), ours lists it (a documented
// difference), and both sides must list the same sessions to be compared.
const PI16 = Object.fromEntries(PI16_FEATURES.map((f) => [f, f !== "nullContent"]));

/** Writes the folder: file names as pi gives them (time, then the session id). Returns its path and size. */
export function makeListFolder(root = os.tmpdir()) {
  const dir = mkdtempSync(join(root, "session-tree-bench-list-"));
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  const versions = { 1: 0, 2: 0, 3: 0 };
  for (let i = 0; i < LIST_FILES; i++) {
    const seed = caseSeed(LIST_SEED, i);
    const { text, version } = generateSession(seed, { pi16: i % 2 === 1 ? PI16 : false });
    const stamp = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString().replace(/[:.]/g, "-");
    const name = `${stamp}_${seed.toString(16).padStart(8, "0")}.jsonl`;
    const data = Buffer.from(text, "utf8");
    writeFileSync(join(dir, name), data);
    bytes += data.length;
    versions[version]++;
  }
  return { dir, bytes, versions, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** pi's side: its session list of the folder (sorted newest first). */
export function piList(dir) {
  return SessionManager.listAll(dir);
}

/** Our side: what `session-tree list DIR` does before printing (session-tree/node's `listSessions`, then the lineage). */
export async function ourList(dir) {
  const rows = await listSessions(dir);
  return orderSessions(rows.filter((row) => row.info !== null));
}

const time = (d) => (d instanceof Date ? d.getTime() : null);

/**
 * Compares the two lists: the same files, in the same order, with the same
 * facts. Returns null, or how many rows differ and the first difference.
 */
export function compareLists(piSessions, ourRows) {
  if (piSessions.length !== ourRows.length) return `pi lists ${piSessions.length} sessions, ours ${ourRows.length}`;
  let first = null;
  let count = 0;
  for (let i = 0; i < piSessions.length; i++) {
    const p = piSessions[i];
    const { path, info } = ourRows[i].item;
    const theirs = [p.path, p.id, p.cwd, p.name, p.parentSessionPath, time(p.created), time(p.modified)];
    const mine = [path, info.id, info.cwd, info.name, info.parentSession, time(info.created), time(info.modified)];
    theirs.push(p.messageCount, p.firstMessage);
    mine.push(info.messageCount, info.firstMessage);
    const a = JSON.stringify(theirs);
    const b = JSON.stringify(mine);
    if (a === b) continue;
    count++;
    first ??= `row ${i}: pi ${a.slice(0, 300)} vs ours ${b.slice(0, 300)}`;
  }
  return count === 0 ? null : `${count} of ${piSessions.length} rows differ; ${first}`;
}

/**
 * One warm-up run of each side on `arg`, then `runs` alternating timed runs
 * (pi, ours, pi, …), `gc` before each: `{ pi, ours }`, the medians in ms.
 */
export async function alternate(piFn, ourFn, arg, { runs, gc }) {
  const timed = async (fn) => {
    gc();
    const start = performance.now();
    await fn(arg);
    return performance.now() - start;
  };
  await timed(piFn);
  await timed(ourFn);
  const piT = [];
  const ourT = [];
  for (let i = 0; i < runs; i++) {
    piT.push(await timed(piFn));
    ourT.push(await timed(ourFn));
  }
  return { pi: median(piT), ours: median(ourT) };
}

/** The median of `xs`. */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The row, in bench.mjs's format. `runs`: timed runs per side (alternating,
 * after one checked run and one warm-up round); `gc` between runs.
 */
export async function listRow({ runs = 7, gc = () => {}, log = () => {} } = {}) {
  const t0 = performance.now();
  const folder = makeListFolder();
  const row = {
    op: "list",
    workload: `${LIST_FILES.toLocaleString("en")} sessions`,
    size: folder.bytes,
    pi: null,
    ours: null,
    ratio: null,
    target: LIST_TARGET,
    same: null,
    note: "",
  };
  try {
    log(
      `list: ${LIST_FILES} files (v1 ${folder.versions[1]}, v2 ${folder.versions[2]}, v3 ${folder.versions[3]}), ${(folder.bytes / 1e6).toFixed(1)} MB (seed 0x${LIST_SEED.toString(16)}), written in ${(performance.now() - t0).toFixed(0)} ms`,
    );
    const diff = compareLists(await piList(folder.dir), await ourList(folder.dir));
    row.same = diff === null;
    if (diff) row.mismatch = `list / ${row.workload} (seed 0x${LIST_SEED.toString(16)}): ${diff}`;
    Object.assign(row, await alternate(piList, ourList, folder.dir, { runs, gc }), { runs });
    row.ratio = row.pi / row.ours;
    log(
      `  list: pi ${row.pi.toFixed(0)} ms, ours ${row.ours.toFixed(0)} ms, ×${row.ratio.toFixed(2)} (${runs} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s)${row.same ? "" : "  RESULTS DIFFER"}`,
    );
  } finally {
    folder.cleanup();
  }
  return row;
}
