// The checks of session-tree/node's SessionManager, for any runtime with
// Node's APIs: node-manager.test.mjs runs them under node:test, run.mjs under
// Bun and Deno. Each check is written from pi 1.6.0's behaviour (its rules
// for folders, names and writes) or from a guarantee session-tree adds
// (durable appends and rewrites, the write lock); none compares against our
// own output.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  findMostRecentSession,
  getDefaultSessionDir,
  listSessions,
  loadEntriesFromFile,
  orderSessions,
  SessionLockedError,
  SessionManager,
} from "session-tree/node";
import { Rng } from "../shared/rng.mjs";

// node:fs as a mutable object: the fault checks replace its functions (the
// manager calls them through the same object).
const fs = createRequire(import.meta.url)("node:fs");
const realWriteSync = fs.writeSync;
const realFstatSync = fs.fstatSync;
const realOpenSync = fs.openSync;
const here = path.dirname(fileURLToPath(import.meta.url));
const testsDir = path.dirname(here);

export const checks = [];
const check = (name, fn) => checks.push({ name, fn });

// --- helpers -------------------------------------------------------------------

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "session-tree-manager-"));
let folders = 0;
/** A new empty folder for one check. */
const folder = () => {
  const dir = path.join(scratch, String(++folders));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};
export const cleanup = () => fs.rmSync(scratch, { recursive: true, force: true });

const user = (text, timestamp = Date.now()) => ({ role: "user", content: text, timestamp });
const assistant = (text, timestamp = Date.now()) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "test",
  provider: "test",
  model: "test",
  usage: {
    input: 1,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 2,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp,
});
const read = (file) => fs.readFileSync(file, "utf8");
const lines = (file) => read(file).split("\n").slice(0, -1);
const jsonLines = (file) => lines(file).map((line) => JSON.parse(line));
/** Files in `dir` other than the ones named. */
const others = (dir, ...names) => fs.readdirSync(dir).filter((name) => !names.includes(name));

/** Runs `fn` with node:fs functions replaced, then puts them back. */
function withFs(replacements, fn) {
  const saved = {};
  for (const key of Object.keys(replacements)) saved[key] = fs[key];
  Object.assign(fs, replacements);
  try {
    return fn(saved);
  } finally {
    Object.assign(fs, saved);
  }
}
const failure = (code, message) => Object.assign(new Error(message), { code });

/** The command that runs a script with this runtime. */
function runtimeCommand(script, args) {
  if (typeof Deno !== "undefined") return [process.execPath, ["run", "-A", "--no-lock", script, ...args]];
  return [process.execPath, [script, ...args]];
}

/** Starts child.mjs; resolves once it has printed "ready". `lines` collects what it prints. */
function startChild(args) {
  const [command, argv] = runtimeCommand(path.join(here, "child.mjs"), args);
  const child = spawn(command, argv, { cwd: testsDir, stdio: ["ignore", "pipe", "pipe"] });
  const state = { child, out: "", err: "", exited: null };
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    state.out += chunk;
  });
  child.stderr.on("data", (chunk) => {
    state.err += chunk;
  });
  state.exit = new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      state.exited = { code, signal };
      resolve(state.exited);
    }),
  );
  state.ready = new Promise((resolve, reject) => {
    const poll = () => {
      if (state.out.startsWith("ready\n")) resolve(state);
      else if (state.exited) reject(new Error(`child exited ${JSON.stringify(state.exited)}: ${state.err}`));
      else setTimeout(poll, 2);
    };
    poll();
  });
  state.ready.catch(() => {}); // a child that is meant to exit at once is never awaited ready
  return state;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A persisted session of `cwd` in `dir` with a user and an assistant message. */
function started(dir, cwd = dir, options) {
  const manager = SessionManager.create(cwd, dir, options);
  manager.appendMessage(user("hello"));
  manager.appendMessage(assistant("hi"));
  return manager;
}

// --- pi's rules: where files go and when they are written -------------------------

check("the session folder is named from the cwd, under PI_CODING_AGENT_DIR", () => {
  const agent = folder();
  const saved = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = agent;
  try {
    const dir = getDefaultSessionDir("/home/someone/my.project");
    assert.equal(dir, path.join(agent, "sessions", "--home-someone-my.project--"));
    assert.ok(fs.statSync(dir).isDirectory(), "created");
    const manager = SessionManager.create("/home/someone/my.project");
    assert.equal(manager.getSessionDir(), dir);
    assert.equal(manager.usesDefaultSessionDir(), true);
    assert.equal(SessionManager.create("/home/someone/my.project", folder()).usesDefaultSessionDir(), false);
  } finally {
    if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved;
  }
});

check("a new file is named from its header's time and id", () => {
  const dir = folder();
  const manager = SessionManager.create(dir, dir, { id: "my-id.1" });
  const header = manager.getHeader();
  const name = path.basename(manager.getSessionFile());
  assert.match(name, /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_my-id\.1\.jsonl$/);
  assert.equal(name, `${header.timestamp.replaceAll(":", "-").replaceAll(".", "-")}_my-id.1.jsonl`);
  assert.equal(path.dirname(manager.getSessionFile()), dir);
  assert.throws(() => SessionManager.create(dir, dir, { id: "../x" }), /Session id must be non-empty/);
});

