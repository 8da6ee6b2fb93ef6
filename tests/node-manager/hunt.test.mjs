// session-tree/node's SessionManager against pi 1.6.0's, file for file: random
// sequences of the public calls (appends of every kind, branches, resets,
// createBranchedSession, newSession, open, setSessionFile, forkFrom,
// continueRecent, create) run on pi's manager in one temporary folder and on
// ours in another, with the clock shared (withClock), compared after every
// step: every getter, and every file each side has written (ids replaced by
// their rank of first appearance, each side's folder by <DIR>). Node only (pi
// is Node's).
//
//   MANAGER_DIFF_SEED=…   master seed (default random, always printed)
//   MANAGER_DIFF_COUNT=…  sequences (default 60)
//   MANAGER_DIFF_CASE=0x… run only that sequence
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { SessionManager as Ours } from "session-tree/node";
import {
  advanceClock,
  applyStep,
  Canon,
  outcome,
  Ref,
  randomStep,
  ref,
  renderStep,
  UNKNOWN_IDS,
  withClock,
} from "../conformance/lib/session-harness.js";
import { SessionManager as Pi } from "../shared/pi.mjs";
import { caseSeed, envCount, envSeed, Rng } from "../shared/rng.mjs";

const COUNT = envCount("MANAGER_DIFF_COUNT", 60);
const MASTER = envSeed("MANAGER_DIFF_SEED");
const ONLY = process.env.MANAGER_DIFF_CASE ? Number(process.env.MANAGER_DIFF_CASE) >>> 0 : null;
const hex = (n) => `0x${(n >>> 0).toString(16).padStart(8, "0")}`;

// a folder name with a space and non-ASCII letters, as users' home folders have
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "session-tree-hunt-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const CWDS = ["/home/dev/project", "/home/dév/my project", "/tmp/プロジェクト/a b", "/"];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** One side: its manager class, folder, current manager and the files it has been on, in order. */
function side(name, Manager, dir) {
  fs.mkdirSync(dir, { recursive: true });
  return { name, Manager, dir, m: null, files: [], ids: [], canon: new Canon(false) };
}

/** `s` with this side's folder as <DIR> and every uuid by its rank. */
function canonPath(sd, s) {
  if (typeof s !== "string") return String(s);
  return s
    .split(sd.dir)
    .join("<DIR>")
    .replace(UUID, (id) => sd.canon.reg(id));
}

/** A value as canonical text: the folder as <DIR>, then ids by rank (quoted 8-hex and uuids). */
function canonJson(sd, v) {
  if (v === undefined) return "<undefined>";
  return sd.canon.text(canonPath(sd, JSON.stringify(v)));
}

function remember(sd) {
  const file = sd.m?.getSessionFile();
  if (file && !sd.files.includes(file)) sd.files.push(file);
}

/** Replaces the side's manager (ours is closed first: it holds a write lock). */
function swap(sd, make) {
  if (sd.name === "ours") sd.m?.close();
  sd.m = null;
  sd.m = make();
  remember(sd);
}

/** Calls one step on one side; the result as canonical text. */
function run(sd, step, t) {
  return withClock(t, () => {
    const o = outcome(
      () => {
        switch (step.op) {
          case "createBranchedSession": {
            const id = step.args[0] instanceof Ref ? sd.ids[step.args[0].k] : step.args[0];
            const r = sd.m.createBranchedSession(id);
            remember(sd);
            return r;
          }
          case "newSession": {
            const r = sd.m.newSession(...step.args);
            remember(sd);
            return r;
          }
          case "open":
            swap(sd, () => sd.Manager.open(sd.files[step.file], sd.dir));
            return undefined;
          case "setSessionFile": {
            sd.m.setSessionFile(sd.files[step.file]);
            remember(sd);
            return undefined;
          }
          case "forkFrom":
            swap(sd, () => sd.Manager.forkFrom(sd.files[step.file], step.cwd, sd.dir));
            return undefined;
          case "continueRecent":
            swap(sd, () => sd.Manager.continueRecent(step.cwd, sd.dir));
            return undefined;
          case "create":
            swap(sd, () => sd.Manager.create(step.cwd, sd.dir));
            return undefined;
          default:
            throw new Error(`harness: ${step.op}`);
        }
      },
      (v) => canonJson(sd, v),
    );
    return o.threw ? canonPath(sd, o.text).replace(/\b[0-9a-f]{8}\b/g, (id) => sd.canon.reg(id)) : o.text;
  });
}

/** Everything observable after a step: the manager's getters, then every file on disk. */
function observe(sd, targets) {
  const m = sd.m;
  const rec = [];
  const put = (key, fn) => rec.push([key, outcome(fn, (v) => canonJson(sd, v)).text]);
  put("getSessionFile", () => canonPath(sd, m.getSessionFile()));
  put("getSessionId", () => m.getSessionId());
  put("getHeader", () => m.getHeader());
  put("getCwd", () => m.getCwd());
  put("getSessionDir", () => canonPath(sd, m.getSessionDir()));
  put("isPersisted", () => m.isPersisted());
  put("usesDefaultSessionDir", () => m.usesDefaultSessionDir());
  put("getLeafId", () => m.getLeafId());
  put("getEntries", () => m.getEntries());
  put("getTree", () => m.getTree());
  put("getBranch", () => m.getBranch());
  put("getLeafEntry", () => m.getLeafEntry());
  put("getEntryCount", () => m.getEntryCount());
  put("getSessionName", () => m.getSessionName());
  put("buildSessionContext", () => m.buildSessionContext());
  put("buildContextEntries", () => m.buildContextEntries());
  for (const t of targets) {
    const id = t instanceof Ref ? (sd.ids[t.k] ?? `missing-${t.k}`) : t;
    const name = t instanceof Ref ? `$${t.k}` : JSON.stringify(t);
    put(`getEntry(${name})`, () => m.getEntry(id));
    put(`getChildren(${name})`, () => m.getChildren(id));
    put(`getLabel(${name})`, () => m.getLabel(id));
    put(`getBranch(${name})`, () => m.getBranch(id));
  }
  // the files: names and contents, in the order the side first met them
  for (const [i, file] of sd.files.entries()) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "<no file>";
    rec.push([`file #${i} ${canonPath(sd, file)}`, sd.canon.text(canonPath(sd, text))]);
  }
  const names = fs
    .readdirSync(sd.dir)
    .filter((n) => !n.endsWith(".lock"))
    .map((n) => canonPath(sd, path.join(sd.dir, n)))
    .sort();
  rec.push(["folder", names.join("\n")]);
  return rec;
}

