// `serve`'s viewer and the address (docs/hunt-leftovers2.md): a `#leaf=` typed for an
// entry the session lacks is said so, the address keeping its `?session=`; Back to a
// session whose `#leaf=` the viewer wrote opens it there (the step is no fragment
// navigation, so no `hashchange` judges that leaf against the session left); the viewer's
// "back to the list" there shows the list instead of leaving the site; on the list, a
// typed `#leaf=` is left alone (no session is in view).
//
//   node --test tests/serve/address.test.mjs   (after `make build`)

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { startServer } from "../../pkg/cli/serve/server.js";
import { launchChromium } from "../browser/chromium.mjs";

const jsonl = (entries) => `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
const header = (id) => ({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" });
const user = (id, parentId) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:01.000Z",
  message: { role: "user", content: `text of ${id}`, timestamp: 1 },
});

test("a session's address: Back to its leaf, a #leaf= it lacks, back to the list, a #leaf= on the list", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "st-serve-address-"));
  writeFileSync(path.join(dir, "a.jsonl"), jsonl([header("a"), user("a1", null), user("a2", "a1"), user("a3", "a2")]));
  writeFileSync(path.join(dir, "b.jsonl"), jsonl([header("b"), user("b1", null), user("b2", "b1")]));
  const server = await startServer({ dir, port: 0 });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const shown = (n, leaf) =>
      page.waitForFunction(
        ([n, leaf]) => window.__viewer?.opened >= n && window.__viewer.state.leafId === leaf,
        [n, leaf],
        { timeout: 20_000 },
      );
    await page.goto(`${server.url}?session=a.jsonl`);
    await shown(1, "a3");
    await page.evaluate(() => window.__viewer.select("a2"));
    await page.waitForFunction(() => location.hash === "#leaf=a2");
    // Session b, as a click in the list opens it: a new history entry.
    await page.evaluate(() => window.__folder.openSession("b.jsonl"));
    await shown(2, "b2");
    await page.goBack();
    await shown(3, "a2");
    assert.equal(await page.evaluate(() => location.search + location.hash), "?session=a.jsonl#leaf=a2");
    assert.doesNotMatch(await page.textContent("#banners"), /not in this file/);
    await page.evaluate(() => {
      location.hash = "#leaf=nowhere";
    });
    await page.waitForFunction(() =>
      /nowhere is not in this file/.test(document.getElementById("banners").textContent),
    );
    await page.waitForFunction(() => location.search + location.hash === "?session=a.jsonl#leaf=a2");
    assert.equal(await page.evaluate(() => window.__viewer.state.leafId), "a2");
    // On the list, no session is in view: a #leaf= typed there is nobody's to judge.
    await page.evaluate(() => window.__folder.backToList());
    await page.waitForFunction(() => document.body.classList.contains("showing-folder"));
    for (const id of ["nowhere", "a1"]) {
      // Resolves once the page's own hashchange listeners (registered first) have run.
      await page.evaluate(
        (id) =>
          new Promise((resolve) => {
            addEventListener("hashchange", resolve, { once: true });
            location.hash = `#leaf=${id}`;
          }),
        id,
      );
      assert.equal(await page.textContent("#banners"), "", id);
      assert.equal(await page.evaluate(() => location.hash), `#leaf=${id}`);
      assert.equal(await page.evaluate(() => window.__viewer.state.leafId), "a2", id);
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
