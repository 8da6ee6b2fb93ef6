// The viewer on a session written by pi 1.6.0's own SessionManager
// (pi16-session.mjs), in headless Chromium: it opens with no problems; pi's
// links (`?leafId=`, `&targetId=`, `#leaf=`) select and highlight; at each
// leaf the context panel lists pi 1.6.0's buildSessionContext, with edits
// applied and each message's source entry; the System and Composition tabs
// say what pi says. Screenshots land in viewer/output/ (git-ignored);
// UPDATE_SCREENSHOT=1 also refreshes the README's pictures (www/screenshot*.png).
//
//   node --test tests/viewer/pi16.test.mjs

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startStaticServer } from "../../tools/static-server.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { buildSessionContext, buildSessionProjection, getCurrentSystemMessage, piLoad } from "../shared/pi.mjs";
import { watchProblems } from "./page.mjs";
import { pi16Session } from "./pi16-session.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
const WWW = here("../../www/");
mkdirSync(OUT, { recursive: true });

const { text: SESSION, ids } = pi16Session();
const ENTRIES = piLoad(SESSION).filter((e) => e.type !== "session");
const byId = new Map(ENTRIES.map((e) => [e.id, e]));

let server; // www/ with the pi 1.6 session as its sample
let demo; // www/ as it is, for the README's pictures
let browser;
before(async () => {
  writeFileSync(`${OUT}pi16.jsonl`, SESSION);
  const pkg = here("../../pkg/");
  server = await startStaticServer({ root: WWW, mounts: { "/pkg": pkg, "/sample.jsonl": `${OUT}pi16.jsonl` } });
  demo = await startStaticServer({ root: WWW, mounts: { "/pkg": pkg } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await demo?.close();
});

/** Opens the viewer at `address` (query and hash); resolves once the context of `leaf` is shown. */
async function openAt(address, leaf, { base = server, colorScheme = "light" } = {}) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme });
  const problems = watchProblems(page);
  await page.goto(base.url + address);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  await page.waitForFunction(
    (leaf) => {
      const box = document.querySelector("[data-testid=context]");
      return box?.dataset.leaf && (leaf === undefined || box.dataset.leaf === leaf);
    },
    leaf,
    { timeout: 20_000 },
  );
  return { page, problems };
}

const contextItems = (page) =>
  page.$$eval("[data-testid=context] > [data-role]", (els) =>
    els.map((e) => ({
      role: e.dataset.role,
      source: e.dataset.sourceId,
      edited: e.dataset.edited ?? null,
      text: e.textContent,
    })),
  );

const contentText = (c) =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c
          .filter((b) => b?.type === "text")
          .map((b) => b.text)
          .join("\n")
      : "";

