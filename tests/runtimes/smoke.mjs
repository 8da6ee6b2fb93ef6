// The package's smoke suite, for any JS runtime with npm packages and Node's
// module API: run by Bun and by Deno (runtimes.test.mjs starts them). It
// imports "session-tree" as ESM and through require(), reads a session's
// bytes with the runtime's own file API, and checks the four functions and
// Session against values worked out by hand from the file below. Prints one
// "ok <name>" line per check and "N passed, 0 failed" at the end; exits 1 on a
// failure.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import * as esm from "session-tree";

const require = createRequire(import.meta.url);
const cjs = require("session-tree");
const fixture = new URL("./fixture.jsonl", import.meta.url);

/** The file's bytes through the runtime's own API. */
async function readBytes() {
  if (typeof Bun !== "undefined") return new Uint8Array(await Bun.file(fixture).arrayBuffer());
  if (typeof Deno !== "undefined") return await Deno.readFile(fixture);
  throw new Error("neither Bun nor Deno");
}

const runtime =
  typeof Bun !== "undefined" ? `bun ${Bun.version}` : typeof Deno !== "undefined" ? `deno ${Deno.version.deno}` : "?";
const checks = [];
const check = (name, fn) => checks.push({ name, fn });

check("ESM and require() give the same exports, one instance", () => {
  const names = [
    "parseSession",
    "migrate",
    "getTree",
    "buildSessionContext",
    "Session",
    "sessionInfo",
    "inspectSession",
  ];
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the check enumerates the exports by name
  for (const name of names) assert.equal(typeof esm[name], "function", name);
  assert.equal(esm.Session, cjs.Session);
  assert.equal(esm.buildSessionContext, cjs.buildSessionContext);
});

check("bytes: parseSession", async () => {
  const bytes = await readBytes();
  assert.ok(bytes instanceof Uint8Array);
  const entries = esm.parseSession(bytes);
  // the header and four entries; the malformed line 4 is skipped
  assert.deepEqual(
    entries.map((e) => e.type),
    ["session", "message", "message", "compaction", "message"],
  );
  assert.equal(entries[1].message.content, "first question");
});

check("bytes: migrate (v1 → v3, every line kept, a Uint8Array back)", async () => {
  const bytes = await readBytes();
  const out = esm.migrate(bytes);
  assert.ok(out instanceof Uint8Array);
  const lines = new TextDecoder().decode(out).split("\n");
  assert.equal(lines.length, 7); // six lines, each ending in a newline
  assert.equal(JSON.parse(lines[0]).version, 3);
  assert.equal(lines[3], '{"type":"message", oops'); // the malformed line, verbatim in its place
  const [a, b] = [JSON.parse(lines[1]), JSON.parse(lines[2])];
  assert.match(a.id, /^[0-9a-f]{8}$/);
  assert.equal(a.parentId, null);
  assert.equal(b.parentId, a.id);
});

check("bytes: getTree (a v1 file is one chain)", async () => {
  const roots = esm.getTree(await readBytes());
  assert.equal(roots.length, 1);
  let depth = 1;
  for (let node = roots[0]; node.children.length > 0; node = node.children[0]) depth++;
  assert.equal(depth, 4);
  assert.equal(roots[0].entry.message.content, "first question");
});

check("bytes: buildSessionContext (the compaction keeps from the second answer)", async () => {
  const context = esm.buildSessionContext(await readBytes());
  assert.deepEqual(
    context.messages.map((m) => m.role),
    ["compactionSummary", "assistant", "user"],
  );
  assert.equal(context.messages[0].summary, "they talked");
  assert.equal(context.messages[2].content, "last question");
  assert.deepEqual(context.model, { provider: "acme", modelId: "m1" });
  assert.equal(context.thinkingLevel, "off");
});

check("fileSource: sessionInfo, countEntries and getTree read the file by piece", async () => {
  const bytes = await readBytes();
  const source = esm.fileSource(fileURLToPath(fixture));
  try {
    assert.equal(source.size, bytes.length);
    assert.deepEqual(esm.sessionInfo(source, { pieceSize: 5 }), esm.sessionInfo(bytes));
    assert.equal(esm.countEntries(source, { pieceSize: 3 }), esm.countEntries(bytes));
    const roots = esm.getTree(source, { pieceSize: 7 });
    assert.equal(roots[0].entry.message.content, "first question");
    assert.equal(esm.buildSessionContext(source).messages.length, esm.buildSessionContext(bytes).messages.length);
  } finally {
    source.close();
  }
  assert.throws(() => source.read(0, 1), /closed/);
});

check("require(): the same answers from the CommonJS entry", async () => {
  const bytes = await readBytes();
  assert.equal(cjs.parseSession(bytes).length, 5);
  assert.equal(cjs.buildSessionContext(bytes).messages.length, 3);
  assert.equal(cjs.getTree(bytes).length, 1);
});

check("Session: open, append, branch, context, pending lines", async () => {
  const session = esm.Session.open(await readBytes());
  assert.equal(session.migrated, true);
  assert.equal(session.getEntries().length, 4);
  const leaf = session.leafId;
  const q = session.appendMessage({ role: "user", content: "one more", timestamp: 10 });
  assert.equal(session.getEntry(q).parentId, leaf);
  session.branch(leaf);
  const other = session.appendMessage({ role: "user", content: "another way", timestamp: 11 });
  assert.equal(session.getChildren(leaf).length, 2);
  assert.equal(session.buildSessionContext().messages.at(-1).content, "another way");
  assert.equal(session.buildSessionContext(q).messages.at(-1).content, "one more");
  assert.deepEqual(
    session.takePendingLines().map((l) => JSON.parse(l).id),
    [q, other],
  );
  session.free();
  const fresh = cjs.Session.create({ cwd: "/tmp" });
  assert.equal(fresh.header.version, 3);
  fresh.free();
});

check("sessionInfo and inspectSession on the bytes", async () => {
  const bytes = await readBytes();
  const info = esm.sessionInfo(bytes);
  assert.equal(info.id, "smoke");
  assert.equal(info.firstMessage, "first question");
  assert.equal(info.messageCount, 3);
  assert.deepEqual(
    esm.inspectSession(bytes).map((d) => [d.kind, d.line]),
    [["malformed-line", 4]],
  );
});

let failed = 0;
for (const { name, fn } of checks) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (error) {
    failed++;
    console.log(`not ok ${name}\n${error?.stack ?? error}`);
  }
}
console.log(`${runtime}: ${checks.length - failed} passed, ${failed} failed`);
if (failed > 0) {
  if (typeof Deno !== "undefined") Deno.exit(1);
  process.exit(1);
}