check("no file before the first user message; then the header and everything; then a line per append", () => {
  const dir = folder();
  const manager = SessionManager.create(dir, dir);
  const file = manager.getSessionFile();
  manager.appendModelChange("provider", "model");
  manager.appendThinkingLevelChange("high");
  assert.equal(fs.existsSync(file), false, "setup entries alone write nothing");
  manager.appendMessage(user("first"));
  const written = jsonLines(file);
  assert.deepEqual(
    written.map((e) => e.type),
    ["session", "model_change", "thinking_level_change", "message"],
  );
  assert.deepEqual(written.slice(1), manager.getEntries());
  assert.deepEqual(written[0], manager.getHeader());
  const before = read(file);
  const id = manager.appendModelChange("provider", "other");
  const after = read(file);
  assert.ok(after.startsWith(before), "earlier lines untouched");
  assert.equal(after.slice(before.length).split("\n").length, 2, "exactly one new line");
  assert.equal(JSON.parse(after.slice(before.length)).id, id);
});

check("an assistant message also starts the file", () => {
  const dir = folder();
  const manager = SessionManager.create(dir, dir);
  manager.appendMessage(assistant("unprompted"));
  assert.deepEqual(
    jsonLines(manager.getSessionFile()).map((e) => e.type),
    ["session", "message"],
  );
});

check("an opened file gets every append at once, even a lone model change", () => {
  const dir = folder();
  const file = started(dir).getSessionFile();
  const reopened = SessionManager.open(file);
  const id = reopened.appendModelChange("p", "m");
  assert.equal(jsonLines(file).at(-1).id, id);
  assert.equal(reopened.getCwd(), dir, "the cwd comes from the header");
  assert.equal(SessionManager.open(file, undefined, "/elsewhere").getCwd(), "/elsewhere");
});

check("a v1 file is migrated on open and replaced through a rename", () => {
  const dir = folder();
  const file = path.join(dir, "old.jsonl");
  const t = "2025-01-01T00:00:00.000Z";
  fs.writeFileSync(
    file,
    [
      { type: "session", id: "legacy", timestamp: t, cwd: dir },
      { type: "message", timestamp: t, message: user("one", 1) },
      { type: "message", timestamp: t, message: assistant("two", 2) },
    ]
      .map((e) => `${JSON.stringify(e)}\n`)
      .join("")
      .concat("not json, kept\n"),
  );
  const inode = fs.statSync(file).ino;
  const manager = SessionManager.open(file);
  assert.equal(lines(file).at(-1), "not json, kept", "a line that is no JSON stays where it was");
  const onDisk = lines(file)
    .slice(0, -1)
    .map((line) => JSON.parse(line));
  assert.equal(onDisk[0].version, 3);
  assert.equal(onDisk[1].parentId, null);
  assert.equal(onDisk[2].parentId, onDisk[1].id, "v1 entries chained by id");
  assert.deepEqual(onDisk.slice(1), manager.getEntries());
  assert.notEqual(fs.statSync(file).ino, inode, "a new file renamed into place, not rewritten in place");
  assert.deepEqual(others(dir, "old.jsonl", "old.jsonl.lock"), [], "no temporary file left");
});

check("a torn last line is ended with a newline: a whole one is kept, a fragment becomes its own line", () => {
  const dir = folder();
  const file = started(dir).getSessionFile();
  const whole = read(file);
  // the last line complete but without its newline: it is loaded
  fs.writeFileSync(file, whole.slice(0, -1));
  const a = SessionManager.open(file);
  assert.equal(a.getEntries().length, 2);
  assert.equal(read(file), whole, "the newline is added back");
  a.close();
  // a fragment of a line: it stays in the file, the next append starts a new line
  const fragment = '{"type":"message","id":"torn","par';
  fs.writeFileSync(file, whole + fragment);
  const b = SessionManager.open(file);
  assert.equal(b.getEntries().length, 2, "the fragment is no entry");
  const id = b.appendMessage(user("after"));
  const text = read(file);
  assert.ok(text.startsWith(`${whole}${fragment}\n`), "nothing before it changed");
  assert.equal(JSON.parse(text.split("\n").at(-2)).id, id);
  assert.equal(b.getEntry(id).parentId, b.getEntries()[1].id);
});

check("a file that grows while it is opened is read to its end, as readFileSync reads it", () => {
  const dir = folder();
  const file = started(dir).getSessionFile();
  // a writer that ignores the lock adds a line between the size the manager
  // measures and its read: pi's readFileSync reads on to the end of the file
  const line = {
    type: "custom",
    customType: "x",
    id: "f0f0f0f0",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
  };
  let grown = 0;
  const manager = withFs(
    {
      fstatSync: (...args) => {
        const stat = realFstatSync(...args);
        if (grown++ === 0) fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
        return stat;
      },
    },
    () => SessionManager.open(file),
  );
  assert.ok(grown > 0, "the size was measured");
  assert.equal(manager.getEntries().length, 3);
  assert.deepEqual(manager.getEntries()[2], line);
  assert.equal(manager.getLeafId(), line.id);
});

