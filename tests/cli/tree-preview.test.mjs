// `session-tree tree` on a file read by piece draws its rows from getTree's
// previews (tree-view.js's TREE_FIELDS), not from the entries: for every
// filter and option it prints what the entries give (the file read whole,
// through a Session), and it reads an entry again only for a row whose
// preview may have been cut where the row shows the text whole.
//
//   CLI_TREE_PREVIEW_SEED=…   replays a run (default: random, printed)

import assert from "node:assert/strict";
import * as nodeFs from "node:fs/promises";
import { after, test } from "node:test";
import { getTree, migrate } from "session-tree";
import { findNode, TREE_FIELDS, treeRows } from "../../pkg/cli/tree-view.js";
import { caseSeed, envSeed, Rng } from "../shared/rng.mjs";
import { generateSession, generateWithHeader } from "../shared/sessions.mjs";
import { folder } from "./fixtures.mjs";
import { run } from "./run.mjs";

const MASTER = envSeed("CLI_TREE_PREVIEW_SEED");
const FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"];
const COUNT = 6;

/** A line's entry id; undefined for a line that is no JSON (generated sessions have some). */
function idOf(line) {
  try {
    return JSON.parse(line)?.id;
  } catch {
    return undefined;
  }
}

/**
 * Entries whose rows show a long string whole, or look one up (ids, a tool
 * call's path), each past the preview's cut (512 characters that are not
 * whitespace), and messages whose long text the rows read only the start of.
 * Appended to `text`, under its last entry. `added` gets their ids, `wholes`
 * those of the entries whose rows must read them whole.
 */
function withLongFields(text, rng, added, wholes, n = 700) {
  const lines = text.trimEnd().split("\n");
  const ids = lines.map((l) => idOf(l)).filter((id) => typeof id === "string");
  let parent = ids.at(-1) ?? null;
  let second = 0;
  const long = (word, size = n) => `${word} `.repeat(Math.ceil(size / word.length));
  const add = (fields, { whole = false, id = rng.hex8() } = {}) => {
    if (whole) wholes.add(id);
    added.add(id);
    second++;
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
    lines.push(JSON.stringify({ type: fields.type, id, parentId: parent, timestamp, ...fields }));
    parent = id;
    return id;
  };
  const message = (message, how) => add({ type: "message", message: { timestamp: 1, ...message } }, how);
  const whole = { whole: true };
  const longId = `id-${"x".repeat(n)}`;
  const call = `call_${"y".repeat(n)}`;
  const cut = `${"é".repeat(n - 100)}`; // cut past 512 (or past the 200 of the content previews)
  add(
    { type: "message", message: { role: "user", content: `\n\t ${long("start")}`, timestamp: 1 } },
    { ...whole, id: longId },
  );
  message({ role: "user", content: [{ type: "text", text: `${" ".repeat(900)}${long("late")}` }] });
  message({ role: "user", content: `${"\ufeff".repeat(n)}x` });
  message({ role: "user", content: [{ type: "image", data: "A".repeat(5000), mimeType: "image/png" }] });
  message(
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: long("hmm") },
        {
          type: "toolCall",
          id: call,
          name: "read",
          arguments: { path: `/home/u/${"dir/".repeat(Math.round(n / 3.5))}x.ts`, offset: 3 },
        },
        { type: "toolCall", id: "c2", name: "grep", arguments: { pattern: long("pat"), path: "/home/u/src" } },
        { type: "toolCall", id: "c3", name: "bash", arguments: { command: long("make") } },
      ],
      stopReason: "toolUse",
    },
    whole,
  );
  // Calls to other tools, whose rows show all their arguments, apart: such a
  // message is read again whole, the one above from its content preview.
  message(
    {
      role: "assistant",
      content: [
        { type: "toolCall", id: "c4", name: "my_tool", arguments: { body: long("arg"), n: 1 } },
        { type: "toolCall", id: "c5", name: `tool_${"z".repeat(n - 100)}`, arguments: {} },
      ],
      stopReason: "toolUse",
    },
    whole,
  );
  for (const [id, name] of [
    [call, "read"],
    ["c2", "grep"],
    ["c3", "bash"],
    ["c4", "my_tool"],
    ["c5", "other"],
  ]) {
    const content = [{ type: "text", text: long("out") }];
    message({ role: "toolResult", toolCallId: id, toolName: name, content }, { whole: id === call });
  }
  message({ role: "toolResult", toolCallId: "none", toolName: long("name"), content: [] }, whole);
  message({ role: "assistant", content: [], stopReason: "error", errorMessage: `\n  ${long("failed")}` });
  message({ role: "assistant", content: [{ type: "text", text: long("answer", 5000) }], stopReason: "stop" });
  message({ role: "bashExecution", command: long("ls"), output: long("file"), exitCode: 0 }, whole);
  message({ role: long("role"), content: "?" }, whole);
  add({ type: "custom_message", customType: "note", content: long("custom"), display: true }, whole);
  add(
    { type: "custom_message", customType: long("kind"), content: [{ type: "text", text: cut }], display: true },
    whole,
  );
  add({ type: "branch_summary", fromId: ids[0] ?? "root", summary: long("summary") }, whole);
  add({ type: "compaction", summary: long("compact"), firstKeptEntryId: ids[0] ?? "", tokensBefore: 12345 });
  add({ type: "model_change", provider: "p", modelId: long("model") }, whole);
  add({ type: "thinking_level_change", thinkingLevel: long("level") }, whole);
  add({ type: "custom", customType: long("ext"), data: { big: long("data") } }, whole);
  add({ type: "context_edit", targetId: longId, replacement: null }, whole);
  add({ type: "context_edit", targetId: long("target"), replacement: { role: "user", content: long("new") } }, whole);
  add({ type: "label", targetId: longId, label: long("mark") }, whole);
  add({ type: "session_info", name: long("title") }, whole);
  add({ type: "session_info", name: ` ${"\t ".repeat(n)}t` });
  message({ role: "user", content: "the end" });
  return `${lines.join("\n")}\n`;
}