/** The next step of a sequence: a write step of the Session harness, or one of the file's. */
function nextStep(rng, count, files) {
  const kind = rng.weighted([
    [70, "write"],
    [5, "createBranchedSession"],
    [3, "newSession"],
    [files ? 6 : 0, "open"],
    [files ? 4 : 0, "setSessionFile"],
    [files ? 4 : 0, "forkFrom"],
    [4, "continueRecent"],
    [2, "create"],
  ]);
  if (kind === "write") return randomStep(rng, count, { checks: false });
  if (kind === "createBranchedSession")
    return {
      op: kind,
      args: [count === 0 || rng.chance(0.1) ? rng.pick(UNKNOWN_IDS) : ref(rng.int(Math.max(0, count - 5), count))],
    };
  if (kind === "newSession") return { op: kind, args: [] };
  if (kind === "open" || kind === "setSessionFile" || kind === "forkFrom")
    return { op: kind, args: [], file: rng.int(0, files), cwd: rng.pick(CWDS) };
  return { op: kind, args: [], cwd: rng.pick(CWDS) };
}

/** The steps `run` makes; the others are the Session harness's write steps. */
const FILE_OPS = new Set([
  "createBranchedSession",
  "newSession",
  "open",
  "setSessionFile",
  "forkFrom",
  "continueRecent",
  "create",
]);

const show = (step) =>
  step.file !== undefined
    ? `${step.op}(file #${step.file}${step.op === "forkFrom" ? `, ${step.cwd}` : ""})`
    : step.cwd !== undefined
      ? `${step.op}(${step.cwd})`
      : renderStep(step);

/** Gives both sides' files distinct modification times in the same order (oldest first). */
function orderMtimes(sides) {
  for (const sd of sides)
    for (const [i, file] of sd.files.entries())
      if (fs.existsSync(file)) fs.utimesSync(file, new Date(1e12 + i * 1000), new Date(1e12 + i * 1000));
}

function runCase(seed) {
  const rng = new Rng(seed);
  const root = path.join(scratch, hex(seed), "dé v");
  const pi = side("pi", Pi, path.join(root, "pi"));
  const ours = side("ours", Ours, path.join(root, "ours"));
  const both = [pi, ours];
  const cwd = rng.pick(CWDS);
  let t = Date.UTC(2026, 0, 1) + rng.int(0, 1e9);
  const log = [];
  try {
    for (const sd of both) withClock(t, () => swap(sd, () => sd.Manager.create(cwd, sd.dir)));
    const steps = rng.range(5, 40);
    for (let i = 0; i < steps; i++) {
      t = advanceClock(rng, t);
      const step = nextStep(rng, pi.ids.length, pi.files.length);
      if (step.op === "continueRecent") orderMtimes(both);
      log.push(show(step));
      const results = both.map((sd) => {
        if (!FILE_OPS.has(step.op)) {
          // applyStep keeps its own id list on a harness side: give it ours
          const h = { call: (op, args) => sd.m[op](...args), ids: sd.ids, canon: sd.canon };
          const text = withClock(t, () => applyStep(h, step));
          return canonPath(sd, text);
        }
        return run(sd, step, t);
      });
      assert.equal(pi.ids.length, ours.ids.length, `ids returned: pi ${pi.ids.length}, ours ${ours.ids.length}`);
      if (results[0] !== results[1])
        assert.fail(`step ${i} ${show(step)} returned differently:\n  pi:   ${results[0]}\n  ours: ${results[1]}`);
      const targets = [ref(Math.max(0, pi.ids.length - 1)), rng.pick(UNKNOWN_IDS)].filter(
        (x) => !(x instanceof Ref) || x.k < pi.ids.length,
      );
      const [a, b] = both.map((sd) => observe(sd, targets));
      for (let k = 0; k < Math.max(a.length, b.length); k++) {
        if (a[k]?.[0] !== b[k]?.[0] || a[k]?.[1] !== b[k]?.[1])
          assert.fail(
            `after step ${i} ${show(step)}, ${a[k]?.[0] ?? b[k]?.[0]} differs:\n  pi:   ${a[k]?.[1]}\n  ours: ${b[k]?.[1]}`,
          );
      }
    }
  } catch (error) {
    error.message = `MANAGER_DIFF_CASE=${hex(seed)} (steps: ${log.join("; ")})\n${error.message}`;
    throw error;
  } finally {
    ours.m?.close();
  }
}

test(`random call sequences on pi's manager and ours, file for file (MANAGER_DIFF_SEED=${MASTER})`, () => {
  if (ONLY !== null) return runCase(ONLY);
  for (let i = 0; i < COUNT; i++) runCase(caseSeed(MASTER, i));
});
