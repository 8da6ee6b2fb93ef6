// readUsage (pkg/files/folder.cjs, what `session-tree usage` reads a folder with) reads files
// one after another into one reused buffer: a small file read after a big one must see only
// its own bytes, a file bigger than the buffer must be read whole, and a file that cannot be
// read is skipped with its reason. Each file's total must be what `sessionUsage` gives for
// the same bytes read on their own. Sizes and order come from the seed (READ_USAGE_SEED).

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { sessionUsage } from "session-tree";
import { readUsage } from "../../pkg/files/folder.cjs";
import { makePi16Session } from "../bench/workloads.mjs";
import { envSeed, Rng } from "../shared/rng.mjs";

const seed = envSeed("READ_USAGE_SEED");
const root = mkdtempSync(join(tmpdir(), "session-tree-read-usage-"));
after(() => rmSync(root, { recursive: true, force: true }));

test(`readUsage reads each file whole into its reused buffer (READ_USAGE_SEED=${seed})`, async () => {
  const rng = new Rng(seed);
  // Entry counts from a few lines to past the 1 MiB first buffer (about 900 bytes an entry),
  // in a random order, so big and small files follow each other.
  const counts = [3, 40, 1500, 2, 3000, 60, rng.range(1, 400), rng.range(1200, 2500)];
  for (let i = counts.length - 1; i > 0; i--) {
    const j = rng.range(0, i);
    [counts[i], counts[j]] = [counts[j], counts[i]];
  }
  const paths = counts.map((n, i) => {
    const path = join(root, `s${i}.jsonl`);
    writeFileSync(path, makePi16Session(rng.int(0, 2 ** 32), n));
    return path;
  });
  const missing = join(root, "missing.jsonl");
  const folder = join(root, "folder.jsonl");
  mkdirSync(folder);
  const progress = [];
  const { ledger, skipped } = await readUsage([...paths.slice(0, 3), missing, folder, ...paths.slice(3)], {
    onProgress: (done, total) => progress.push(`${done}/${total}`),
  });
  assert.ok(
    paths.some((p) => readFileSync(p).length > 1 << 20),
    "one file is bigger than the first buffer",
  );
  assert.deepEqual(
    skipped.map((s) => [s.path, s.error.split(":")[0]]),
    [
      [folder, "EISDIR"],
      [missing, "ENOENT"],
    ],
  );
  assert.equal(progress.at(-1), `${paths.length + 2}/${paths.length + 2}`);
  const rows = ledger.summary({ by: "session", timeZone: "UTC" }).rows;
  ledger.free();
  let paid = 0;
  for (const path of paths) {
    const want = sessionUsage(readFileSync(path), { records: false }).total;
    const got = rows.find((r) => r.key === path)?.usage;
    // a file without a paid request has no row
    assert.deepEqual(got, want.records === 0 ? undefined : want, path);
    if (want.records > 0) paid++;
  }
  assert.equal(rows.length, paid);
  assert.ok(paid >= 5, `most files have paid requests (${paid})`);
});