check("an empty file gets a header; a file that is no session throws pi's error and is left alone", () => {
  const dir = folder();
  const empty = path.join(dir, "empty.jsonl");
  fs.writeFileSync(empty, "");
  const manager = SessionManager.open(empty);
  assert.equal(manager.getSessionFile(), empty);
  assert.deepEqual(jsonLines(empty), [manager.getHeader()]);
  manager.appendModelChange("p", "m");
  assert.equal(jsonLines(empty).length, 2, "an initialized file takes appends at once");
  for (const text of ['{"type":"message","id":"a"}\n', "not json\n", `{"type":"title","v":1,"title":"x"}\n`]) {
    const file = path.join(dir, "bad.jsonl");
    fs.writeFileSync(file, text);
    assert.throws(() => SessionManager.open(file), { message: `Session file is not a valid pi session: ${file}` });
    assert.equal(read(file), text);
    assert.ok(!fs.existsSync(`${file}.lock`), "the lock is given back");
  }
  // a byte order mark is no reason to refuse a session (pi refuses it)
  const bom = path.join(dir, "bom.jsonl");
  fs.writeFileSync(bom, `\uFEFF${read(empty)}`);
  assert.equal(SessionManager.open(bom).getEntries().length, 1);
  assert.equal(loadEntriesFromFile(bom).length, 2);
});

check("oh-my-pi's title line before the header: opened, listed, found and kept (pi 1.6 throws)", async () => {
  const dir = folder();
  const source = started(dir, "/projects/omp");
  const file = source.getSessionFile();
  const sessionId = source.getSessionId();
  source.close?.();
  const title = JSON.stringify({
    type: "title",
    v: 1,
    title: "Fix",
    source: "auto",
    updatedAt: "2025-01-01T00:00:00Z",
    pad: "    ",
  });
  const before = `${title}\n${read(file)}`;
  fs.writeFileSync(file, before);
  // pi's repository: loadEntriesFromFile keeps the title first, the header after it
  assert.deepEqual(
    loadEntriesFromFile(file).map((e) => e.type),
    ["title", "session", "message", "message"],
  );
  const manager = SessionManager.open(file);
  assert.equal(manager.getHeader().id, sessionId);
  assert.equal(manager.getSessionId(), sessionId);
  assert.equal(manager.getCwd(), path.resolve("/projects/omp"));
  const id = manager.appendMessage(user("more"));
  assert.ok(read(file).startsWith(before), "the title and everything after it stay as they were");
  assert.equal(JSON.parse(lines(file).at(-1)).id, id);
  manager.close?.();
  const listed = await SessionManager.list("/projects/omp", dir);
  assert.deepEqual(
    listed.map((i) => i.id),
    [sessionId],
  );
  assert.equal(findMostRecentSession(dir), file);
  const again = SessionManager.continueRecent("/projects/omp", dir);
  assert.equal(again.getSessionFile(), file);
  again.close?.();
});

check("a path that does not exist is a new session that keeps the path", () => {
  const dir = folder();
  const file = path.join(dir, "nested", "named.jsonl");
  const manager = SessionManager.open(file, dir);
  assert.equal(manager.getSessionFile(), file);
  assert.equal(fs.existsSync(file), false);
  manager.appendMessage(user("now"));
  assert.deepEqual(
    jsonLines(file).map((e) => e.type),
    ["session", "message"],
  );
});

check(
  "createBranchedSession writes the path to a new file naming its source; forkFrom copies under a new header",
  () => {
    const dir = folder();
    const manager = started(dir);
    const source = manager.getSessionFile();
    const [u] = manager.getEntries();
    manager.appendLabelChange(u.id, "start");
    manager.appendMessage(user("more"));
    const branched = manager.createBranchedSession(u.id);
    assert.notEqual(branched, source);
    assert.equal(manager.getSessionFile(), branched);
    const onDisk = jsonLines(branched);
    assert.equal(onDisk[0].parentSession, source);
    assert.deepEqual(
      onDisk.slice(1).map((e) => e.type),
      ["message", "label"],
    );
    assert.equal(manager.getLabel(u.id), "start");
    const target = folder();
    const fork = SessionManager.forkFrom(source, "/other/project", target, { id: "forked" });
    const forked = jsonLines(fork.getSessionFile());
    assert.deepEqual(forked[0], {
      ...forked[0],
      id: "forked",
      cwd: "/other/project",
      parentSession: source,
      version: 3,
    });
    assert.deepEqual(
      forked.slice(1).map((e) => e.id),
      loadEntriesFromFile(source)
        .slice(1)
        .map((e) => e.id),
    );
    assert.throws(() => SessionManager.forkFrom(path.join(target, "none.jsonl"), "/x", target), /Cannot fork/);
  },
);

check("list, findById, continueRecent and findMostRecentSession", async () => {
  const dir = folder();
  const a = started(dir, "/projects/a");
  await sleep(15);
  const b = started(dir, "/projects/b");
  fs.writeFileSync(path.join(dir, "junk.jsonl"), "not a session\n");
  const listed = await SessionManager.list("/projects/a", dir);
  assert.deepEqual(
    listed.map((s) => s.path),
    [a.getSessionFile()],
  );
  const [info] = listed;
  assert.equal(info.id, a.getSessionId());
  assert.equal(info.firstMessage, "hello");
  assert.equal(info.allMessagesText, "hello hi");
  assert.equal(info.messageCount, 2);
  const all = await SessionManager.listAll(dir);
  assert.deepEqual(
    all.map((s) => s.path),
    [b.getSessionFile(), a.getSessionFile()],
    "newest first",
  );
  assert.equal(SessionManager.findById("/projects/a", b.getSessionId(), dir), undefined, "another cwd's session");
  assert.equal(SessionManager.findById("/projects/b", b.getSessionId(), dir), b.getSessionFile());
  assert.equal(findMostRecentSession(dir), b.getSessionFile());
  assert.equal(findMostRecentSession(dir, "/projects/a"), a.getSessionFile());
  a.close();
  assert.equal(SessionManager.continueRecent("/projects/a", dir).getSessionFile(), a.getSessionFile());
  const fresh = SessionManager.continueRecent("/projects/c", dir);
  assert.equal(fs.existsSync(fresh.getSessionFile()), false, "no session there: a new one");
});

