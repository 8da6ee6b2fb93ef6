// sessionUsage, Session.usage and UsageLedger against pi 1.6.0 on folders that pi's own
// SessionManager writes (tests/shared/usage-folder.mjs): each file's total is pi's
// getSessionStats, each path's is pi's getSessionStats over getBranch(leaf), each fork side's
// is the same over pi's subtree; unrelated files that share entry ids both count in full, and
// usage fields pi cannot add count as 0 and are reported. USAGE_SEED replays a run.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Session, sessionUsage, UsageLedger } from "session-tree";
import { piSessionStats, SessionManager } from "../shared/pi.mjs";
import { envSeed } from "../shared/rng.mjs";
import { generateUsageFolder } from "../shared/usage-folder.mjs";

const seed = envSeed("USAGE_SEED");
const root = mkdtempSync(join(tmpdir(), "session-tree-usage-"));
after(() => rmSync(root, { recursive: true, force: true }));
const { files } = generateUsageFolder(root, seed, { sessions: 10 });
const replay = `(USAGE_SEED=${seed})`;

/** pi's getSessionStats over exactly `entries`. */
const piStats = (entries) => piSessionStats({ getEntries: () => entries });
/** Our totals in the shape of pi's `tokens` and `cost`. */
const asPi = (t) => ({
  tokens: { input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, total: t.totalTokens },
  cost: t.cost,
});
const piShape = (s) => ({ tokens: s.tokens, cost: s.cost });

test("the generated folder has what the checks need", () => {
  const made = new Set(files.map((f) => f.made));
  assert.ok(files.length >= 10, replay);
  const kinds = new Set();
  for (const f of files) for (const r of sessionUsage(readFileSync(f.path)).records) kinds.add(r.kind);
  // The first session has one of each (tests/shared/usage-folder.mjs).
  for (const k of ["assistant", "toolResult", "usage", "compaction", "branchSummary"])
    assert.ok(kinds.has(k), `${k} records ${replay}`);
  assert.ok(made.has("create") && (made.has("forkFrom") || made.has("createBranchedSession")), replay);
});

test("each file's total is pi's getSessionStats", () => {
  for (const f of files) {
    const bytes = readFileSync(f.path);
    const ours = sessionUsage(bytes);
    const pi = piSessionStats(SessionManager.open(f.path));
    assert.deepEqual(asPi(ours.total), piShape(pi), `${f.path} ${replay}`);
    assert.equal(ours.total.incomplete, 0);
    assert.deepEqual(asPi(Session.open(bytes).usage().total), piShape(pi));
    // What the summarizers cost: pi's accounting over its compactions, then its branch summaries.
    for (const [kind, type] of [
      ["compaction", "compaction"],
      ["branchSummary", "branch_summary"],
    ]) {
      const entries = SessionManager.open(f.path)
        .getEntries()
        .filter((e) => e.type === type && e.usage);
      const split = ours.byKind.total[kind];
      if (entries.length === 0) assert.equal(split, undefined, `${kind} ${replay}`);
      else assert.deepEqual(asPi(split), piShape(piStats(entries)), `${f.path} ${kind} ${replay}`);
    }
    const bare = sessionUsage(bytes, { records: false });
    assert.deepEqual(bare.records, []);
    assert.deepEqual(bare.total, ours.total);
  }
});

test("each leaf's path total is pi's getSessionStats over getBranch(leaf)", () => {
  let leaves = 0;
  for (const f of files) {
    const bytes = readFileSync(f.path);
    const sm = SessionManager.open(f.path);
    const session = Session.open(bytes);
    const ours = sessionUsage(bytes);
    const walk = (nodes) => {
      for (const node of nodes) {
        if (node.children.length > 0) {
          walk(node.children);
          continue;
        }
        const id = node.entry.id;
        const pi = piShape(piStats(sm.getBranch(id)));
        const at = `${f.path} leaf ${id} ${replay}`;
        assert.deepEqual(asPi(sessionUsage(bytes, { leafId: id }).path), pi, at);
        assert.deepEqual(asPi(session.usage(id).path), pi, at);
        const leaf = ours.leaves.find((l) => l.entryId === id);
        assert.ok(leaf, at);
        assert.deepEqual(asPi(leaf.path), pi, at);
        leaves++;
      }
    };
    walk(sm.getTree());
    // The default path is pi's: the current leaf of the file just opened.
    assert.equal(ours.leafId, sm.getLeafId());
    assert.deepEqual(asPi(ours.path), piShape(piStats(sm.getBranch())));
    assert.equal(ours.path.records + ours.abandoned.records, ours.total.records);
  }
  assert.ok(leaves > files.length, `some files branch ${replay}`);
});

