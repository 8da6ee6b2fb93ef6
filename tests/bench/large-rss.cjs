"use strict";
// Preloaded (`node --require`) into a `session-tree` command by large.mjs: when the
// process exits, writes its peak resident memory to the file named by BENCH_LARGE_RSS.
const fs = require("node:fs");

process.on("exit", () => {
  let rss = process.resourceUsage().maxRSS * 1024;
  try {
    const m = /VmHWM:\s*(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
    if (m) rss = Number(m[1]) * 1024;
  } catch {}
  fs.writeFileSync(process.env.BENCH_LARGE_RSS, JSON.stringify({ rss }));
});
