// Measures `session-tree serve` on a large folder (the README's figures; never
// a test): writes COUNT sessions of TOTAL_MB megabytes in all under a scratch
// folder, starts the real command, and reports the time to the first list
// row, the time until the list and search index are built, a search's time,
// and the server's resident memory. Deletes the folder afterwards.
//
//   node tests/serve/scale.mjs [COUNT=2000] [TOTAL_MB=2048]

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { Rng } from "../shared/rng.mjs";
import { startServe } from "./helpers.mjs";

const COUNT = Number(process.argv[2] ?? 2000);
const TOTAL_MB = Number(process.argv[3] ?? 2048);
const RARE_IN = 5;
const seed = Math.floor(Math.random() * 2 ** 31);
const rng = new Rng(seed);
const WORDS =
  "the session tree agent refactor compaction branch summary tool call read write edit bash file test build cargo npm wasm rust node module import export function return const parse migrate context model".split(
    " ",
  );

function writeSessions(dir) {
  const mean = (TOTAL_MB * 1024 * 1024) / COUNT;
  let total = 0;
  for (let i = 0; i < COUNT; i++) {
    const project = `--home-dev-p${i % 40}--`;
    mkdirSync(path.join(dir, project), { recursive: true });
    // Sizes from 0.1x to 1.9x the mean.
    const target = mean * (0.1 + 1.8 * rng.next());
    const t0 = Date.UTC(2026, 0, 1) + i * 60_000;
    const lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id: `s${i}`,
        timestamp: new Date(t0).toISOString(),
        cwd: `/home/dev/p${i % 40}`,
      }),
    ];
    let size = lines[0].length;
    const rare = i % Math.floor(COUNT / RARE_IN) === 0;
    let parent = null;
    for (let n = 0; size < target; n++) {
      let text = Array.from({ length: 150 }, () => WORDS[rng.int(0, WORDS.length - 1)]).join(" ");
      if (rare && n === 3) text += " xylophonic";
      const id = `${i.toString(16)}x${n.toString(16)}`;
      const line = JSON.stringify({
        type: "message",
        id,
        parentId: parent,
        timestamp: new Date(t0 + n * 1000).toISOString(),
        message: { role: n % 2 ? "assistant" : "user", content: [{ type: "text", text }], timestamp: t0 + n * 1000 },
      });
      parent = id;
      lines.push(line);
      size += line.length + 1;
    }
    const body = `${lines.join("\n")}\n`;
    total += Buffer.byteLength(body);
    writeFileSync(path.join(dir, project, `${new Date(t0).toISOString().replace(/[:.]/g, "-")}_s${i}.jsonl`), body);
  }
  return total;
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

const dir = mkdtempSync(path.join(tmpdir(), "st-scale-"));
try {
  console.log(`seed ${seed}; writing ${COUNT} sessions, ${TOTAL_MB} MB in all, under ${dir}`);
  const bytes = writeSessions(dir);
  spawnSync("sync");
  console.log(`wrote ${(bytes / 2 ** 30).toFixed(2)} GiB`);
  const t0 = performance.now();
  const server = await startServe(dir);
  const started = performance.now() - t0;
  const pid = server.pid;
  const marks = await new Promise((resolve, reject) => {
    const t = performance.now();
    const out = { firstRow: null, rowsReady: null, ready: null, rows: 0 };
    const req = request(`${server.url}api/list`, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        buf += d;
        let i = buf.indexOf("\n\n");
        while (i >= 0) {
          const event = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (event.startsWith("event: row")) {
            out.rows++;
            out.firstRow ??= performance.now() - t;
          }
          if (event.startsWith("event: progress") && event.includes('"rowsReady":true')) {
            out.rowsReady ??= performance.now() - t;
          }
          if (event.startsWith("event: progress") && event.includes('"ready":true')) {
            out.ready = performance.now() - t;
            req.destroy();
            resolve(out);
          }
          i = buf.indexOf("\n\n");
        }
      });
    });
    req.on("error", (e) => (out.ready ? undefined : reject(e)));
    req.end();
  });
  const mem = rssOf(pid);
  const search = (q) =>
    new Promise((resolve) => {
      request(`${server.url}api/search?q=${encodeURIComponent(q)}`, (res) => {
        let body = "";
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => resolve(JSON.parse(body)));
      }).end();
    });
  let s0 = performance.now();
  const rare = await search("xylophonic");
  const rareMs = performance.now() - s0;
  s0 = performance.now();
  // Words every file holds: every file is read (the worst case).
  const found = await search('"cargo npm wasm rust"');
  const searchMs = performance.now() - s0;
  const after = rssOf(pid);
  await server.stop();
  console.log(`machine: ${cpus()[0].model} (${cpus().length} cores), Node ${process.version}`);
  console.log(`server up (URL printed): ${started.toFixed(0)} ms`);
  console.log(
    `first list row: ${marks.firstRow.toFixed(0)} ms; all ${marks.rows} rows: ${(marks.rowsReady / 1000).toFixed(1)} s`,
  );
  console.log(`search index built: ${(marks.ready / 1000).toFixed(1)} s after the list was asked for`);
  console.log(`rare word (in ${RARE_IN} sessions): ${rare.results.length} hits in ${rareMs.toFixed(0)} ms`);
  console.log(`server RSS after indexing: ${mem.rss.toFixed(0)} MB (peak ${mem.peak.toFixed(0)} MB)`);
  console.log(
    `a phrase of words every session holds: ${found.results.length}${found.truncated ? "+" : ""} hits in ${searchMs.toFixed(0)} ms; RSS then ${after.rss.toFixed(0)} MB (peak ${after.peak.toFixed(0)} MB)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