check("listSessions: every file, newest first, with progress, recursion and abort", async () => {
  const dir = folder();
  const old = started(dir, "/p");
  await sleep(15);
  const recent = started(path.join(dir, "sub"), "/p");
  fs.writeFileSync(path.join(dir, "broken.jsonl"), "{}\n");
  const seen = [];
  const flat = await listSessions(dir, { onProgress: (done, total) => seen.push([done, total]) });
  assert.deepEqual(
    flat.map((row) => [path.basename(row.path), row.error === null]),
    [
      [path.basename(old.getSessionFile()), true],
      ["broken.jsonl", false],
    ],
  );
  assert.deepEqual(seen.at(-1), [2, 2]);
  const deep = await listSessions(dir, { recursive: true });
  assert.deepEqual(
    deep.filter((row) => row.info).map((row) => row.path),
    [recent.getSessionFile(), old.getSessionFile()],
  );
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(listSessions(dir, { signal: controller.signal }), /stop/);
  await assert.rejects(listSessions(path.join(dir, "missing")), { code: "ENOENT" });
});

check("listSessions with recursion through links back up the tree: each file once, and it ends", async () => {
  // two links to a parent doubled the paths at each level down to ELOOP: 2^40, never ending
  const dir = folder();
  const top = started(dir, "/p");
  const inner = started(path.join(dir, "sub"), "/p");
  fs.symlinkSync("..", path.join(dir, "sub", "up"));
  fs.symlinkSync(dir, path.join(dir, "sub", "again"));
  fs.symlinkSync(".", path.join(dir, "self"));
  const rows = await listSessions(dir, { recursive: true });
  assert.deepEqual(rows.map((row) => row.path).sort(), [top.getSessionFile(), inner.getSessionFile()].sort());
  top.close();
  inner.close();
});

check("orderSessions puts a fork under the session it came from", async () => {
  const dir = folder();
  const source = started(dir);
  await sleep(15);
  const fork = SessionManager.forkFrom(source.getSessionFile(), dir, dir);
  fork.appendMessage(user("in the fork"));
  const rows = orderSessions((await listSessions(dir)).filter((row) => row.info));
  assert.deepEqual(
    rows.map((row) => [row.item.path, row.depth]),
    [
      [source.getSessionFile(), 0],
      [fork.getSessionFile(), 1],
    ],
  );
});

check("a session whose folder is removed while it runs is written again whole, under a new lock", () => {
  const dir = path.join(folder(), "sessions");
  const manager = started(dir);
  const file = manager.getSessionFile();
  fs.rmSync(dir, { recursive: true });
  const id = manager.appendMessage(user("after the folder went"));
  const onDisk = jsonLines(file);
  assert.deepEqual(
    onDisk.map((e) => e.type),
    ["session", "message", "message", "message"],
    "the header and every entry, not a lone line",
  );
  assert.equal(onDisk.at(-1).id, id);
  assert.equal(JSON.parse(read(`${file}.lock`)).pid, process.pid, "the lock file is back");
  manager.close();
  assert.deepEqual(others(dir, path.basename(file)), []);
});

check("two managers of one process on a session whose folder is removed: the lock file is made again", () => {
  const dir = path.join(folder(), "sessions");
  const first = started(dir);
  const file = first.getSessionFile();
  const second = SessionManager.open(file); // the same process may open it again
  fs.rmSync(dir, { recursive: true });
  first.appendMessage(user("after the folder went"));
  assert.equal(JSON.parse(read(`${file}.lock`)).pid, process.pid, "the lock file is back");
  first.close();
  assert.ok(fs.existsSync(`${file}.lock`), "the second manager still holds it");
  second.close();
  assert.equal(fs.existsSync(`${file}.lock`), false);
});

check("a file emptied under a running writer gets the whole session again, not a headerless line", () => {
  // pi appends the line alone: the file has no header, and pi's open then refuses it
  const dir = folder();
  const manager = started(dir);
  const file = manager.getSessionFile();
  const header = lines(file)[0];
  fs.truncateSync(file, 0);
  const id = manager.appendMessage(user("after the truncation"));
  assert.deepEqual(
    jsonLines(file).map((e) => e.type),
    ["session", "message", "message", "message"],
  );
  assert.equal(lines(file)[0], header);
  assert.equal(jsonLines(file).at(-1).id, id);
  manager.appendMessage(user("and one more"));
  manager.close();
  const reopened = SessionManager.open(file);
  assert.equal(reopened.getEntries().length, 4);
  assert.equal(reopened.getBranch().length, 4, "one unbroken path");
  reopened.close();
});

// --- the file changed under a running writer (pi appends by path each time) -----

check("a file replaced under a running writer (an editor's rename) gets the next append, as pi's", () => {
  const dir = folder();
  const manager = started(dir);
  const file = manager.getSessionFile();
  const text = read(file);
  fs.writeFileSync(`${file}.new`, text);
  fs.renameSync(`${file}.new`, file);
  const id = manager.appendMessage(user("after the rename"));
  const onDisk = jsonLines(file);
  assert.equal(onDisk.length, 4, "the append is in the file at the path, not in the unlinked old one");
  assert.equal(onDisk.at(-1).id, id);
  assert.ok(read(file).startsWith(text));
  manager.close();
});

