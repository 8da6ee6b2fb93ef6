// The viewer used in ways nobody designed for (docs/hunt-viewer.md): files
// dropped on top of each other, odd links, odd text. Each test here failed on
// the viewer before the fix it names.
//
//   node --test tests/viewer/odd-use.test.mjs   (after `make build`)

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { shareData, shareDocument } from "../../www/share.js";
import { dropFile, serveViewer, watchProblems } from "./page.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
mkdirSync(OUT, { recursive: true });

const viewer = serveViewer();

const jsonl = (entries) => `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
const header = (id) => ({ type: "session", version: 3, id, timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" });
const user = (id, parentId, content) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2025-01-01T00:00:01.000Z",
  message: { role: "user", content, timestamp: 1 },
});

/**
 * Opens the viewer with the worker's replies counted by type
 * (`window.__replies`), so a test can wait for work the page ignores.
 */
async function openViewer() {
  const page = await viewer.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = watchProblems(page);
  await page.addInitScript(() => {
    const Base = window.Worker;
    window.__replies = {};
    window.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        this.addEventListener("message", (e) => {
          window.__replies[e.data.type] = (window.__replies[e.data.type] ?? 0) + 1;
        });
      }
    };
  });
  await page.goto(viewer.server.url);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  return { page, problems };
}

const contextText = (page) => page.textContent("[data-testid=context]");

test("a file dropped while another is still being read wins, in the page and in the worker", async () => {
  // An open that awaits (a file read in chunks, a served file fetched) let a
  // second file dropped meanwhile open first; then the first one's open
  // finished and made itself the worker's session: the page showed the
  // second file, whose leaves then failed ("Entry b1 not found") or showed the
  // first file's contexts. The first open is held here at its fetch (a served
  // version 1 file, which the worker fetches whole) until the second is shown.
  const first = jsonl([
    { type: "session", id: "old", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" },
    { type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "first file" } },
  ]);
  let fetched;
  const fetchedWhole = new Promise((resolve) => {
    fetched = resolve;
  });
  let release;
  const released = new Promise((resolve) => {
    release = resolve;
  });
  const http = viewer.server.server;
  const [serveStatic] = http.listeners("request");
  http.removeAllListeners("request");
  http.on("request", async (req, res) => {
    if (!req.url.startsWith("/held.jsonl")) return serveStatic(req, res);
    const bytes = Buffer.from(first);
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      res.writeHead(206, { "content-range": `bytes ${from}-${to}/${bytes.length}` });
      return res.end(bytes.subarray(from, to + 1));
    }
    fetched();
    await released;
    res.writeHead(200, { "content-type": "application/jsonl" });
    res.end(bytes);
  });
  try {
    const { page, problems } = await openViewer();
    const ended = () => page.evaluate(() => (window.__replies.opened ?? 0) + (window.__replies.error ?? 0));
    const before = await ended();
    // Not awaited: it ends once the held fetch is answered.
    await page.evaluate(
      ({ url, size }) => {
        window.__viewer.open({ remote: { url, size, head: "00000000" } }, "held.jsonl");
      },
      { url: `${viewer.server.url}held.jsonl`, size: Buffer.byteLength(first) },
    );
    await fetchedWhole;
    await dropFile(page, jsonl([header("s"), user("b1", null, "hello from the second file")]), "small.jsonl");
    assert.equal(await page.textContent("#file-name"), "small.jsonl");
    release();
    // Both opens have ended in the worker (the first one's reply is ignored by the page).
    await page.waitForFunction((n) => (window.__replies.opened ?? 0) + (window.__replies.error ?? 0) >= n, before + 2);
    assert.equal(await ended(), before + 2);
    // Ask the worker again for the shown file's leaf: it must still hold that file.
    const answered = () => page.evaluate(() => (window.__replies.selected ?? 0) + (window.__replies.error ?? 0));
    const asked = await answered();
    await page.evaluate(() => window.__viewer.select("b1"));
    await page.waitForFunction((n) => (window.__replies.selected ?? 0) + (window.__replies.error ?? 0) > n, asked);
    // The reply is rendered in the task that received it.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    assert.equal(await page.textContent("#file-name"), "small.jsonl");
    assert.match(await contextText(page), /hello from the second file/);
    assert.equal(await page.textContent("#banners"), "");
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    release();
    http.removeAllListeners("request");
    http.on("request", serveStatic);
  }
});

test("a long label cuts itself in its row, not the entry's text and time", async () => {
  // The label's tag did not shrink: 200 characters of label pushed the row's
  // text and time out of the row (a session labelled on every entry showed
  // labels only).
  const label = `release candidate ${"notes ".repeat(40)}`;
  const text = jsonl([
    header("s"),
    user("a", null, "the entry's own text"),
    { type: "label", id: "l", parentId: "a", timestamp: "2025-01-01T00:00:02.000Z", targetId: "a", label },
  ]);
  const { page, problems } = await openViewer();
  await dropFile(page, text, "labels.jsonl");
  const box = await page.$eval('.row[data-entry-id="a"]', (row) => {
    const r = (e) => e.getBoundingClientRect();
    return {
      row: r(row).right,
      time: r(row.querySelector(".row-time")).right,
      text: r(row.querySelector(".row-text")).width,
      tag: row.querySelector(".tag").title,
    };
  });
  assert.ok(box.time <= box.row, `the time ends at ${box.time}, the row at ${box.row}`);
  assert.ok(box.text >= 100, `the entry's text is ${box.text} px wide`);
  assert.equal(box.tag, label, "the whole label is the tag's title");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a tool call's long argument name leaves its value inside the message", async () => {
  // `.args` was `max-content 1fr`: a long name took the width and its value
  // ran out of the message box, past the panel's edge.
  const name = `option_${"x".repeat(60)} with ${"words ".repeat(30)}`;
  const assistant = {
    type: "message",
    id: "b",
    parentId: "a",
    timestamp: "2025-01-01T00:00:02.000Z",
    message: {
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "grep", arguments: { [name]: "the value of it", short: "v" } }],
      provider: "p",
      model: "m",
      api: "a",
      stopReason: "toolUse",
      timestamp: 2,
    },
  };
  const { page, problems } = await openViewer();
  await dropFile(page, jsonl([header("s"), user("a", null, "go"), assistant]), "args.jsonl");
  await page.waitForSelector("[data-testid=context] .args dd");
  const out = await page.$$eval("[data-testid=context] .args", (lists) =>
    lists.flatMap((dl) => {
      const call = dl.closest(".tool-call").getBoundingClientRect();
      return [...dl.children]
        .map((e) => ({ tag: e.tagName, text: e.textContent.slice(0, 20), r: e.getBoundingClientRect() }))
        .filter(({ r }) => r.right > call.right + 0.5 || r.width < 40)
        .map(({ tag, text, r }) => `${tag} ${text}: ${r.left}-${r.right}, the call ends at ${call.right}`);
    }),
  );
  assert.deepEqual(out, []);
  assert.deepEqual(problems, []);
  await page.close();
});