test("each fork side costs what pi's entries under it cost", () => {
  const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
  let sides = 0;
  for (const f of files) {
    const sm = SessionManager.open(f.path);
    const ours = sessionUsage(readFileSync(f.path));
    const under = (id) => {
      const out = [];
      const visit = (n) => {
        out.push(n.entry);
        for (const c of n.children) visit(c);
      };
      const find = (nodes) => {
        for (const n of nodes) {
          if (n.entry.id === id) return visit(n);
          find(n.children);
        }
      };
      find(sm.getTree());
      return out;
    };
    for (const fork of ours.forks) {
      assert.ok(sm.getChildren(fork.entryId).length > 1, `${fork.entryId} forks ${replay}`);
      for (const side of fork.sides) {
        const pi = piStats(under(side.entryId));
        assert.deepEqual(asPi(side.usage).tokens, pi.tokens, `${f.path} ${side.entryId} ${replay}`);
        near(side.usage.cost, pi.cost, `${f.path} ${side.entryId} ${replay}`);
        sides++;
      }
    }
  }
  assert.ok(sides > 0, `some file forks ${replay}`);
});

test("unrelated sessions that share entry ids are both counted in full", () => {
  const source = files.find((f) => f.made === "create");
  const text = readFileSync(source.path, "utf8");
  const [header, ...rest] = text.trimEnd().split("\n");
  // The same entries under a header of another session with no parentSession: as if ids
  // had collided (8 hex digits collide in a large folder).
  const other = { ...JSON.parse(header), id: "0199aaaa-0000-7000-8000-000000000000", cwd: "/elsewhere" };
  delete other.parentSession;
  const copy = join(root, "unrelated.jsonl");
  writeFileSync(copy, `${[JSON.stringify(other), ...rest].join("\n")}\n`);

  const ledger = new UsageLedger();
  ledger.add(source.path, readFileSync(source.path));
  ledger.add(copy, readFileSync(copy));
  const whole = piSessionStats(SessionManager.open(source.path));
  const summary = ledger.summary({ by: "session" });
  assert.equal(summary.copies, 0);
  assert.deepEqual(summary.rows.map((r) => r.usage.totalTokens).sort(), [whole.tokens.total, whole.tokens.total]);

  // pi's own fork of the same file is a copy: only what it adds counts.
  const ledger2 = new UsageLedger();
  ledger2.add(source.path, readFileSync(source.path));
  const fork = SessionManager.forkFrom(source.path, "/work/app", join(root, "forks"));
  fork.appendMessage({ role: "user", content: "more", timestamp: 1 });
  const usage = { input: 7, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 12, cost: { total: 0.5 } };
  fork.appendMessage({ role: "assistant", content: [], provider: "p", model: "m", usage, timestamp: 2 });
  ledger2.add(fork.getSessionFile(), readFileSync(fork.getSessionFile()));
  const rows = ledger2.summary({ by: "session" }).rows;
  const forkRow = rows.find((r) => r.key === fork.getSessionFile());
  assert.equal(forkRow.usage.records, 1);
  assert.equal(forkRow.usage.totalTokens, 12);
  assert.equal(rows.find((r) => r.key === source.path).usage.totalTokens, whole.tokens.total);
});

test("usage fields pi cannot add count as 0 and are reported", () => {
  const source = files.find((f) => f.made === "create");
  const entries = readFileSync(source.path, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  const paid = entries.filter((e) => e.type === "message" && e.message.role === "assistant");
  assert.ok(paid.length >= 2, replay);
  // A missing cost, strings for numbers, and no usage at all (pi's getSessionStats throws on that).
  const [a, b] = paid;
  delete a.message.usage.cost;
  const expectedA =
    a.message.usage.input + a.message.usage.output + a.message.usage.cacheRead + a.message.usage.cacheWrite;
  b.message.usage.input = String(b.message.usage.input);
  b.message.usage.cost.total = String(b.message.usage.cost.total);
  const expectedB = b.message.usage.output + b.message.usage.cacheRead + b.message.usage.cacheWrite;
  const c = paid[2];
  if (c) delete c.message.usage;
  const broken = `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;

  const ours = sessionUsage(broken);
  assert.equal(ours.total.incomplete, c ? 3 : 2);
  const records = new Map(ours.records.map((r) => [r.entryId, r]));
  assert.deepEqual(
    [records.get(a.id).cost, records.get(a.id).totalTokens, records.get(a.id).incomplete],
    [0, expectedA, true],
  );
  assert.deepEqual(
    [records.get(b.id).input, records.get(b.id).cost, records.get(b.id).totalTokens, records.get(b.id).incomplete],
    [0, 0, expectedB, true],
  );
  if (c) assert.deepEqual([records.get(c.id).totalTokens, records.get(c.id).incomplete], [0, true]);
  // The rest of the file counts as it did.
  const clean = sessionUsage(readFileSync(source.path));
  const others = (u) =>
    u.records.filter((r) => ![a.id, b.id, c?.id].includes(r.entryId)).reduce((n, r) => n + r.totalTokens, 0);
  assert.equal(others(ours), others(clean));
  assert.equal(ours.total.records, clean.total.records);
});