check("another writer's torn line under a running writer: the next append starts a line of its own", () => {
  const dir = folder();
  const manager = started(dir);
  const file = manager.getSessionFile();
  manager.appendMessage(user("one more")); // the writer's size is now known
  const before = read(file);
  const fragment = '{"type":"message","id":"torn","par';
  fs.appendFileSync(file, fragment); // a writer that crashed mid-line (pi has no lock)
  const a = manager.appendMessage(user("after the fragment"));
  const b = manager.appendMessage(user("and one more"));
  assert.deepEqual(lines(file), [...before.split("\n").slice(0, -1), fragment, ...lines(file).slice(-2)]);
  assert.deepEqual(
    lines(file)
      .slice(-2)
      .map((line) => JSON.parse(line).id),
    [a, b],
    "no line glued to the fragment",
  );
  assert.equal(SessionManager.open(file, undefined, undefined, { readOnly: true }).getEntries().length, 5);
  manager.close();
});

check("a symlinked v1 file is migrated through the link: the link stays, its target is rewritten", () => {
  const dir = folder();
  const target = path.join(dir, "target.jsonl");
  const t = "2025-01-01T00:00:00.000Z";
  fs.writeFileSync(
    target,
    [
      { type: "session", id: "legacy", timestamp: t, cwd: dir },
      { type: "message", timestamp: t, message: user("one", 1) },
    ]
      .map((e) => `${JSON.stringify(e)}\n`)
      .join(""),
  );
  const link = path.join(dir, "link.jsonl");
  fs.symlinkSync(target, link);
  const manager = SessionManager.open(link);
  const id = manager.appendMessage(user("two"));
  assert.ok(fs.lstatSync(link).isSymbolicLink(), "the link is still a link (pi writes through it)");
  const onDisk = jsonLines(target);
  assert.equal(onDisk[0].version, 3, "the target is migrated");
  assert.equal(onDisk.at(-1).id, id, "and gets the appends");
  manager.close();
  assert.deepEqual(others(dir, "target.jsonl", "link.jsonl"), [], "no temporary file left");
});

check("a closed manager's reads throw a clear error", () => {
  const dir = folder();
  const manager = started(dir);
  manager.close();
  for (const read of [() => manager.getEntries(), () => manager.getLeafId(), () => manager.buildSessionContext()])
    assert.throws(read, /session manager is closed/);
  assert.throws(() => manager.branch("x"), /session manager is closed/);
  assert.equal(path.dirname(manager.getSessionFile()), dir, "its path is still known");
});

check("a closed manager cannot switch sessions: a clear error, and no lock taken on the way", () => {
  // newSession and setSessionFile threw "null pointer passed to rust" (the closed session freed
  // again), and setSessionFile left the other file locked by this process, with nothing to release it
  const dir = folder();
  const other = started(dir);
  const file = other.getSessionFile();
  other.close();
  const manager = started(dir);
  manager.close();
  for (const call of [
    () => manager.newSession(),
    () => manager.setSessionFile(file),
    () => manager.createBranchedSession(null),
    () => manager.appendMessage(user("after close")),
  ])
    assert.throws(call, /session manager is closed/);
  assert.equal(fs.existsSync(`${file}.lock`), false, "no lock left on the other file");
  assert.equal(lines(file).length, 3);
  const again = SessionManager.open(file); // another manager of this process takes it as usual
  again.close();
  assert.equal(fs.existsSync(`${file}.lock`), false);
});

check("a read-only manager takes no lock, writes nothing and refuses appends", () => {
  const dir = folder();
  const file = started(dir).getSessionFile();
  const torn = read(file).slice(0, -1);
  fs.writeFileSync(file, torn);
  const reader = SessionManager.open(file, undefined, undefined, { readOnly: true });
  assert.equal(reader.getEntries().length, 2);
  assert.equal(read(file), torn, "no repair");
  assert.throws(() => reader.appendMessage(user("no")), /read-only/);
  assert.equal(reader.flush(), false);
});

// --- durability: failed writes --------------------------------------------------

check("a failed append (ENOSPC after part of the line) leaves the file as it was and the session as before", () => {
  const dir = folder();
  const manager = started(dir);
  const file = manager.getSessionFile();
  const before = read(file);
  const leaf = manager.getLeafId();
  assert.throws(
    () =>
      withFs(
        {
          writeSync: (fd, bytes) => {
            // the disk fills up after the first 7 bytes of the line
            assert.equal(realWriteSync(fd, bytes, 0, 7), 7);
            throw failure("ENOSPC", "no space left on device");
          },
        },
        () => manager.appendMessage(user("lost")),
      ),
    { code: "ENOSPC" },
  );
  assert.equal(read(file), before, "the partial line was cut off");
  assert.equal(manager.getLeafId(), leaf);
  assert.equal(manager.getEntries().length, 2);
  const id = manager.appendMessage(user("next"));
  assert.equal(manager.getEntry(id).parentId, leaf, "the next append continues from the old leaf");
  assert.equal(jsonLines(file).length, 4);
});
check("a failed append cuts nothing another writer wrote meanwhile; the next append starts a new line", () => {
  const dir = folder();
  const manager = started(dir);
  const file = manager.getSessionFile();
  manager.appendMessage(user("the file is held open now"));
  // a writer that ignores the lock adds a complete line and the start of another
  const foreign = `${JSON.stringify({ type: "custom", id: "f0f0f0f0", parentId: null })}\n{"type":"cus`;
  fs.appendFileSync(file, foreign);
  const before = read(file);
  assert.throws(
    () =>
      withFs(
        {
          writeSync: (fd, bytes, ...rest) => {
            // the newline that ends the other writer's torn line goes through
            if (bytes.length === 1) return realWriteSync(fd, bytes, ...rest);
            assert.equal(realWriteSync(fd, bytes, 0, 7), 7);
            throw failure("ENOSPC", "no space left on device");
          },
        },
        () => manager.appendMessage(user("lost")),
      ),
    { code: "ENOSPC" },
  );
  assert.ok(read(file).startsWith(before), "the other writer's bytes are all there");
  const id = manager.appendMessage(user("next"));
  const last = lines(file).at(-1);
  assert.equal(JSON.parse(last).id, id, "the next append is a line of its own");
  assert.equal(lines(file).filter((line) => line.includes('"f0f0f0f0"')).length, 1);
});

