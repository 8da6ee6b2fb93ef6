// The usage tests' heavy work (usage-scale.test.mjs), run in a worker thread by runTask
// (tests/shared/workers.mjs): each task builds its input here and times the ledger's steps.
import { UsageLedger } from "session-tree";

const header = (id, parentSession) =>
  JSON.stringify({
    type: "session",
    version: 3,
    id,
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/p",
    ...(parentSession ? { parentSession } : {}),
  });
const reply = (id, parentId, model) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-05T10:00:00.000Z",
    message: {
      role: "assistant",
      content: [],
      provider: "p",
      model,
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 1 } },
    },
  });

/** One file of `n` replies on one day, each by a model of its own. */
export function manyModels({ n }, step) {
  const lines = [header("s")];
  for (let i = 0; i < n; i++) lines.push(reply(`e${i}`, i > 0 ? `e${i - 1}` : null, `m${i}`));
  const ledger = new UsageLedger();
  step("add", () => ledger.add("/s.jsonl", `${lines.join("\n")}\n`));
  const day = step("summary by day", () => ledger.summary({ by: "day", timeZone: "UTC" }));
  const model = step("summary by model", () => ledger.summary({ by: "model", timeZone: "UTC" }));
  ledger.free();
  return {
    rows: day.rows.length,
    models: day.rows[0].models.length,
    modelRows: model.rows.length,
    cost: day.total.cost,
  };
}

/** `n` files, each a fork of the one before (its `parentSession`), adding one reply of $1. */
export function forkChain({ n }, step) {
  const ledger = new UsageLedger();
  step("add", () => {
    for (let i = 0; i < n; i++) {
      const parent = i > 0 ? `/f/${i - 1}.jsonl` : undefined;
      ledger.add(`/f/${i}.jsonl`, `${header(`s${i}`, parent)}\n${reply(`e${i}`, null, "m")}\n`);
    }
  });
  const s = step("summary", () => ledger.summary({ by: "session", timeZone: "UTC" }));
  ledger.free();
  return { rows: s.rows.length, records: s.total.records, copies: s.copies };
}