test("a pi 1.6.0 session opens with 0 problems, its entries shown as pi's /tree shows them", async () => {
  const { page, problems } = await openAt("");
  assert.equal(await page.textContent("#diag-count"), "0");
  assert.doesNotMatch(await page.textContent("[data-testid=status]"), /problem/);
  assert.equal(await page.$$eval(".banner-warn, .banner-error", (els) => els.length), 0);
  await page.click(".filter[data-filter=all]");
  await page.waitForFunction(() => window.__viewer.state.filter === "all");
  await page.waitForTimeout(150);
  const visible = await page.evaluate(() => window.__viewer.visibleIds());
  // Every entry but the usage entry and the tool-call-only assistant turns
  // (hidden by pi unless they are the leaf) is a row under "all"; none reads as "Other".
  const toolOnly = (e) =>
    e.type === "message" && e.message.role === "assistant" && !e.message.content.some((b) => b.type === "text");
  assert.deepEqual(
    [...visible].sort(),
    ENTRIES.filter((e) => e.type !== "usage" && !toolOnly(e))
      .map((e) => e.id)
      .sort(),
  );
  assert.equal(await page.$$eval(".kind-badge.k-other", (els) => els.length), 0);
  // pi's texts for context edits and system messages.
  assert.match(
    await page.textContent(`.row[data-entry-id="${ids.replace}"]`),
    new RegExp(`\\[context replace: ${ids.t1}\\]`),
  );
  assert.match(
    await page.textContent(`.row[data-entry-id="${ids.omit}"]`),
    new RegExp(`\\[context omit: ${ids.u2}\\]`),
  );
  assert.match(await page.textContent(`.row[data-entry-id="${ids.sys1}"]`), /System prompt.*\[system\]/);
  // An edit row links to its target: the cursor goes there.
  await page.click(`.row[data-entry-id="${ids.omit}"] [data-jump]`);
  await page.waitForFunction((id) => document.querySelector(".row.cursor")?.dataset.entryId === id, ids.u2);
  // Default and user-only hide the edits and the usage entry, as pi does.
  for (const [filter, hidden] of [
    ["default", [ids.replace, ids.omit, ids.warm]],
    ["user-only", [ids.sys1, ids.replace, ids.warm]],
  ]) {
    await page.click(`.filter[data-filter=${filter}]`);
    await page.waitForFunction((f) => window.__viewer.state.filter === f, filter);
    await page.waitForTimeout(100);
    const shown = await page.evaluate(() => window.__viewer.visibleIds());
    for (const id of hidden) assert.ok(!shown.includes(id), `${filter} shows ${id}`);
  }
  // The usage entry counts in the stats: pi's session-stats accounting over the file.
  await page.click(".tab[data-tab=stats]");
  assert.match(await page.textContent("#panel-stats"), /from usage entries/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("?leafId= selects each leaf, and the context is pi 1.6.0's buildSessionContext there", async () => {
  const leaves = [ids.u5, ids.a6, ids.a4, ids.omit, ids.replace, ids.u3, ids.a7, ids.summary, ids.c1, ids.warm, ids.u1];
  for (const leaf of leaves) {
    const { page, problems } = await openAt(`?leafId=${leaf}`, leaf);
    const expected = buildSessionContext(ENTRIES, leaf).messages;
    const projection = buildSessionProjection(ENTRIES, leaf);
    const items = await contextItems(page);
    const at = `leaf ${leaf} (${byId.get(leaf).type})`;
    assert.deepEqual(
      items.map((m) => m.role),
      expected.map((m) => m.role),
      at,
    );
    assert.deepEqual(
      items.map((m) => m.source),
      projection.entries.flatMap((e) => e.messages.map(() => e.sourceEntry.id)),
      at,
    );
    // Each message shows its own text (the replaced text where an edit applies).
    expected.forEach((m, i) => {
      const probe = (m.role === "compactionSummary" || m.role === "branchSummary" ? m.summary : contentText(m.content))
        .replace(/[`*_#]/g, "")
        .slice(0, 30);
      assert.ok(items[i].text.includes(probe), `${at}: message ${i} lacks ${JSON.stringify(probe)}`);
    });
    const all = items.map((m) => m.text).join("\n");
    const sent = JSON.stringify(expected);
    for (const marker of [
      "LONG-LISTING-ORIGINAL",
      "REPLACED-LISTING",
      "OMITTED-QUESTION",
      "ORIGINAL-REPLY",
      "EDITED-REPLY",
    ])
      assert.equal(all.includes(marker), sent.includes(marker), `${at}: ${marker}`);
    // A replaced message says so; no other does.
    const replaced = items.filter((m) => m.edited === "replaced").map((m) => m.source);
    const expectReplaced = expected
      .map((m, i) => [m, items[i].source])
      .filter(([m, src]) => /REPLACED-LISTING|EDITED-REPLY/.test(contentText(m.content)) && src)
      .map(([, src]) => src);
    assert.deepEqual(replaced, expectReplaced, at);
    for (const m of items.filter((x) => x.edited)) assert.match(m.text, /replaced by context edit/);
    // The address kept pi's link; the leaf row is marked.
    assert.equal(await page.evaluate(() => new URLSearchParams(location.search).get("leafId")), leaf);
    assert.deepEqual(problems, []);
    if (leaf === ids.u5) {
      // The compaction checkpoint comes first and says what it is.
      assert.equal(items[0].source, ids.c1);
      assert.match(items[0].text, /compaction checkpoint/);
      assert.ok(items[0].text.includes("Prefer small, reviewed changes."));
      await page.screenshot({ path: `${OUT}pi16-context.png` });
    }
    if (leaf === ids.omit) {
      // The graph marks the targets of the edits this path applies.
      assert.equal(await page.getAttribute(`.row[data-entry-id="${ids.t1}"] [data-edited]`, "data-edited"), "replaced");
      assert.equal(await page.getAttribute(`.row[data-entry-id="${ids.u2}"] [data-edited]`, "data-edited"), "omitted");
      await page.screenshot({ path: `${OUT}pi16-edits.png` });
    }
    if (leaf === ids.a4) assert.equal(await page.$$eval("[data-edited]", (els) => els.length), 0, "no edit yet at a4");
    await page.close();
  }
});

test("&targetId= scrolls to and highlights its entry, and #leaf= keeps working", async () => {
  const { page, problems } = await openAt(`?leafId=${ids.u5}&targetId=${ids.u3}`, ids.u5);
  await page.waitForSelector(`.row.target[data-entry-id="${ids.u3}"]`);
  assert.equal(await page.$$eval(".row.target", (els) => els.length), 1);
  const inView = await page.$eval(`.row[data-entry-id="${ids.u3}"]`, (row) => {
    const g = document.getElementById("graph").getBoundingClientRect();
    const r = row.getBoundingClientRect();
    return r.top >= g.top && r.bottom <= g.bottom;
  });
  assert.ok(inView, "the target row is scrolled into view");
  assert.deepEqual(await page.$$eval("[data-testid=context] > .target", (els) => els.map((e) => e.dataset.sourceId)), [
    ids.u3,
  ]);
  await page.screenshot({ path: `${OUT}pi16-target.png` });
  // Picking another leaf drops the highlight and pi's query; the address becomes #leaf=.
  await page.click(`.row[data-entry-id="${ids.u4}"]`);
  await page.waitForFunction((id) => document.querySelector("[data-testid=context]").dataset.leaf === id, ids.u4);
  assert.equal(await page.$$eval(".row.target", (els) => els.length), 0);
  assert.equal(await page.evaluate(() => location.search + location.hash), `#leaf=${ids.u4}`);
  await page.close();

  // The page's own way to follow a link (for search results and compare views).
  const { page: p2 } = await openAt("", undefined);
  await p2.evaluate(([leaf, target]) => window.__viewer.goTo(leaf, target), [ids.a6, ids.u4]);
  await p2.waitForSelector(`.row.target[data-entry-id="${ids.u4}"]`);
  assert.equal(await p2.evaluate(() => location.search), `?leafId=${ids.a6}&targetId=${ids.u4}`);
  assert.equal(await p2.evaluate(() => document.querySelector("[data-testid=context]").dataset.leaf), ids.a6);
  await p2.close();

  // A target the filter hides (a context edit): the graph shows every entry to reach it.
  const hidden = await openAt(`?leafId=${ids.u5}&targetId=${ids.edit2}`, ids.u5);
  await hidden.page.waitForSelector(`.row.target[data-entry-id="${ids.edit2}"]`);
  assert.equal(await hidden.page.evaluate(() => window.__viewer.state.filter), "all");
  await hidden.page.close();

  // #leaf= alone, and a hash change.
  const hash = await openAt(`#leaf=${ids.a7}`, ids.a7);
  assert.deepEqual(
    (await contextItems(hash.page)).map((m) => m.role),
    buildSessionContext(ENTRIES, ids.a7).messages.map((m) => m.role),
  );
  await hash.page.evaluate((id) => {
    location.hash = `#leaf=${id}`;
  }, ids.a4);
  await hash.page.waitForFunction((id) => document.querySelector("[data-testid=context]").dataset.leaf === id, ids.a4);
  assert.deepEqual(problems, []);
  assert.deepEqual(hash.problems, []);
  await hash.page.close();
});

test("the System tab shows pi-ai's system prompt at the leaf, with what the latest system message changed", async () => {
  // At u3 the latest system message is sys2: it set date and skills, added edit and removed bash.
  const { page, problems } = await openAt(`?leafId=${ids.u3}`, ids.u3);
  await page.click(".tab[data-tab=system]");
  const box = "[data-testid=system-prompt]";
  const expected = getCurrentSystemMessage(buildSessionContext(ENTRIES, ids.u3).messages);
  assert.ok((await page.textContent(box)).includes(expected.content));
  assert.deepEqual(
    await page.$$eval(`${box} [data-section]`, (els) => els.map((e) => e.dataset.section)),
    Object.keys(expected.sections),
  );
  const tools = await page.$$eval(`${box} [data-tool]`, (els) => els.map((e) => [e.dataset.tool, e.dataset.status]));
  assert.deepEqual(tools, [
    ["read", "same"],
    ["edit", "added"],
    ["bash", "removed"],
  ]);
  assert.deepEqual(
    tools.filter(([, s]) => s !== "removed").map(([n]) => n),
    expected.toolsAdded.map((t) => t.name),
  );
  assert.match(await page.textContent(`${box} [data-section=date]`), /changed/);
  assert.match(await page.textContent(`${box} [data-section=skills]`), /new/);
  await page.screenshot({ path: `${OUT}pi16-system.png` });
  // At u1 only sys1 is in force: both tools were added by it.
  await page.evaluate((id) => {
    location.hash = `#leaf=${id}`;
  }, ids.u1);
  await page.waitForFunction((id) => document.querySelector("[data-testid=system-prompt]").dataset.leaf === id, ids.u1);
  assert.deepEqual(
    await page.$$eval(`${box} [data-tool]`, (els) => els.map((e) => [e.dataset.tool, e.dataset.status])),
    [
      ["read", "added"],
      ["bash", "added"],
    ],
  );
  assert.deepEqual(problems, []);
  await page.close();
});

/** The characters of a context message's text, written out here independently of www/: text, thinking, tool calls, summaries. */
function charsOf(m) {
  const text = (c) =>
    typeof c === "string"
      ? c.length
      : (c ?? []).reduce((a, b) => a + (b?.type === "text" ? (b.text ?? "").length : 0), 0);
  switch (m.role) {
    case "system":
      return (
        text(m.content) +
        Object.values(m.sections ?? {}).reduce((a, v) => a + (v ?? "").length, 0) +
        (m.toolsAdded ? JSON.stringify(m.toolsAdded).length : 0)
      );
    case "assistant":
      return m.content.reduce(
        (a, b) =>
          a +
          (b.type === "text"
            ? b.text.length
            : b.type === "thinking"
              ? b.thinking.length
              : b.type === "toolCall"
                ? b.name.length + JSON.stringify(b.arguments).length
                : 0),
        0,
      );
    case "compactionSummary":
    case "branchSummary":
      return m.summary.length;
    case "bashExecution":
      return m.command.length + m.output.length;
    default:
      return text(m.content);
  }
}

/** Usage with pi 1.6's session-stats accounting, written out here: [tokens, cost]. */
function piStats(entries) {
  let tokens = 0;
  let cost = 0;
  for (const e of entries) {
    const u =
      e.type === "usage" || e.type === "compaction" || e.type === "branch_summary"
        ? e.usage
        : e.type === "message" && (e.message.role === "assistant" || e.message.role === "toolResult")
          ? e.message.usage
          : undefined;
    if (!u) continue;
    tokens += u.input + u.output + u.cacheRead + u.cacheWrite;
    cost += u.cost.total;
  }
  return [tokens, cost];
}

test("the Composition tab: characters by role add up to the context's text, with the estimate and the reported input", async () => {
  for (const leaf of [ids.u5, ids.omit, ids.a7]) {
    const { page, problems } = await openAt(`?leafId=${leaf}`, leaf);
    await page.click(".tab[data-tab=composition]");
    const box = "[data-testid=composition]";
    await page.waitForFunction((id) => document.querySelector("[data-testid=composition]").dataset.leaf === id, leaf);
    const expected = buildSessionContext(ENTRIES, leaf).messages;
    const rows = await page.$$eval(`${box} [data-comp-role]`, (els) =>
      els.map((e) => [e.dataset.compRole, Number(e.dataset.chars), Number(e.dataset.tokens)]),
    );
    const total = expected.reduce((a, m) => a + charsOf(m), 0);
    assert.equal(
      rows.reduce((a, [, c]) => a + c, 0),
      total,
      `leaf ${leaf}`,
    );
    // Per role, as written out above; largest first.
    const perRole = {};
    for (const m of expected) perRole[m.role] = (perRole[m.role] ?? 0) + charsOf(m);
    assert.deepEqual(Object.fromEntries(rows.map(([r, c]) => [r, c])), perRole);
    const tokens = rows.map(([, , t]) => t);
    assert.deepEqual(
      tokens,
      [...tokens].sort((a, b) => b - a),
    );
    for (const [, c, t] of rows) assert.equal(t, Math.ceil(c / 4)); // no images in this session
    // The estimate is stated beside the figures.
    assert.match(await page.textContent(`${box} [data-testid=estimate-note]`), /characters ÷ 4/);
    // The measured figure: the last assistant message's reported input.
    const last = expected.findLast((m) => m.role === "assistant" && m.usage);
    assert.equal(
      await page.getAttribute(`${box} [data-reported]`, "data-reported"),
      String(last.usage.input + last.usage.cacheRead + last.usage.cacheWrite),
    );
    // The path's tokens and cost beside the whole file's.
    const path = [];
    for (let e = byId.get(leaf); e; e = byId.get(e.parentId)) path.unshift(e);
    const cells = await page.$$eval(`${box} [data-testid=usage-table] tr`, (trs) =>
      trs.map((tr) => [...tr.children].map((c) => c.textContent)),
    );
    const row = (label) => cells.find((c) => c[0] === label);
    const [pathTokens, pathCost] = piStats(path);
    const [fileTokens, fileCost] = piStats(ENTRIES);
    assert.deepEqual(row("cost").slice(1), [`$${pathCost.toFixed(4)}`, `$${fileCost.toFixed(4)}`]);
    assert.deepEqual(row("tokens (input + output + cache)").slice(1), [
      pathTokens.toLocaleString("en-US"),
      fileTokens.toLocaleString("en-US"),
    ]);
    if (leaf === ids.u5) await page.screenshot({ path: `${OUT}pi16-composition.png` });
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("the theme follows the system until the toggle picks one, and the choice is remembered", async () => {
  const background = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const { page, problems } = await openAt("", undefined, { base: demo, colorScheme: "dark" });
  const dark = await background(page);
  assert.equal(await page.textContent("[data-testid=theme]"), "Theme: auto");
  await page.click("[data-testid=theme]"); // light, whatever the system says
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
  const light = await background(page);
  assert.notEqual(light, dark);
  await page.click("[data-testid=theme]"); // dark
  assert.equal(await background(page), dark);
  await page.emulateMedia({ colorScheme: "light" });
  assert.equal(await background(page), dark, "the choice wins over the system's");
  await page.reload();
  await page.waitForFunction(() => window.__viewer?.opened >= 1);
  assert.equal(await page.textContent("[data-testid=theme]"), "Theme: dark");
  assert.equal(await background(page), dark, "remembered across a reload");
  await page.click("[data-testid=theme]"); // auto: the system's light again
  assert.equal(await background(page), light);
  assert.deepEqual(problems, []);
  await page.close();
});

test("screenshots of the demo in light and dark (the README's, on request)", async () => {
  // The whole page on the Context tab, then the side panel on the System and Composition tabs.
  for (const scheme of ["light", "dark"]) {
    const { page, problems } = await openAt("", undefined, { base: demo, colorScheme: scheme });
    const suffix = scheme === "dark" ? "-dark" : "";
    const shots = [`screenshot${suffix}.png`];
    await page.screenshot({ path: `${OUT}${shots[0]}` });
    for (const tab of ["system", "composition"]) {
      await page.click(`.tab[data-tab=${tab}]`);
      await page.waitForTimeout(150);
      const name = `screenshot-${tab}${suffix}.png`;
      await page.locator(".side").screenshot({ path: `${OUT}${name}` });
      shots.push(name);
    }
    if (process.env.UPDATE_SCREENSHOT === "1") for (const s of shots) copyFileSync(`${OUT}${s}`, `${WWW}${s}`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});