check("a failed fsync (EIO) with durability fsync leaves the file and the session as before", () => {
  const dir = folder();
  const manager = started(dir, dir, { durability: "fsync" });
  const file = manager.getSessionFile();
  const before = read(file);
  const labelTarget = manager.getLeafId();
  assert.throws(
    () =>
      withFs(
        {
          fsyncSync: () => {
            throw failure("EIO", "i/o error");
          },
        },
        () => manager.appendLabelChange(labelTarget, "x"),
      ),
    { code: "EIO" },
  );
  assert.equal(read(file), before);
  assert.equal(manager.getLabel(labelTarget), undefined, "the label is not set");
  assert.equal(manager.getEntries().length, 2);
});

check("a failed first write leaves no file; the next message writes everything", () => {
  const dir = folder();
  const manager = SessionManager.create(dir, dir);
  manager.appendModelChange("p", "m");
  const file = manager.getSessionFile();
  assert.throws(
    () =>
      withFs(
        {
          writeSync: () => {
            throw failure("ENOSPC", "no space left on device");
          },
        },
        () => manager.appendMessage(user("first")),
      ),
    { code: "ENOSPC" },
  );
  assert.equal(fs.existsSync(file), false);
  assert.deepEqual(others(dir), [], "no file, no lock");
  assert.deepEqual(
    manager.getEntries().map((e) => e.type),
    ["model_change"],
  );
  manager.appendMessage(user("again"));
  assert.deepEqual(
    jsonLines(file).map((e) => e.type),
    ["session", "model_change", "message"],
  );
});

check("a failed rename during migration leaves the old file and no temporary file", () => {
  const dir = folder();
  const file = path.join(dir, "v2.jsonl");
  const text = `${JSON.stringify({ type: "session", version: 2, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: dir })}\n${JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "2025-01-01T00:00:00.000Z", message: { role: "hookMessage", customType: "x", content: "c", display: true, timestamp: 1 } })}\n`;
  fs.writeFileSync(file, text);
  assert.throws(
    () =>
      withFs(
        {
          renameSync: () => {
            throw failure("EIO", "i/o error");
          },
        },
        () => SessionManager.open(file),
      ),
    { code: "EIO" },
  );
  assert.equal(read(file), text);
  assert.deepEqual(others(dir, "v2.jsonl"), [], "no temporary file, no lock");
  assert.equal(jsonLines(file)[0].version, 2);
  SessionManager.open(file);
  assert.equal(jsonLines(file)[0].version, 3, "the next open migrates");
});

check("a failed publish of a branched session leaves the manager on its file", () => {
  const dir = folder();
  const manager = started(dir);
  const file = manager.getSessionFile();
  const [first] = manager.getEntries();
  const fail = () => {
    throw failure("ENOSPC", "no space left on device");
  };
  assert.throws(() => withFs({ linkSync: fail, renameSync: fail }, () => manager.createBranchedSession(first.id)), {
    code: "ENOSPC",
  });
  assert.equal(manager.getSessionFile(), file);
  assert.deepEqual(others(dir, path.basename(file), `${path.basename(file)}.lock`), []);
  manager.appendMessage(user("still here"));
  assert.equal(jsonLines(file).length, 4);
});

check("a failed branchWithSummary leaves the leaf at the branch point, as pi does", () => {
  const dir = folder();
  const manager = started(dir);
  const [first] = manager.getEntries();
  assert.throws(
    () =>
      withFs(
        {
          writeSync: () => {
            throw failure("EIO", "i/o error");
          },
        },
        () => manager.branchWithSummary(first.id, "summary"),
      ),
    { code: "EIO" },
  );
  assert.equal(manager.getLeafId(), first.id);
  assert.equal(manager.getEntries().length, 2);
});

check('durability "fsync" syncs every append, "batch" on close, "flush" never', () => {
  const count = (durability) => {
    const dir = folder();
    const manager = started(dir, dir, { durability });
    let syncs = 0;
    const real = fs.fsyncSync;
    return withFs(
      {
        fsyncSync: (fd) => {
          syncs++;
          real(fd);
        },
      },
      () => {
        for (let i = 0; i < 5; i++) manager.appendModelChange("p", `m${i}`);
        const during = syncs;
        manager.close();
        return [during, syncs];
      },
    );
  };
  assert.deepEqual(count("flush"), [0, 0]);
  assert.deepEqual(count("fsync"), [5, 5]);
  const [during, after] = count("batch");
  assert.equal(during, 0, "batch: not synced at once");
  assert.equal(after, 1, "batch: synced once on close");
  assert.throws(() => SessionManager.create("/x", folder(), { durability: "always" }), /durability must be/);
});