const files = {};
for (let k = 0; k < COUNT; k++) {
  const { text } = generateSession(caseSeed(MASTER, k), { maxEntries: 40, pi16: k % 2 === 0 });
  files[`gen-${k}.jsonl`] = migrate(text);
}
const added = new Set();
const wholes = new Set();
files["long.jsonl"] = withLongFields(
  migrate(generateWithHeader(caseSeed(MASTER, 50), { maxEntries: 20 }).text),
  new Rng(caseSeed(MASTER, 51)),
  added,
  wholes,
);
// Fields past the 200 units the messages' content previews keep, within the 512 of the others.
files["mid.jsonl"] = withLongFields(
  migrate(generateWithHeader(caseSeed(MASTER, 52), { maxEntries: 20 }).text),
  new Rng(caseSeed(MASTER, 53)),
  new Set(),
  new Set(),
  300,
);
const f = folder(files);
after(f.cleanup);

/** Ids to take as the leaf: the first, one in the middle, the last, and one long one. */
function someIds(text) {
  const ids = text
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((l) => idOf(l))
    .filter((id) => typeof id === "string");
  const long = ids.find((id) => id.length > 512);
  return [...new Set([ids[0], ids[ids.length >> 1], ids.at(-1), long])].filter((id) => id !== undefined);
}

test("tree by piece prints what the entries give, for every filter and option", async () => {
  const rng = new Rng(MASTER);
  let compared = 0;
  for (const [name, text] of Object.entries(files)) {
    const path = f.path(name);
    const leaves = [undefined, ...someIds(text), "no-such-id"];
    for (const filter of FILTERS) {
      for (const leaf of leaves) {
        for (const json of [false, true]) {
          const argv = ["tree", path, "--filter", filter];
          if (leaf !== undefined) argv.push("--leaf", leaf);
          if (json) argv.push("--json");
          const pieceSize = String(rng.int(1, 64));
          const isTTY = !json && rng.chance(0.5); // colours on half the time
          const whole = await run(argv, { fs: nodeFs, isTTY });
          const pieces = await run(argv, { env: { SESSION_TREE_PIECE_SIZE: pieceSize }, isTTY });
          const what = `${name}: ${argv.slice(2).join(" ").slice(0, 80)}, pieces of ${pieceSize} (CLI_TREE_PREVIEW_SEED=${MASTER})`;
          assert.deepEqual([pieces.code, pieces.stdout, pieces.stderr], [whole.code, whole.stdout, whole.stderr], what);
          if (leaf === "no-such-id") {
            assert.equal(pieces.code, 2, what);
            assert.match(pieces.stderr, /no entry with id 'no-such-id'/, what);
          } else assert.equal(pieces.code, 0, what);
          compared++;
        }
      }
    }
  }
  assert.ok(compared >= 7 * 5 * 2 * 4, `${compared} compared`);
});

/** A source over `text` that counts its reads, and whether each was an entry's range. */
function countingSource(text) {
  const bytes = new TextEncoder().encode(text);
  const reads = [];
  return {
    reads,
    size: bytes.length,
    read(offset, length) {
      reads.push([offset, length]);
      return bytes.slice(offset, offset + length);
    },
  };
}

/** Whether `value` holds a string with 512 UTF-16 units that are not whitespace (one the preview may cut). */
function holdsLong(value) {
  if (typeof value === "string") return value.replace(/\s+/g, "").length >= 512;
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([k, v]) => holdsLong(k) || holdsLong(v));
}

test("the rows come from the previews: an entry is read only where a cut may show", () => {
  let readAgain = 0;
  for (const [name, text] of Object.entries(files)) {
    const source = countingSource(text);
    const roots = getTree(source, { preview: TREE_FIELDS, pieceSize: 4096 });
    const indexReads = source.reads.length;
    for (const filter of FILTERS) treeRows(roots, { filter, leafId: null });
    const again = source.reads.slice(indexReads);
    const encoder = new TextEncoder();
    const lineAt = new Map();
    let offset = 0;
    for (const l of text.split("\n")) {
      lineAt.set(offset, l);
      offset += encoder.encode(l).length + 1;
    }
    const read = new Set(again.map(([at]) => idOf(lineAt.get(at))));
    const what = `${name} (CLI_TREE_PREVIEW_SEED=${MASTER})`;
    assert.equal(read.size, again.length, `${what}: each entry read once`);
    // A generated entry is read again only if a string in it may have been cut.
    for (const [at] of again) assert.ok(holdsLong(JSON.parse(lineAt.get(at))), `${what}: ${lineAt.get(at)}`);
    readAgain += again.length;
    if (name !== "long.jsonl") continue;
    // Of the long entries, those whose rows show (or look up by) a field past the cut.
    assert.deepEqual([...read].filter((id) => added.has(id)).sort(), [...wholes].sort(), what);
    const longId = [...wholes].find((id) => id.length > 512);
    assert.equal(findNode(roots, longId)?.entry.id, longId);
  }
  assert.ok(readAgain >= wholes.size);
});
