// A folder of pi 1.6 sessions that cost money, written by pi's own SessionManager: turns with
// usage from several providers and models, tool results with and without usage, `usage`
// entries (cache warming), compactions and branch summaries that carry their summarizer's
// usage, branches, `forkFrom` copies into other projects and `createBranchedSession` copies,
// in nested project folders, over several days. pi stamps entries with `new Date()`: a fake
// clock, moved forward between appends, spreads them over days and across midnights.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "./pi.mjs";
import { Rng } from "./rng.mjs";

const PROJECTS = ["/work/app", "/work/app/web", "/work/tools"];
const MODELS = [
  ["anthropic", "claude-sonnet-4-5"],
  ["anthropic", "claude-opus-4-1"],
  ["openai", "gpt-5"],
];

/** pi's folder name for a project (`--work-app--`). */
export const folderName = (cwd) => `--${cwd.replace(/^\//, "").replaceAll("/", "-")}--`;

/** Runs `fn` with `Date` reading `clock.now` (what pi's `new Date()` stamps). */
export function withClock(clock, fn) {
  const Real = Date;
  class Fake extends Real {
    constructor(...args) {
      if (args.length === 0) super(clock.now);
      else super(...args);
    }
    static now() {
      return clock.now;
    }
  }
  globalThis.Date = Fake;
  try {
    return fn();
  } finally {
    globalThis.Date = Real;
  }
}

/** A usage object as pi-ai writes it; the cost is a number of millionths of a dollar. */
export function randomUsage(rng) {
  const input = rng.int(0, 4000);
  const output = rng.int(0, 2000);
  const cacheRead = rng.chance(0.6) ? rng.int(0, 50000) : 0;
  const cacheWrite = rng.chance(0.4) ? rng.int(0, 8000) : 0;
  const part = () => rng.int(0, 500000) / 1e6;
  const cost = { input: part(), output: part(), cacheRead: part(), cacheWrite: part() };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

/**
 * Writes the folder under `root` and returns `{ files }`: each `{ path, cwd, made }`, `made`
 * being `"create"`, `"forkFrom"` or `"createBranchedSession"`.
 */
export function generateUsageFolder(root, seed, { sessions = 8 } = {}) {
  const rng = new Rng(seed);
  const clock = { now: Date.UTC(2026, 0, 3, 20, 0, 0) + rng.int(0, 86_400_000) };
  const tick = () => {
    clock.now += rng.weighted([
      [6, () => rng.int(1_000, 120_000)],
      [3, () => rng.int(600_000, 4 * 3_600_000)],
      [1, () => rng.int(12 * 3_600_000, 50 * 3_600_000)],
    ])();
  };
  const dirOf = (cwd, nested) => {
    const dir = nested ? join(root, "archive", folderName(cwd)) : join(root, folderName(cwd));
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const files = [];
  const step = (fn) => {
    tick();
    return withClock(clock, fn);
  };
  const turn = (sm) => {
    step(() => sm.appendMessage({ role: "user", content: `question ${rng.hex(4)}`, timestamp: clock.now }));
    const [provider, model] = rng.pick(MODELS);
    const message = {
      role: "assistant",
      content: [{ type: "text", text: `answer ${rng.hex(4)}` }],
      api: "messages",
      provider,
      model,
      usage: randomUsage(rng),
      stopReason: "stop",
      timestamp: clock.now,
    };
    if (rng.chance(0.2)) message.responseModel = `${model}-20260101`;
    step(() => sm.appendMessage(message));
  };
  // `always`: the optional usages are there (the first session has one of each).
  const actions = (sm, always) => {
    const ids = sm.getEntries().map((e) => e.id);
    const maybe = (p) => always || rng.chance(p);
    return [
      [5, () => turn(sm)],
      [
        2,
        () => {
          const call = { type: "toolCall", id: `call_${rng.hex(6)}`, name: "read", arguments: { path: "a.txt" } };
          const [provider, model] = rng.pick(MODELS);
          step(() =>
            sm.appendMessage({
              role: "assistant",
              content: [call],
              provider,
              model,
              usage: randomUsage(rng),
              stopReason: "toolUse",
              timestamp: clock.now,
            }),
          );
          const result = {
            role: "toolResult",
            toolCallId: call.id,
            toolName: "read",
            content: [{ type: "text", text: "ok" }],
            isError: false,
            timestamp: clock.now,
          };
          // A tool that called a model itself reports what that cost.
          if (maybe(0.4)) result.usage = randomUsage(rng);
          step(() => sm.appendMessage(result));
        },
      ],
      [
        2,
        () => {
          const [provider, model] = rng.pick(MODELS);
          step(() => sm.appendUsage(rng.pick(["cache_warm", "subagent"]), provider, model, randomUsage(rng)));
        },
      ],
      [
        1,
        () => {
          const kept = rng.pick(sm.getBranch().map((e) => e.id));
          const usage = maybe(0.8) ? randomUsage(rng) : undefined;
          step(() => sm.appendCompaction(`summary ${rng.hex(4)}`, kept, rng.int(1000, 90000), undefined, false, usage));
        },
      ],
      [
        2,
        () => {
          // Not the leaf itself: on a path without branches that makes a fork.
          const from = rng.pick(ids.filter((id) => id !== sm.getLeafId()));
          if (maybe(0.5)) {
            const usage = maybe(0.8) ? randomUsage(rng) : undefined;
            step(() => sm.branchWithSummary(from, `left ${rng.hex(4)}`, undefined, false, usage));
          } else sm.branch(from);
          turn(sm);
        },
      ],
    ];
  };
  const act = (sm) => rng.weighted(actions(sm, false))();

  for (let s = 0; s < sessions; s++) {
    // A session a day or so: the folder spans several days, whatever the draws.
    if (s > 0) clock.now += 20 * 3_600_000;
    const cwd = rng.pick(PROJECTS);
    const dir = dirOf(cwd, rng.chance(0.25));
    const sm = withClock(clock, () => SessionManager.create(cwd, dir));
    turn(sm);
    if (s === 0) for (let k = 1; k < 5; k++) actions(sm, true)[k][1]();
    const n = rng.int(3, 12);
    for (let k = 0; k < n; k++) act(sm);
    const path = sm.getSessionFile();
    files.push({ path, cwd, made: "create" });

    if (rng.chance(0.5)) {
      // A fork into another project (pi's /fork of a whole session), continued there.
      const to = rng.pick(PROJECTS);
      tick();
      const fork = withClock(clock, () => SessionManager.forkFrom(path, to, dirOf(to, rng.chance(0.3))));
      const more = rng.int(1, 3);
      for (let k = 0; k < more; k++) turn(fork);
      files.push({ path: fork.getSessionFile(), cwd: to, made: "forkFrom" });
    }
    if (rng.chance(0.6)) {
      // A copy of one branch (pi's /clone, createBranchedSession), continued in the copy.
      const copy = SessionManager.open(path, dir);
      const leaves = [];
      const walk = (nodes) => {
        for (const n of nodes) n.children.length === 0 ? leaves.push(n.entry.id) : walk(n.children);
      };
      walk(copy.getTree());
      tick();
      const target = rng.pick(leaves);
      withClock(clock, () => copy.createBranchedSession(target));
      turn(copy);
      files.push({ path: copy.getSessionFile(), cwd, made: "createBranchedSession" });
    }
  }
  return { files };
}