// --- the write lock ---------------------------------------------------------------

check("a folder where no lock can be created: the error names the file and the read-only way", () => {
  const dir = folder();
  const first = started(dir);
  const file = first.getSessionFile();
  first.close();
  const before = read(file);
  // what a folder this process may not write gives: the lock file cannot be created
  const denied = {
    openSync: (p, flags, ...rest) => {
      if (String(p).endsWith(".lock")) throw failure("EACCES", `EACCES: permission denied, open '${p}'`);
      return realOpenSync(p, flags, ...rest);
    },
  };
  let error;
  withFs(denied, () => {
    try {
      SessionManager.open(file, dir);
    } catch (e) {
      error = e;
    }
  });
  assert.ok(error instanceof Error, "opening for writing fails");
  assert.equal(error.code, "EACCES");
  assert.equal(error.cause?.code, "EACCES");
  assert.ok(error.message.includes(file), error.message);
  assert.match(error.message, /folder is not writable/);
  assert.match(error.message, /\{ readOnly: true \}/);
  assert.equal(read(file), before, "nothing written");
  assert.equal(fs.existsSync(`${file}.lock`), false);
  // the way the message names works in the same folder
  const reader = withFs(denied, () => SessionManager.open(file, dir, undefined, { readOnly: true }));
  assert.equal(reader.getEntries().length, 2);
  // any other failure to create the lock is passed on as it is
  const other = failure("EMFILE", "EMFILE: too many open files");
  assert.throws(
    () =>
      withFs(
        {
          openSync: (p, ...rest) => {
            if (String(p).endsWith(".lock")) throw other;
            return realOpenSync(p, ...rest);
          },
        },
        () => SessionManager.open(file, dir),
      ),
    (e) => e === other,
  );
});
check("a second process opening the session for writing gets SessionLockedError naming it", async () => {
  const dir = folder();
  const writer = started(dir);
  const file = writer.getSessionFile();
  writer.close();
  const holder = await startChild(["hold", file, "0"]).ready;
  try {
    const pid = holder.child.pid;
    let error;
    try {
      SessionManager.open(file);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof SessionLockedError, `got ${error}`);
    assert.equal(error.code, "ESESSIONLOCKED");
    assert.equal(error.pid, pid);
    assert.equal(error.file, file);
    assert.ok(error.message.includes(file) && error.message.includes(`process ${pid}`), error.message);
    // readers go on
    assert.equal(loadEntriesFromFile(file).length, 3);
    assert.equal(SessionManager.open(file, undefined, undefined, { readOnly: true }).getEntries().length, 2);
    assert.equal((await listSessions(dir)).length, 1);
    // a second agent continuing the project does not pick the session being written
    const second = SessionManager.continueRecent(dir, dir);
    assert.notEqual(second.getSessionFile(), file);
    assert.equal(fs.existsSync(second.getSessionFile()), false, "a new session");
  } finally {
    holder.child.kill("SIGKILL");
    await holder.exit;
  }
  // the holder died without releasing: its lock is stale and taken over
  const after = SessionManager.open(file);
  assert.equal(JSON.parse(read(`${file}.lock`)).pid, process.pid);
  after.close();
  assert.equal(fs.existsSync(`${file}.lock`), false, "close gives the lock back");
});

check("a second process opening the session through a symbolic link to it gets SessionLockedError", async () => {
  const dir = folder();
  const writer = started(dir);
  const file = writer.getSessionFile();
  writer.close();
  const link = path.join(folder(), "link.jsonl");
  fs.symlinkSync(file, link);
  // the holder came through the link; this process comes by the file's own path, then through the link
  const holder = await startChild(["hold", link, "0"]).ready;
  try {
    for (const at of [file, link]) {
      let error;
      try {
        SessionManager.open(at).close();
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof SessionLockedError, `${at}: got ${error}`);
      assert.equal(error.pid, holder.child.pid);
      assert.equal(error.file, at);
      assert.ok(error.message.includes(`${file}.lock`), error.message);
    }
  } finally {
    holder.child.kill("SIGKILL");
    await holder.exit;
  }
  assert.equal(lines(file).length, 3, "nothing was written past the lock");
});

check("setSessionFile to a file it cannot take leaves the manager on its own file, under its lock", async () => {
  // pi switches its file before it throws, and its next appends go into the file it refused
  const dir = folder();
  const other = started(dir);
  const held = other.getSessionFile();
  other.close();
  const junk = path.join(dir, "junk.jsonl");
  fs.writeFileSync(junk, "not a session\n");
  const manager = started(dir);
  const own = manager.getSessionFile();
  const holder = await startChild(["hold", held, "0"]).ready;
  try {
    assert.throws(() => manager.setSessionFile(held), SessionLockedError);
    assert.throws(() => manager.setSessionFile(junk), /Session file is not a valid pi session/);
    assert.equal(manager.getSessionFile(), own);
    const id = manager.appendMessage(user("after the refusals"));
    assert.equal(lines(held).length, 3, "nothing written into the file another process holds");
    assert.equal(read(junk), "not a session\n", "nothing written into the file that is no session");
    assert.equal(jsonLines(own).at(-1).id, id);
    assert.equal(jsonLines(own).length, 4);
    assert.equal(JSON.parse(read(`${own}.lock`)).pid, process.pid, "its own lock is still held");
  } finally {
    holder.child.kill("SIGKILL");
    await holder.exit;
  }
  manager.close();
  assert.equal(fs.existsSync(`${own}.lock`), false);
  assert.equal(fs.existsSync(`${junk}.lock`), false, "the refused file's lock was given back");
});