test("an empty file, or one with no line read, is not called a version 1 session", async () => {
  // migrate([]) is true (pi's rule: no header, version 1), so an empty file
  // was "a version 1 session … migrated to version 3 in memory", with a
  // download of the "migrated" (empty) file.
  const { page, problems } = await openViewer();
  for (const [text, name] of [
    ["", "empty.jsonl"],
    ["not a session\n", "prose.jsonl"],
  ]) {
    await dropFile(page, text, name);
    const banners = await page.textContent("#banners");
    assert.match(banners, /No entries could be read from this file/, name);
    assert.doesNotMatch(banners, /version 1|migrated/, name);
    assert.equal(await page.$("[data-testid=download-migrated]"), null, name);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("on a 360 px phone every row of the sample shows its entry's text, and nothing past the row", async () => {
  // The kind, the "not sent" mark, the tags and the time did not shrink: at
  // 360 px most rows showed no text of their entry (0 px wide), and some
  // times ran out of the row.
  const page = await viewer.browser.newPage({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
  const problems = watchProblems(page);
  await page.goto(viewer.server.url);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  await page.click(".filter[data-filter=all]");
  await page.waitForFunction(() => window.__viewer.state.filter === "all");
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const rows = await page.$$eval("#graph .row[data-entry-id]", (rows) =>
    rows.map((row) => {
      const right = row.getBoundingClientRect().right;
      const past = [...row.querySelectorAll(".row-body > *")].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 1 && r.right > right + 0.5;
      });
      return {
        id: row.dataset.entryId,
        text: row.querySelector(".row-text").getBoundingClientRect().width,
        past: past.map((e) => e.className),
        time: row.querySelector(".row-time")?.textContent ?? "",
      };
    }),
  );
  assert.ok(rows.length >= 10, `rows: ${rows.length}`);
  const bad = rows.filter((r) => r.text < 40 || r.past.length);
  assert.deepEqual(bad, []);
  // The time is still in each row, for screen readers.
  assert.ok(rows.every((r) => r.time !== ""));
  assert.deepEqual(problems, []);
  await page.close();
});

test("the Entry tab's \"Make this the leaf\" keeps the keyboard's focus", async () => {
  // Choosing the leaf there redraws the tab, which removed the focused button:
  // the focus fell to the page's body, and Tab started again from the top.
  const { page, problems } = await openViewer();
  await page.focus("#graph");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  // The graph draws the cursor on the next animation frame: read it after that frame (under
  // load, reading at once gave the first move's entry, and the tab then showed the second's).
  const cursor = await page.evaluate(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const graph = document.getElementById("graph");
    return document.getElementById(graph.getAttribute("aria-activedescendant")).dataset.entryId;
  });
  await page.click(".tab[data-tab=entry]");
  await page.waitForSelector(`#panel-entry .entry-head .mono:text-is("${cursor}")`);
  await page.focus("#panel-entry .entry-head button");
  await page.evaluate(() => {
    window.__button = document.activeElement;
  });
  await page.keyboard.press("Enter");
  await page.waitForFunction((id) => document.querySelector("[data-testid=context]")?.dataset.leaf === id, cursor);
  // The tab is drawn again.
  await page.waitForFunction(() => document.querySelector("#panel-entry .entry-head button") !== window.__button);
  const focused = await page.evaluate(() => {
    const a = document.activeElement;
    return { inPanel: document.getElementById("panel-entry").contains(a), text: a.textContent };
  });
  assert.deepEqual(focused, { inPanel: true, text: "Make this the leaf" });
  assert.deepEqual(problems, []);
  await page.close();
});

test("in forced colours the checked filter, the selected tab and the keyboard's row still stand out", async () => {
  // Forced colours (Windows' high contrast) drop backgrounds and box shadows
  // and paint every border alike: the checked filter, the selected tab and
  // the graph's cursor row looked exactly like the others.
  const { page, problems } = await openViewer();
  await page.emulateMedia({ forcedColors: "active" });
  await page.focus("#graph");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await page.waitForSelector("#graph .row.cursor:not(.selected)");
  const looks = await page.evaluate(() => {
    const look = (e) => {
      const s = getComputedStyle(e);
      return [
        s.backgroundColor,
        s.color,
        s.boxShadow,
        `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`,
        s.borderBottomColor,
        s.borderLeftColor,
      ].join(" | ");
    };
    const pair = (on, off) => ({ on: look(document.querySelector(on)), off: look(document.querySelector(off)) });
    return {
      filter: pair(".filter[aria-checked=true]", ".filter[aria-checked=false]"),
      tab: pair(".tab[aria-selected=true]", ".tab[aria-selected=false]"),
      row: pair("#graph .row.cursor", "#graph .row:not(.cursor):not(.selected)"),
    };
  });
  for (const [what, { on, off }] of Object.entries(looks)) assert.notEqual(on, off, `${what}: ${on}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a shared file with a long label neither scrolls sideways on a phone nor hides the row's text", async () => {
  // The shared file's `.tag` was `flex: none; white-space: nowrap`: a long
  // label ran out of its row, past the page (which then scrolled sideways),
  // and the row's text got no room.
  const label = `a label that goes on ${"and on ".repeat(40)}`;
  const nodes = [user("u", null, "the entry's own text"), user("v", "u", "the leaf")];
  const projection = {
    entries: nodes.map((e) => ({ sourceEntry: e, messages: [e.message] })),
    thinkingLevel: "off",
    model: null,
  };
  const data = shareData({ title: "T", nodes, labels: [label, null], leafId: "v", projection, redacted: 0 });
  const jsonl = `${JSON.stringify(header("s"))}\n`;
  const script = readFileSync(here("../../www/share-view.js"), "utf8");
  const file = `${OUT}odd-shared.html`;
  writeFileSync(file, shareDocument({ title: "T", jsonl, data, script }));
  const page = await viewer.browser.newPage({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
  const problems = watchProblems(page);
  await page.goto(`file://${file}`);
  await page.waitForSelector('[data-entry-id="u"] .summary');
  const seen = await page.evaluate(() => ({
    sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    text: document.querySelector('[data-entry-id="u"] .summary').getBoundingClientRect().width,
    title: document.querySelector('[data-entry-id="u"] .tag').title,
  }));
  assert.equal(seen.sideways, 0, "the page does not scroll sideways");
  assert.ok(seen.text >= 40, `the row's text is ${seen.text} px wide`);
  assert.equal(seen.title, label);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a link to an entry the file lacks says so, and the address names the leaf shown", async () => {
  // `#leaf=nowhere` opened the file at its last entry without a word, and the
  // address kept naming `nowhere`: a copied link pointed at nothing. The sample
  // shown first keeps the link for the file it was made for (docs/hunt-leftovers2.md).
  const page = await viewer.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = watchProblems(page);
  await page.goto(`${viewer.server.url}#leaf=nowhere`);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  assert.equal(await page.evaluate(() => location.hash), "#leaf=nowhere");
  assert.match(await page.textContent("#banners"), /nowhere is not in the sample/);
  await dropFile(page, jsonl([header("s"), user("b1", null, "hello")]), "small.jsonl");
  assert.equal(await page.evaluate(() => window.__viewer.state.leafId), "b1");
  assert.equal(await page.evaluate(() => location.hash), "#leaf=b1");
  assert.match(await page.textContent("#banners"), /nowhere is not in this file; its last entry is shown/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a link opened before its session is dropped waits in the address, then leads there", async () => {
  // The sample, shown first, took the link: "not in this file", the address rewritten to
  // the sample's leaf, and the session dropped next opened at its last entry. Then a
  // followed link was told missing in every file opened after.
  const session = jsonl([header("s"), user("b1", null, "one"), user("b2", "b1", "two"), user("b3", "b2", "three")]);
  for (const link of ["#leaf=b2", "?leafId=b2&targetId=b1"]) {
    const page = await viewer.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems = watchProblems(page);
    await page.goto(`${viewer.server.url}${link}`);
    await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
    assert.equal(await page.evaluate(() => location.search + location.hash), link, link);
    assert.match(await page.textContent("#banners"), /b2 is not in the sample: open the session/);
    await dropFile(page, session, "b.jsonl");
    assert.equal(await page.evaluate(() => window.__viewer.state.leafId), "b2", link);
    assert.equal(await page.textContent("#banners"), "");
    if (link.includes("targetId")) {
      await page.waitForSelector('.row.target[data-entry-id="b1"]');
    }
    // Followed there, the link is that file's leaf: the next file lacking it opens without a word.
    await dropFile(page, jsonl([header("t"), user("c1", null, "other")]), "c.jsonl");
    assert.equal(await page.evaluate(() => window.__viewer.state.leafId), "c1");
    assert.equal(await page.evaluate(() => location.search + location.hash), "#leaf=c1");
    assert.equal(await page.textContent("#banners"), "", link);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("#leaf= typed for an entry the open file lacks says so, and the address goes back to the leaf shown", async () => {
  // It was ignored without a word: the address kept naming an entry the file lacks
  // (docs/hunt-leftovers2.md).
  const { page, problems } = await openViewer();
  await dropFile(page, jsonl([header("s"), user("b1", null, "one"), user("b2", "b1", "two")]), "b.jsonl");
  const leaf = await page.evaluate(() => window.__viewer.state.leafId);
  await page.evaluate(() => {
    location.hash = "#leaf=nowhere";
  });
  await page.waitForFunction(() => /nowhere is not in this file/.test(document.getElementById("banners").textContent));
  await page.waitForFunction((id) => location.hash === `#leaf=${id}`, leaf);
  assert.equal(await page.evaluate(() => window.__viewer.state.leafId), leaf);
  // Typed again: one banner, not two.
  await page.evaluate(() => {
    location.hash = "#leaf=elsewhere";
  });
  await page.waitForFunction(() =>
    /elsewhere is not in this file/.test(document.getElementById("banners").textContent),
  );
  assert.equal(await page.locator("#banners .banner").count(), 1);
  // An entry the file has is still followed.
  const ids = await page.evaluate(() => window.__viewer.visibleIds());
  const other = ids.find((id) => id !== leaf);
  await page.evaluate((id) => {
    location.hash = `#leaf=${id}`;
  }, other);
  await page.waitForFunction((id) => window.__viewer.state.leafId === id, other);
  assert.equal(await page.evaluate(() => location.hash), `#leaf=${other}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a message entry without a message shows a note in the context, not 'undefined'", async () => {
  // pi 1.6.0's buildSessionContext throws on it; ours keeps an empty place, which the
  // context drew as a "value" whose JSON was the word undefined.
  const { page, problems } = await openViewer();
  const broken = { type: "message", id: "b2", parentId: "b1", timestamp: "2025-01-01T00:00:02.000Z" };
  await dropFile(page, jsonl([header("s"), user("b1", null, "hello"), broken, user("b3", "b2", "again")]), "b.jsonl");
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=context] article.msg").length === 3);
  const missing = page.locator("[data-testid=context] article[data-role=missing]");
  assert.equal(await missing.count(), 1);
  assert.match(await missing.textContent(), /No message.*"message" is missing/s);
  assert.match(await missing.getAttribute("aria-label"), /^Missing message, 2 of 3, from entry b2/);
  assert.doesNotMatch(await contextText(page), /undefined/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a file dropped after a leaf was picked opens at its own last entry, with no word of the old leaf", async () => {
  const { page, problems } = await openViewer();
  const ids = await page.evaluate(() => window.__viewer.visibleIds());
  await page.evaluate((id) => window.__viewer.select(id), ids[2]);
  await page.waitForFunction((id) => location.hash === `#leaf=${id}`, ids[2]);
  await dropFile(page, jsonl([header("s"), user("b1", null, "hello")]), "small.jsonl");
  assert.equal(await page.evaluate(() => location.hash), "#leaf=b1");
  assert.equal(await page.textContent("#banners"), "");
  assert.deepEqual(problems, []);
  await page.close();
});

test("Alt+← and Ctrl+L, Ctrl+K… in the graph, the tabs or the filters are left to the browser", async () => {
  // The graph's keys (← parent, l, k, h, j) and the tabs' and filters' arrows
  // ignored the modifiers: Alt+← (Back) moved the cursor, the tab or the
  // filter instead, and Ctrl+L, Ctrl+K… were swallowed (default prevented).
  // Headless Chromium has no Back on Alt+←, so what is checked is that the
  // page neither prevents the key's default nor acts on it.
  const { page, problems } = await openViewer();
  await page.evaluate(() => {
    document.addEventListener("keydown", (e) => {
      if ((e.altKey || e.ctrlKey) && e.key !== "Alt" && e.key !== "Control") {
        window.__prevented.push(`${e.key} ${e.defaultPrevented}`);
      }
    });
  });
  const where = () =>
    page.evaluate(() => ({
      cursor: document.getElementById("graph").getAttribute("aria-activedescendant"),
      tab: document.querySelector(".tab[aria-selected=true]").dataset.tab,
      filter: window.__viewer.state.filter,
      focus: document.activeElement.id || document.activeElement.className,
    }));
  await page.focus("#graph");
  await page.keyboard.press("ArrowUp");
  // the cursor is drawn on the next animation frame: let it land before the first reading
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (const target of ["#graph", ".tab[aria-selected=true]", ".filter[aria-checked=true]"]) {
    await page.focus(target);
    const before = await where();
    await page.evaluate(() => {
      window.__prevented = [];
    });
    for (const key of ["Alt+ArrowLeft", "Alt+ArrowRight", "Control+l", "Control+k", "Control+h", "Control+j"]) {
      await page.keyboard.press(key);
    }
    // A filter or a view would be asked of the worker: give it the time a search takes.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    assert.deepEqual(await where(), before, target);
    assert.deepEqual(
      await page.evaluate(() => window.__prevented),
      ["ArrowLeft false", "ArrowRight false", "l false", "k false", "h false", "j false"],
      target,
    );
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("a click whose press and release straddle a frame of the graph still selects its entry", async () => {
  // Every frame of the graph (a scroll, a live append, a selection) made its
  // rows anew: a press on one row and a release on its replacement is no
  // click, so the entry was not selected (under load a test's click was lost
  // one time in two). Here the frame comes between the press and the release.
  const text = jsonl([header("s"), user("a", null, "first"), user("b", "a", "second"), user("c", "a", "third")]);
  const { page, problems } = await openViewer();
  await dropFile(page, text, "straddle.jsonl");
  await page.waitForFunction(() => document.querySelector("[data-testid=context]")?.dataset.leaf === "c");
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const row = await page.$('.row[data-entry-id="b"]');
  const box = await row.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // A scroll event makes the graph draw its next frame.
  await page.evaluate(() => document.getElementById("graph").dispatchEvent(new Event("scroll")));
  await frame();
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector("[data-testid=context]")?.dataset.leaf === "b");
  assert.equal(await page.getAttribute('.row[data-entry-id="b"]', "aria-selected"), "true");
  assert.deepEqual(problems, []);
  await page.close();
});
