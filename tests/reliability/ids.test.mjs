// Fresh ids never collide with ids already in the file. A v1 file where many entries already
// carry 8-hex-digit ids (as a half-migrated or hand-merged file might) is migrated; with
// 200,000 ids taken, about 9 of 200,000 random draws hit a taken id and must be redrawn.
import assert from "node:assert/strict";
import { test } from "node:test";
import { migrate, parseSession, Session } from "session-tree";
import { Rng } from "../shared/rng.mjs";

const HEX8 = /^[0-9a-f]{8}$/;
const N = Number(process.env.ID_PREFILL ?? 200_000);

function prefilled(seed, n, { header = true } = {}) {
  const rng = new Rng(seed);
  const taken = new Set();
  const lines = header ? ['{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}'] : [];
  for (let i = 0; i < n; i++) {
    let id;
    do id = rng.hex8();
    while (taken.has(id));
    taken.add(id);
    lines.push(`{"type":"custom","id":"${id}","parentId":null}`);
    lines.push('{"type":"custom"}');
  }
  return { text: `${lines.join("\n")}\n`, taken };
}

function checkFresh(entries, taken, expectedNew) {
  const seen = new Set();
  let fresh = 0;
  for (const e of entries) {
    if (e.type === "session") continue;
    assert.equal(typeof e.id, "string");
    assert.ok(!seen.has(e.id), `id ${e.id} used twice`);
    seen.add(e.id);
    if (!taken.has(e.id)) {
      fresh++;
      assert.match(e.id, HEX8);
    }
  }
  assert.equal(fresh, expectedNew);
}

test(`v1 text with ${N} ids already taken: ${N} new ids, all distinct from them`, { timeout: 120_000 }, () => {
  const { text, taken } = prefilled(1, N);
  const out = parseSession(migrate(text));
  checkFresh(out, taken, N);
  // Existing ids stay, and an entry without an id is chained to the one before it.
  const first = text.split("\n")[1];
  assert.equal(out[1].id, JSON.parse(first).id);
  assert.equal(out[2].parentId, out[1].id);
});

test(`v1 entry array with ${N} ids taken, and a file without a header`, { timeout: 120_000 }, () => {
  const { text, taken } = prefilled(2, N);
  const entries = parseSession(text);
  assert.equal(migrate(entries), true);
  checkFresh(entries, taken, N);
  const headerless = prefilled(3, N / 4, { header: false });
  checkFresh(parseSession(migrate(headerless.text)), headerless.taken, N / 4);
});

test("Session appends avoid every id in the session", { timeout: 120_000 }, () => {
  const { text, taken } = prefilled(4, N / 2);
  const s = Session.open(text);
  try {
    const all = new Set(s.getEntries().map((e) => e.id));
    assert.equal(all.size, N);
    for (let i = 0; i < 20_000; i++) {
      const id = s.appendCustomEntry("x", i);
      assert.match(id, HEX8);
      assert.ok(!all.has(id), `appended id ${id} collides`);
      all.add(id);
    }
    void taken;
  } finally {
    s.free();
  }
});

test("ids that look like fresh ids in other fields (parentId, targetId) are not mistaken for taken ids", () => {
  // Only `id` fields are taken; a dangling parentId does not reserve an id, but a migrated
  // file must still have unique ids.
  const text = [
    '{"type":"session","id":"s"}',
    '{"type":"custom","parentId":"00000000"}',
    '{"type":"label","targetId":"ffffffff","label":"x"}',
    '{"type":"custom","id":"0000000a"}',
  ].join("\n");
  const out = parseSession(migrate(text));
  const ids = out.slice(1).map((e) => e.id);
  assert.equal(new Set(ids).size, 3);
  assert.equal(ids[2], "0000000a");
});
