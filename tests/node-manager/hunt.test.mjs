// session-tree/node's SessionManager against pi 1.6.0's, file for file: random
// sequences of the public calls (appends of every kind, branches, resets,
// createBranchedSession, newSession, open, setSessionFile, forkFrom,
// continueRecent, create, findById, list, listAll) run on pi's manager in one
// temporary folder and on ours in another, with the clock shared (withClock),
// compared after every step: every getter, and every file each side has
// written (ids replaced by their rank of first appearance, each side's folder
// by <DIR>). Files that are no sessions (empty, binary, JSON of another kind)
// and torn last lines (a writer that died mid-line) are put into both folders
// alike, for open, setSessionFile, forkFrom, continueRecent and list to meet.
// Node only (pi is Node's).
//
//   MANAGER_DIFF_SEED=…   master seed (default random, always printed)
//   MANAGER_DIFF_COUNT=…  sequences (default 60)
//   MANAGER_DIFF_CASE=0x… run only that sequence
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { findMostRecentSession, SessionManager as Ours } from "session-tree/node";
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
import { SessionManager as Pi, pi } from "../shared/pi.mjs";
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
            const before = sd.m.getSessionFile();
            try {
              sd.m.setSessionFile(sd.files[step.file]);
            } catch (error) {
              // pi has switched its file before throwing (its next appends would go into the
              // file it refused: a README difference); ours stays on its own. Model ours.
              if (sd.name === "pi") sd.m.sessionFile = before;
              throw error;
            }
            remember(sd);
            return undefined;
          }
          case "junk": {
            const file = path.join(sd.dir, `junk-${sd.files.length}.jsonl`);
            fs.writeFileSync(file, step.junk);
            sd.files.push(file);
            return undefined;
          }
          case "tear": {
            const file = sd.files[step.file];
            // only a file no manager writes: a tear under a running writer is a README difference
            if (file === sd.m.getSessionFile() || !fs.existsSync(file)) return "skipped";
            fs.appendFileSync(file, step.tear);
            return undefined;
          }
          case "findById": {
            const header = fs.existsSync(sd.files[step.file])
              ? fs.readFileSync(sd.files[step.file], "utf8").split("\n")[0]
              : "";
            let id = "no-such-id";
            try {
              id = JSON.parse(header).id ?? id;
            } catch {}
            return canonPath(sd, String(sd.Manager.findById(step.cwd, id, sd.dir)));
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

/** Files that are no session (or an empty one), as another program may leave them in the folder. */
const JUNK = [
  "",
  "not json at all\n",
  '{"hello":"world"}\n',
  "[1,2,3]\n",
  "\u0000\u00ff\n",
  '{"type":"message","id":"0badf00d","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"orphan","timestamp":1}}\n',
];
/** What a writer that died mid-line leaves at the end of a file. */
// (A torn line that parses as an entry without an id makes pi's in-memory entries differ from
// its own file: the next entry's `parentId` is an undefined key there, absent from the line, so
// a later createBranchedSession orders its keys differently from pi after a reopen. The test
// after the sequences checks that case's leaf, append and tree against pi by itself.)
const TEARS = ['{"type":"message","id":"feedface","par', "{", '{"type":"label","id":"1abe1abe","parentId":null}'];

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
    [2, "junk"],
    [files ? 3 : 0, "tear"],
    [files ? 2 : 0, "findById"],
    [3, "list"],
  ]);
  if (kind === "junk") return { op: kind, args: [], junk: rng.pick(JUNK) };
  if (kind === "tear") return { op: kind, args: [], file: rng.int(0, files), tear: rng.pick(TEARS) };
  if (kind === "list") return { op: rng.pick(["list", "listAll"]), args: [], cwd: rng.pick(CWDS) };
  if (kind === "write") return randomStep(rng, count, { checks: false });
  if (kind === "createBranchedSession")
    return {
      op: kind,
      args: [count === 0 || rng.chance(0.1) ? rng.pick(UNKNOWN_IDS) : ref(rng.int(Math.max(0, count - 5), count))],
    };
  // a session id of the caller's (sometimes twice at one time: the same file name) or a bad one
  if (kind === "newSession")
    return { op: kind, args: rng.chance(0.5) ? [] : [{ id: rng.pick(["run-1", "run-2", "bad id", "x.y_z-1"]) }] };
  if (kind === "open" || kind === "setSessionFile" || kind === "forkFrom" || kind === "findById")
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
  "junk",
  "tear",
  "findById",
]);
const LIST_OPS = new Set(["list", "listAll"]);

/**
 * pi's `list` or `listAll` and ours, compared row by row: pi's rows in its order, ours the same
 * where it lists the same files. Ours also lists files pi's `buildSessionInfo` throws on (a
 * message whose content is null, say: a README difference); those rows are left out.
 */
async function compareList(both, step) {
  const [pi, ours] = await Promise.all(
    both.map((sd) => (step.op === "list" ? sd.Manager.list(step.cwd, sd.dir) : sd.Manager.listAll(sd.dir))),
  );
  const row = (sd, info) =>
    canonJson(sd, {
      ...info,
      created: String(info.created.getTime()),
      modified: info.modified.getTime(),
      allMessagesText: info.allMessagesText,
    });
  const listed = new Set(pi.map((info) => canonPath(both[0], info.path)));
  const a = pi.map((info) => row(both[0], info));
  const b = ours.filter((info) => listed.has(canonPath(both[1], info.path))).map((info) => row(both[1], info));
  // rows of equal modification times come in either order (pi reads files concurrently)
  const key = (text) => `${JSON.parse(text).modified}`.padStart(16, "0") + text;
  const sorted = (rows) => [...rows].sort((x, y) => (key(x) < key(y) ? 1 : key(x) > key(y) ? -1 : 0));
  assert.deepEqual(sorted(b), sorted(a), `${step.op}: the rows pi lists`);
  assert.deepEqual(
    b.map((text) => JSON.parse(text).modified),
    a.map((text) => JSON.parse(text).modified),
    `${step.op}: newest first`,
  );
}

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

