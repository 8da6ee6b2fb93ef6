"use strict";
// Preloaded (`node --require`) into a `session-tree` command by large.mjs: when the
// process exits, writes its peak resident memory and CPU time to the file named by BENCH_LARGE_RSS.
const fs = require("node:fs");

process.on("exit", () => {
  let rss = process.resourceUsage().maxRSS * 1024;
  try {
    const m = /VmHWM:\s*(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
    if (m) rss = Number(m[1]) * 1024;
  } catch {}
  const used = process.resourceUsage();
  const out = JSON.stringify({ rss, cpuMs: (used.userCPUTime + used.systemCPUTime) / 1000 });
  fs.writeFileSync(process.env.BENCH_LARGE_RSS, out);
});
