// `session-tree tree`: hand-worked drawings of the fixture, and the same lines
// as pi 1.6.0's own /tree view (its TreeSelectorComponent, rendered without a
// terminal) on the demo's sample, the fixture and random sessions, for every
// filter and for other leaves. CLI_TREE_SEED replays a random run.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { migrate, Session } from "session-tree";
import { piLoad, SessionManager } from "../shared/pi.mjs";
import { caseSeed, envCount, envSeed, Rng } from "../shared/rng.mjs";
import { generateSession } from "../shared/sessions.mjs";
import { BROKEN, CLEAN, folder } from "./fixtures.mjs";
import { run } from "./run.mjs";

const f = folder({ "clean.jsonl": CLEAN, "broken.jsonl": BROKEN });
after(f.cleanup);
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colours' escape sequences
const ANSI = /\x1b\[[0-9;]*m/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: what the command prints as spaces
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"];

test("tree: the fixture, default filter, worked out by hand", async () => {
  const r = await run(["tree", f.path("clean.jsonl")]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  // a1 (tool call, no text) is hidden and r1 takes its place under u1; the
  // label l1 and the name n1 are settings; u3's branch holds the leaf a3, so
  // it comes first although it is newer.
  assert.equal(
    r.stdout,
    [
      "• user: Fix the build",
      "├─ • user: Actually, explain the error",
      "│     • assistant: It means a semicolon is missing.",
      "└─ [bash: make build]",
      "      [diagnosis] assistant: A semicolon is missing.",
      "      user: Try another way",
      "",
    ].join("\n"),
  );
});

test("tree: --filter all at another leaf, worked out by hand", async () => {
  const r = await run(["tree", f.path("clean.jsonl"), "--filter", "all", "--leaf", "a1"]);
  assert.equal(r.code, 0);
  // a1 is the leaf: shown although it has no text; a2 branches into the
  // label l1 and u2; u2's only child n1 is the first entry after a branch.
  assert.equal(
    r.stdout,
    [
      "• user: Fix the build",
      "├─ • assistant: (no content)",
      "│     [bash: make build]",
      "│     [diagnosis] assistant: A semicolon is missing.",
      "│     ├─ [label: diagnosis]",
      "│     └─ user: Try another way",
      "│           [title: Build fix]",
      "└─ user: Actually, explain the error",
      "      assistant: It means a semicolon is missing.",
      "",
    ].join("\n"),
  );
});

test("tree: user-only and labeled-only on the fixture; --json rows", async () => {
  const users = await run(["tree", f.path("clean.jsonl"), "--filter", "user-only"]);
  assert.equal(
    users.stdout,
    ["• user: Fix the build", "├─ • user: Actually, explain the error", "└─ user: Try another way", ""].join("\n"),
  );
  const labeled = await run(["tree", f.path("clean.jsonl"), "--filter", "labeled-only"]);
  assert.equal(labeled.stdout, "[diagnosis] assistant: A semicolon is missing.\n");
  const json = await run(["tree", "--json", "-"], { stdin: CLEAN });
  assert.equal(json.code, 0);
  const rows = JSON.parse(json.stdout);
  assert.deepEqual(
    rows.map((r) => [r.id, r.type, r.depth, r.prefix, r.active, r.leaf, r.label]),
    [
      ["u1", "message", 0, "", true, false, null],
      ["u3", "message", 1, "├─ ", true, false, null],
      ["a3", "message", 2, "│     ", true, true, null],
      ["r1", "message", 1, "└─ ", false, false, null],
      ["a2", "message", 2, "      ", false, false, "diagnosis"],
      ["u2", "message", 2, "      ", false, false, null],
    ],
  );
  assert.equal(rows[3].text, "[bash: make build]");
});

test("tree: bad filter, unknown leaf, two files, missing file: exit 2 with one line", async () => {
  for (const argv of [
    ["tree", f.path("clean.jsonl"), "--filter", "tools"],
    ["tree", f.path("clean.jsonl"), "--leaf", "zzz"],
    ["tree", f.path("clean.jsonl"), f.path("broken.jsonl")],
    ["tree"],
    ["tree", f.path("missing.jsonl")],
    ["tree", f.path("clean.jsonl"), "--leaf"],
  ]) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(" "));
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.split("\n").length, 2, r.stderr);
  }
});

test("tree: colour only on a TTY without NO_COLOR", async () => {
  const plain = await run(["tree", f.path("clean.jsonl")]);
  const tty = await run(["tree", f.path("clean.jsonl")], { isTTY: true });
  const noColor = await run(["tree", f.path("clean.jsonl")], { isTTY: true, env: { NO_COLOR: "1" } });
  assert.ok(tty.stdout.includes("\x1b["));
  assert.equal(tty.stdout.replace(ANSI, ""), plain.stdout);
  assert.equal(noColor.stdout, plain.stdout);
});

// ---------------------------------------------------------------------------
// Against pi's own view.

