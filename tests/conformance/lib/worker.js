// Worker thread: runs pi and our package on tasks sent by the pool, so a call that never
// returns (pi 1.6.0 loops forever on parentId cycles) can be cut off by a time limit.
import { parentPort } from "node:worker_threads";

const { Rng } = await import("../../shared/rng.mjs");
const { generateSession } = await import("../../shared/sessions.mjs");
const { compareSession, isPi16Case } = await import("./compare.js");
const ref = await import("./reference.js");
const { ours } = await import("./ours.js");

function runGenerated(seed) {
  const gen = generateSession(seed, { pi16: isPi16Case(seed) });
  const diffs = compareSession(gen.text, { rng: new Rng(seed ^ 0x5bd1e995) });
  return {
    seed,
    version: gen.version,
    features: gen.features,
    bytes: gen.text.length,
    diffs,
    head: diffs.length ? gen.text.slice(0, 600) : undefined,
  };
}

function toJson(v) {
  return v === undefined ? "<undefined>" : JSON.stringify(v);
}

// single operations, for the targeted tests: { impl: "pi" | "ours", op, source, leafArgs }
function runOp({ impl, op, source, leafArgs = [] }) {
  const t0 = performance.now();
  let value;
  if (impl === "pi") {
    const text = ref.sourceText(source);
    if (op === "parse") value = ref.piParse(text);
    else if (op === "migrate") value = ref.piMigrateText(text).text;
    else if (op === "migrateEntries") {
      const entries = ref.piParse(text);
      const flag = ref.piMigrateEntries(entries);
      value = { flag, entries };
    } else if (op === "getTree") value = ref.piTree(text);
    else if (op === "openTree") value = ref.piOpen(source).getTree();
    else if (op === "buildSessionContext") value = ref.piContext(text, leafArgs);
    else throw new Error(`unknown op ${op}`);
  } else {
    if (op === "parse") value = ours.parseSession(source);
    else if (op === "migrate") {
      value = ours.migrate(source);
      if (value instanceof Uint8Array) value = new TextDecoder("utf-8", { ignoreBOM: true }).decode(value);
    } else if (op === "migrateEntries") {
      const entries = ref.piParse(ref.sourceText(source));
      const flag = ours.migrate(entries);
      value = { flag, entries };
    } else if (op === "getTree") value = ours.getTree(source);
    else if (op === "getTreeEntries") value = ours.getTree(ref.piParse(ref.sourceText(source)));
    else if (op === "buildSessionContext") value = ours.buildSessionContext(source, ...leafArgs);
    else if (op === "buildSessionContextEntries")
      value = ours.buildSessionContext(ref.piParse(ref.sourceText(source)), ...leafArgs);
    else throw new Error(`unknown op ${op}`);
  }
  const ms = performance.now() - t0;
  return { ms, json: toJson(value) };
}

parentPort.on("message", (task) => {
  try {
    if (task.kind === "generated") {
      const results = task.seeds.map(runGenerated);
      parentPort.postMessage({ id: task.id, ok: true, results });
    } else if (task.kind === "op") {
      parentPort.postMessage({ id: task.id, ok: true, ...runOp(task) });
    } else throw new Error(`unknown task ${task.kind}`);
  } catch (e) {
    parentPort.postMessage({
      id: task.id,
      ok: false,
      error: `${e?.constructor?.name ?? "Error"}: ${e?.message ?? e}`,
      stack: e?.stack,
    });
  }
});
parentPort.postMessage({ ready: true });
