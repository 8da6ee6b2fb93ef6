// A generated sessions folder laid out like ~/.pi/agent/sessions: project
// folders (some nested one level deeper), files named `<time>_<id>.jsonl`,
// and forks whose header names the file they came from (`parentSession`, an
// absolute path, as pi writes it). The manifest says what the list must show.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";

const hex = (rng, n) => Array.from({ length: n }, () => "0123456789abcdef"[rng.int(0, 15)]).join("");

/**
 * Writes `count` sessions under `dir`. Returns `{ seed, sessions: [{ rel, cwd,
 * parentRel, ids, version, broken }] }`: `parentRel` is the file a fork came
 * from, `ids` the entry ids in the file (for v3 files).
 */
export function writeFolder(
  dir,
  { count = 300, seed = Date.now() >>> 0, projects = 12, forkShare = 0.25, plant = null } = {},
) {
  const rng = new Rng(seed);
  const projectDirs = Array.from({ length: projects }, (_, i) => {
    const cwd = `/home/dev/project-${i}`;
    const encoded = `--home-dev-project-${i}--`;
    // Every third project one level deeper, for nested folders.
    return { cwd, rel: i % 3 === 2 ? `nested/${encoded}` : encoded };
  });
  const sessions = [];
  const base = Date.UTC(2026, 0, 1);
  for (let i = 0; i < count; i++) {
    const project = projectDirs[rng.int(0, projects - 1)];
    const gen = generateSession(rng.int(0, 2 ** 31), { maxEntries: 40 });
    const lines = gen.text.split("\n");
    const id = `${hex(rng, 8)}-${hex(rng, 4)}-7${hex(rng, 3)}-8${hex(rng, 3)}-${hex(rng, 12)}`;
    const time = new Date(base + i * 60_000).toISOString();
    const file = `${time.replace(/[:.]/g, "-")}_${id}.jsonl`;
    const rel = `${project.rel}/${file}`;
    // A fork of an earlier session of the same project, when there is one.
    const earlier = sessions.filter((s) => s.projectRel === project.rel && !s.broken);
    const parent = earlier.length && rng.next() < forkShare ? earlier[rng.int(0, earlier.length - 1)] : null;
    let broken = true;
    const first = lines.findIndex((l) => l.trim());
    if (first >= 0) {
      try {
        const header = JSON.parse(lines[first]);
        if (header && header.type === "session") {
          header.id = id;
          header.cwd = project.cwd;
          header.timestamp = time;
          if (parent) header.parentSession = path.join(dir, ...parent.rel.split("/"));
          else delete header.parentSession;
          lines[first] = JSON.stringify(header);
          broken = false;
        }
      } catch {}
    }
    // The phrase goes into one user message of the first v3 session that has one.
    let planted = null;
    if (plant && !broken && gen.version === 3 && !sessions.some((s) => s.planted)) {
      const at = lines.findIndex((l) => l.includes('"type":"message"') && l.includes('"role":"user"'));
      if (at >= 0) {
        const entry = JSON.parse(lines[at]);
        entry.message.content = [{ type: "text", text: `before ${plant} after` }];
        lines[at] = JSON.stringify(entry);
        planted = entry.id;
      }
    }
    const abs = path.join(dir, ...rel.split("/"));
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, lines.join("\n"));
    sessions.push({
      rel,
      abs,
      cwd: project.cwd,
      projectRel: project.rel,
      parentRel: parent && !broken ? parent.rel : null,
      ids: gen.ids,
      version: gen.version,
      broken,
      planted,
    });
  }
  return { seed, sessions };
}