const piDist = new URL("../node_modules/@earendil-works/pi-coding-agent/dist/", import.meta.url);
const { initTheme } = await import(new URL("modes/interactive/theme/theme.js", piDist));
const { TreeSelectorComponent } = await import(new URL("modes/interactive/components/tree-selector.js", piDist));
initTheme("dark");

/**
 * pi's /tree view of `text` at `leafId` under `filter`: the ids it shows, and
 * its lines with colours, the cursor column and fold marks removed, written as
 * UTF-8 as a terminal gets them (a text cut at 200 UTF-16 units can end in
 * half a surrogate pair: U+FFFD), with control characters as spaces as the
 * command prints them (pi writes them raw). `lines` is null where pi's render throws
 * (a custom message without content: `session-tree` shows it as empty).
 */
function piView(text, leafId, filter) {
  const sm = SessionManager.inMemory("/tmp");
  sm.fileEntries = piLoad(text);
  sm._buildIndex();
  const leaf = leafId ?? sm.getLeafId();
  const view = new TreeSelectorComponent(
    sm.getTree(),
    leaf,
    1e6,
    () => {},
    () => {},
    () => {},
    undefined,
    filter,
  );
  const list = view.getTreeList();
  const ids = list.filteredNodes.map((n) => n.node.entry.id);
  let lines = null;
  try {
    lines = list.render(1e6);
  } catch {
    return { ids, lines };
  }
  lines.pop(); // the "(n/m) [filter]" status line
  if (lines.length === 1 && lines[0].includes("No entries found")) lines = [];
  lines = lines.map((l) =>
    Buffer.from(l.replace(ANSI, "").slice(2).replace(/[⊟⊞]/g, "─").replace(CONTROL, " ").trimEnd(), "utf8").toString(
      "utf8",
    ),
  );
  return { ids, lines };
}

async function ourView(text, leafId, filter) {
  const argv = ["tree", "-", "--filter", filter];
  if (leafId !== undefined) argv.push("--leaf", leafId);
  const env = { HOME: process.env.HOME };
  const plain = await run(argv, { stdin: text, env });
  assert.equal(plain.code, 0, plain.stderr);
  const json = await run([...argv, "--json"], { stdin: text, env });
  return {
    ids: JSON.parse(json.stdout).map((r) => r.id),
    lines:
      plain.stdout === ""
        ? []
        : plain.stdout
            .replace(/\n$/, "")
            .split("\n")
            .map((l) => l.trimEnd()),
  };
}

/** Compares the shown entries, and the drawn lines where pi can draw them; returns whether it could. */
async function compare(text, leafId, filter, what) {
  const ours = await ourView(text, leafId, filter);
  const theirs = piView(text, leafId, filter);
  const where = `${what}, leaf ${leafId ?? "(session's)"}, filter ${filter}`;
  assert.deepEqual(ours.ids, theirs.ids, where);
  if (theirs.lines === null) return false;
  assert.deepEqual(ours.lines, theirs.lines, where);
  return true;
}

test("tree equals pi 1.6.0's /tree view: the demo sample and the fixture, every filter, several leaves", async () => {
  const sample = readFileSync(new URL("../../www/sample.jsonl", import.meta.url), "utf8");
  for (const [name, text] of [
    ["www/sample.jsonl", sample],
    ["fixture", CLEAN],
  ]) {
    const session = Session.open(text);
    const ids = session.getEntries().map((e) => e.id);
    session.free();
    for (const leaf of [undefined, ids[0], ids[Math.floor(ids.length / 2)], ids[ids.length - 3]]) {
      for (const filter of FILTERS) assert.ok(await compare(text, leaf, filter, name));
    }
  }
});

test("tree equals pi 1.6.0's /tree view on random sessions", async () => {
  const seed = envSeed("CLI_TREE_SEED");
  const count = envCount("CLI_TREE_COUNT", 40);
  console.log(`tree vs pi: CLI_TREE_SEED=${seed} CLI_TREE_COUNT=${count}`);
  let drawn = 0;
  for (let i = 0; i < count; i++) {
    const s = caseSeed(seed, i);
    const rng = new Rng(s);
    // v1 files get random ids when opened: migrate once, so both sides see the same ids
    const text = migrate(generateSession(s, { maxEntries: 80, pi16: i % 2 === 0 }).text);
    const session = Session.open(text);
    const ids = session.getEntries().map((e) => e.id);
    session.free();
    const leaf = ids.length > 0 && rng.int(0, 2) === 1 ? ids[rng.int(0, ids.length)] : undefined;
    for (const filter of FILTERS) {
      if (await compare(text, leaf, filter, `random session ${i} (case seed 0x${s.toString(16)})`)) drawn++;
    }
  }
  // pi's render throws on a few generated entries; most views must be compared line by line.
  assert.ok(drawn >= (count * FILTERS.length) / 2, `only ${drawn} views drawn by pi`);
});