check("a lock left by an earlier process with this process's pid is taken over", () => {
  // a container restarted after a crash: the agent is pid 1 again, under the same host name;
  // the lock naming it held the session until someone removed the file by hand
  const dir = folder();
  const writer = started(dir);
  const file = writer.getSessionFile();
  writer.close();
  const uptime = Date.now() - process.uptime() * 1000;
  for (const earlier of [
    { pid: process.pid, hostname: os.hostname(), acquired: "then", started: Math.round(uptime) - 60_000 },
    { pid: process.pid, hostname: os.hostname(), acquired: "then" }, // written before start times were
  ]) {
    fs.writeFileSync(`${file}.lock`, JSON.stringify(earlier));
    const again = SessionManager.continueRecent(dir, dir);
    assert.equal(again.getSessionFile(), file, "continueRecent does not pass it over");
    again.appendMessage(user("after the restart"));
    assert.equal(JSON.parse(read(`${file}.lock`)).pid, process.pid);
    assert.equal(JSON.parse(read(`${file}.lock`)).acquired === "then", false, "a lock of its own");
    again.close();
    assert.equal(fs.existsSync(`${file}.lock`), false);
  }
  // another host's lock with this pid is left alone: that process may be running there
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, hostname: `${os.hostname()}-other` }));
  assert.throws(() => SessionManager.open(file), SessionLockedError);
  fs.unlinkSync(`${file}.lock`);
});

check("lockTimeout waits for the holder to finish", async () => {
  const dir = folder();
  const writer = started(dir);
  const file = writer.getSessionFile();
  writer.close();
  const holder = await startChild(["hold", file, "300"]).ready;
  const start = Date.now();
  const manager = SessionManager.open(file, undefined, undefined, { lockTimeout: 20000 });
  assert.ok(Date.now() - start >= 100, "it waited");
  manager.appendMessage(user("mine now"));
  manager.close();
  await holder.exit;
});

check("a stale lock from a dead process is taken over", async () => {
  const dir = folder();
  const writer = started(dir);
  const file = writer.getSessionFile();
  writer.close();
  // a real pid that no longer runs
  const gone = startChild(["nothing"]);
  await gone.exit;
  const lockFile = `${file}.lock`;
  fs.writeFileSync(lockFile, JSON.stringify({ pid: gone.child.pid, hostname: os.hostname(), acquired: "then" }));
  const manager = SessionManager.open(file);
  assert.equal(JSON.parse(read(lockFile)).pid, process.pid);
  manager.appendMessage(user("taken over"));
  manager.close();
  assert.equal(fs.existsSync(lockFile), false);
  assert.deepEqual(others(dir, path.basename(file)), [], "nothing left beside the session");
});

// --- process death --------------------------------------------------------------

const KILLS = Number(process.env.KILL_COUNT ?? 100);
check(`SIGKILL during appends, ${KILLS} times: no complete line lost, the next append well formed`, async () => {
  const seed =
    process.env.KILL_SEED !== undefined ? Number(process.env.KILL_SEED) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
  const rng = new Rng(seed);
  const where = () => `(KILL_SEED=${seed})`;
  const dir = folder();
  const first = started(dir);
  const file = first.getSessionFile();
  first.close();
  let torn = 0;
  for (let round = 0; round < KILLS; round++) {
    const before = fs.readFileSync(file);
    const durability = rng.pick(["flush", "flush", "fsync", "batch"]);
    const child = await startChild(["append", file, String(rng.int(0, 2 ** 31)), durability]).ready;
    await sleep(rng.int(0, 25));
    child.child.kill("SIGKILL");
    await child.exit;
    const acked = child.out.split("\n").slice(1, -1).map(Number);
    const after = fs.readFileSync(file);
    assert.ok(after.subarray(0, before.length).equals(before), `round ${round}: earlier bytes changed ${where()}`);
    // every append the child saw return is on disk, whole
    const added = after
      .subarray(before.length)
      .toString("utf8")
      .split("\n")
      .slice(0, -1)
      .map((line) => JSON.parse(line));
    const seqs = added.map((e) => e.message.seq);
    for (const seq of acked) assert.ok(seqs.includes(seq), `round ${round}: append ${seq} lost ${where()}`);
    if (after.length > 0 && after[after.length - 1] !== 0x0a) torn++;
    // reopening (the dead child's lock is stale) repairs and appends on a new line
    const manager = SessionManager.open(file);
    const leaf = manager.getLeafId();
    const id = manager.appendMessage(user(`after kill ${round}`));
    manager.close();
    const text = read(file);
    assert.ok(text.endsWith("\n"), `round ${round} ${where()}`);
    const last = JSON.parse(text.slice(text.lastIndexOf("\n", text.length - 2) + 1));
    assert.equal(last.id, id, `round ${round}: the next append is a line of its own ${where()}`);
    assert.equal(last.parentId, leaf);
  }
  // only torn fragments (one per torn kill at most) are not JSON
  const bad = lines(file).filter((line) => {
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  assert.ok(bad.length <= torn, `${bad.length} malformed lines, ${torn} torn kills ${where()}`);
});