async function runCase(seed) {
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
      if (LIST_OPS.has(step.op)) {
        await compareList(both, step);
        continue;
      }
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

test(`random call sequences on pi's manager and ours, file for file (MANAGER_DIFF_SEED=${MASTER})`, async () => {
  if (ONLY !== null) return runCase(ONLY);
  for (let i = 0; i < COUNT; i++) await runCase(caseSeed(MASTER, i));
});

// A last line whose `id` is missing or falsy (a torn write that still parses, a hand-edited
// file): pi looks its leaf up only when the id is truthy, so getLeafEntry() gives undefined
// and getBranch() [] (the context still ends at the last entry). Found by the sequences above
// (a torn `{"type":"label"}` line in a file that was opened again).
test("a leaf whose id is missing or falsy: getLeafEntry, getBranch, the next append and the tree as pi's", () => {
  const dir = path.join(scratch, "falsy-leaf");
  fs.mkdirSync(dir, { recursive: true });
  const header = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" };
  const first = {
    type: "message",
    id: "aaaaaaaa",
    parentId: null,
    timestamp: "2026-01-02T00:00:00.000Z",
    message: { role: "user", content: "hi", timestamp: 5 },
  };
  for (const id of [undefined, "", 0, null, false, "bbbbbbbb", 7]) {
    const last = { type: "label", parentId: "aaaaaaaa", timestamp: "2026-01-02T00:00:01.000Z", targetId: "aaaaaaaa" };
    if (id !== undefined) last.id = id;
    const text = `${[header, first, last].map((e) => JSON.stringify(e)).join("\n")}\n`;
    const see = (m, start) => ({
      leafId: m.getLeafId(),
      leafEntry: m.getLeafEntry(),
      branch: m.getBranch(),
      // an explicit start is a string here: a non-string one is a TypeError or [] in ours
      branchFrom: typeof start === "string" ? m.getBranch(start) : "-",
      context: m.buildSessionContext(),
    });
    const files = ["pi", "ours"].map((name) => {
      const file = path.join(dir, `${name}-${String(id)}.jsonl`);
      fs.writeFileSync(file, text);
      return file;
    });
    const pi = Pi.open(files[0]);
    const ours = Ours.open(files[1]);
    try {
      assert.deepEqual(see(ours, id), see(pi, id), `leaf id ${JSON.stringify(id)}`);
      // the next entry's parent is the leaf's id as pi writes it: no parentId at all for none
      const message = { role: "user", content: "next", timestamp: 9 };
      const ids = [pi.appendMessage(message), ours.appendMessage(message)];
      const [a, b] = files.map((file, k) => {
        const last = JSON.parse(fs.readFileSync(file, "utf8").trimEnd().split("\n").at(-1));
        return { keys: Object.keys(last), parentId: last.parentId, isNew: last.id === ids[k] };
      });
      assert.deepEqual(b, a, `the line after leaf id ${JSON.stringify(id)}`);
      const shape = (nodes) =>
        nodes.map((n) => ({ id: ids.includes(n.entry.id) ? "new" : n.entry.id, c: shape(n.children) }));
      assert.deepEqual(shape(ours.getTree()), shape(pi.getTree()), `the tree after leaf id ${JSON.stringify(id)}`);
      assert.deepEqual(ours.getBranch().length, pi.getBranch().length);
    } finally {
      ours.close();
    }
  }
});

test("a session folder that is a file: ENOTDIR as pi's, naming the file in the way", () => {
  const dir = path.join(scratch, "folder-is-file");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "file");
  fs.writeFileSync(file, "not a folder");
  for (const sessionDir of [file, path.join(file, "sub")]) {
    const thrown = (Manager) => {
      try {
        const m = Manager.create("/p", sessionDir);
        m.appendMessage({ role: "user", content: "hi", timestamp: 1 });
      } catch (error) {
        return error;
      }
      return null;
    };
    const [pi, ours] = [thrown(Pi), thrown(Ours)];
    assert.equal(pi?.code, "ENOTDIR", `pi: ${pi?.message}`);
    assert.equal(ours?.code, pi.code, `ours: ${ours?.message}`);
    assert.equal(
      ours.message,
      `ENOTDIR: not a directory: the session folder ${sessionDir} cannot be made, as ${file} is a file, not a folder`,
    );
    assert.equal(fs.readFileSync(file, "utf8"), "not a folder");
  }
});

test("a dangling link named *.jsonl does not hide the folder's newest session (pi: null)", () => {
  const dir = path.join(scratch, "dangling-link");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "s.jsonl");
  fs.writeFileSync(
    file,
    `${JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" })}\n`,
  );
  fs.symlinkSync(path.join(dir, "nowhere"), path.join(dir, "x.jsonl"));
  // pi's stat of the link throws outside its guard: no session at all (a README row)
  assert.equal(pi.findMostRecentSession(dir), null);
  assert.equal(findMostRecentSession(dir), file);
  // and continueRecent continues it instead of starting a new one
  const m = Ours.continueRecent("/x", dir);
  try {
    assert.equal(m.getSessionFile(), file);
  } finally {
    m.close();
  }
});
