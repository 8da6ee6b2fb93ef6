// End-to-end tests of the session viewer (www/) in headless Chromium.
//
//   node --test tests/viewer/        (after `make build` and the tests/ npm install)
//
// Screenshots of every state land in tests/viewer/output/ (git-ignored).

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { getTree, inspectSession, migrate, parseSession } from "session-tree";
import { startStaticServer } from "../../tools/static-server.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { buildSessionContext as piContext, piLoad } from "../shared/pi.mjs";
import { generateLargeSession } from "./large-session.mjs";
import { dropFile, rowOf, watchProblems } from "./page.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
const WWW = here("../../www/");
mkdirSync(OUT, { recursive: true });
const SAMPLE = readFileSync(here("../../www/sample.jsonl"), "utf8");
/** pi 1.6.0's buildSessionContext over a file's text: the expected context. */
const buildSessionContext = (text, leafId) =>
  piContext(
    piLoad(text).filter((e) => e.type !== "session"),
    leafId,
  );

let server;
let browser;
before(async () => {
  writeFileSync(`${OUT}large.jsonl`, generateLargeSession(100_000));
  server = await startStaticServer({ root: WWW, mounts: { "/pkg": here("../../pkg/"), "/fixtures": OUT } });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens the viewer; resolves once the sample (or the hash's leaf) is shown. */
async function openViewer(hash = "", { width = 1440, height = 900 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const problems = watchProblems(page);
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("response", (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith("data:")) problems.push(`foreign request: ${r.url()}`);
  });
  await page.goto(server.url + hash);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  await waitForContext(page);
  return { page, problems };
}

async function waitForContext(page, leaf) {
  await page.waitForFunction(
    (leaf) => {
      const box = document.querySelector("[data-testid=context]");
      return box?.dataset.leaf && (leaf === undefined || box.dataset.leaf === leaf);
    },
    leaf,
    { timeout: 20_000 },
  );
}

const contextRoles = (page) =>
  page.$$eval("[data-testid=context] > [data-role]", (els) => els.map((e) => e.dataset.role));
const statusText = (page) => page.textContent("[data-testid=status]");

/** Drops `text` on the page as a file (page.mjs) and waits for its context. */
async function dropAndShow(page, text, name) {
  await dropFile(page, text, name);
  await waitForContext(page);
}

function leavesOf(source) {
  const leaves = [];
  for (const stack = [...getTree(source)]; stack.length; ) {
    const node = stack.pop();
    if (node.children.length === 0) leaves.push(node.entry.id);
    stack.push(...node.children);
  }
  return leaves;
}

test("the sample renders with its graph, context, stats and no console errors", async () => {
  const { page, problems } = await openViewer();
  const entries = parseSession(SAMPLE).filter((e) => e.type !== "session");
  assert.match(await statusText(page), new RegExp(`^${entries.length} entries`));
  const rows = await page.$$eval(".row[data-entry-id]", (els) => els.length);
  assert.ok(rows > 10, `graph rows: ${rows}`);
  const expected = buildSessionContext(SAMPLE).messages.map((m) => m.role);
  assert.deepEqual(await contextRoles(page), expected);
  assert.equal(await page.textContent("#diag-count"), "0");
  // Legend, filters, kinds.
  assert.equal((await page.$$eval(".legend-item", (els) => els.length)) >= 12, true);
  await page.screenshot({ path: `${OUT}sample.png` });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: `${OUT}sample-dark.png` });
  await page.click(".tab[data-tab=stats]");
  await page.screenshot({ path: `${OUT}stats.png` });
  const stats = await page.textContent("#panel-stats");
  assert.match(stats, /leaves\s*4/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("selecting each leaf shows buildSessionContext for it, in order and by role", async () => {
  const { page, problems } = await openViewer();
  await page.click(".filter[data-filter=all]");
  const leaves = leavesOf(SAMPLE);
  assert.ok(leaves.length >= 4);
  // Every leaf, plus a few inner entries (a compaction, a branch summary, a kept entry).
  const entries = parseSession(SAMPLE);
  const inner = entries
    .filter((e) => ["compaction", "branch_summary", "custom_message"].includes(e.type))
    .map((e) => e.id);
  for (const id of [...leaves, ...inner]) {
    const row = await rowOf(page, id);
    await row.click();
    await waitForContext(page, id);
    const expected = buildSessionContext(SAMPLE, id);
    assert.deepEqual(
      await contextRoles(page),
      expected.messages.map((m) => m.role),
      `leaf ${id}`,
    );
    // The same messages: compare each message's own text.
    const texts = await page.$$eval("[data-testid=context] > [data-role]", (els) => els.map((e) => e.textContent));
    expected.messages.forEach((m, i) => {
      const probe =
        m.role === "user" || m.role === "custom"
          ? typeof m.content === "string"
            ? m.content
            : (m.content.find((b) => b.type === "text")?.text ?? "")
          : m.role === "bashExecution"
            ? m.command
            : m.role === "toolResult"
              ? m.toolName
              : "";
      const first = probe
        .replace(/[`*_#]/g, "")
        .split("\n")[0]
        .slice(0, 24);
      assert.ok(
        texts[i].replace(/\s+/g, " ").includes(first.replace(/\s+/g, " ")),
        `message ${i} of ${id} lacks ${JSON.stringify(first)}`,
      );
    });
    const head = await page.textContent("#context-head");
    if (expected.model) assert.ok(head.includes(expected.model.modelId), head);
    assert.ok(head.includes(`thinking: ${expected.thinkingLevel}`), head);
    assert.equal(await page.evaluate(() => location.hash), `#leaf=${id}`);
  }
  // Entries on the path that the model does not see are marked in the graph.
  const compaction = entries.find((e) => e.type === "compaction");
  const last = leaves.find((id) =>
    buildSessionContext(SAMPLE, id).messages.some((m) => m.role === "compactionSummary"),
  );
  await (await rowOf(page, last)).click();
  await waitForContext(page, last);
  await page.evaluate(() => {
    document.getElementById("graph").scrollTop = 0;
  });
  await page.waitForTimeout(100);
  const unsent = await page.$$eval(".row.unsent", (els) => els.map((e) => e.dataset.entryId));
  assert.ok(unsent.length > 5, `unsent rows: ${unsent}`);
  assert.ok(!unsent.includes(compaction.id));
  await page.screenshot({ path: `${OUT}leaf-after-compaction.png` });
  assert.deepEqual(problems, []);
  await page.close();
});

test("#leaf=<id> selects a leaf, and keyboard navigation moves and selects", async () => {
  const entries = parseSession(SAMPLE);
  const german = entries.find((e) => e.type === "message" && JSON.stringify(e.message).includes("Zwischenspeicher")).id;
  const { page, problems } = await openViewer(`#leaf=${german}`);
  await waitForContext(page, german);
  assert.deepEqual(
    await contextRoles(page),
    buildSessionContext(SAMPLE, german).messages.map((m) => m.role),
  );
  assert.equal(await page.getAttribute(`.row[data-entry-id="${german}"]`, "aria-selected"), "true");
  await page.screenshot({ path: `${OUT}hash-leaf.png` });
  // Changing the hash selects another leaf.
  const first = entries.find((e) => e.type === "message" && e.message.role === "user").id;
  await page.evaluate((id) => {
    location.hash = `#leaf=${id}`;
  }, first);
  await waitForContext(page, first);
  // The system prompt, then the first user message.
  assert.deepEqual(await contextRoles(page), ["system", "user"]);
  // Keyboard: ArrowDown moves the cursor, Enter makes it the leaf.
  await page.focus("#graph");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.waitForFunction((id) => document.querySelector("[data-testid=context]").dataset.leaf !== id, first);
  const leaf = await page.evaluate(() => document.querySelector("[data-testid=context]").dataset.leaf);
  assert.deepEqual(
    await contextRoles(page),
    buildSessionContext(SAMPLE, leaf).messages.map((m) => m.role),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("the entry tab shows the entry under the cursor, raw JSON included", async () => {
  const entries = parseSession(SAMPLE);
  const { page, problems } = await openViewer();
  await page.click(".filter[data-filter=all]");
  await page.click(".tab[data-tab=entry]");
  // A user message, a label and a compaction: each tab shows that very entry.
  const picks = ["message", "label", "compaction"].map((type) => entries.find((e) => e.type === type && e.id));
  for (const entry of picks) {
    await (await rowOf(page, entry.id)).click();
    await page.waitForFunction((id) => document.querySelector(".entry-head")?.textContent.includes(id), entry.id);
    const raw = await page.textContent("#panel-entry .raw pre");
    assert.deepEqual(JSON.parse(raw), entry, entry.type);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

/** pi 1.6's tree selector filters, written out here independently of www/. */
function expectedVisible(source, filter, leafId) {
  const settings = new Set([
    "label",
    "context_edit",
    "custom",
    "model_change",
    "thinking_level_change",
    "session_info",
  ]);
  const out = [];
  for (const stack = [...getTree(source)]; stack.length; ) {
    const node = stack.pop();
    stack.push(...node.children);
    const e = node.entry;
    if (e.type === "usage") continue; // never shown, not even as the leaf
    const role = e.type === "message" ? e.message.role : undefined;
    if (role === "assistant" && e.id !== leafId) {
      const text = e.message.content.some((b) => b.type === "text" && b.text.trim());
      const bad = e.message.stopReason && e.message.stopReason !== "stop" && e.message.stopReason !== "toolUse";
      if (!text && !bad) continue;
    }
    const keep =
      filter === "user-only"
        ? role === "user"
        : filter === "no-tools"
          ? !settings.has(e.type) && role !== "toolResult"
          : filter === "labeled-only"
            ? node.label !== undefined
            : filter === "all"
              ? true
              : !settings.has(e.type);
    if (keep) out.push(e.id);
  }
  return out.sort();
}

test("each filter shows what pi's tree selector shows, and search narrows it", async () => {
  const { page, problems } = await openViewer();
  const leaf = await page.evaluate(() => window.__viewer.state.leafId);
  for (const filter of ["default", "no-tools", "user-only", "labeled-only", "all"]) {
    await page.click(`.filter[data-filter=${filter}]`);
    await page.waitForFunction((f) => window.__viewer.state.filter === f, filter);
    await page.waitForTimeout(100);
    const shown = (await page.evaluate(() => window.__viewer.visibleIds())).sort();
    assert.deepEqual(shown, expectedVisible(SAMPLE, filter, leaf), filter);
    const dom = await page.$$eval(".row[data-entry-id]", (els) => els.map((e) => e.dataset.entryId));
    for (const id of dom) assert.ok(shown.includes(id), `${filter}: row ${id} should be hidden`);
    await page.screenshot({ path: `${OUT}filter-${filter}.png` });
  }
  await page.click(".filter[data-filter=all]");
  await page.fill("#search", "npm test");
  await page.waitForFunction(() => window.__viewer.state.query === "npm test");
  await page.waitForTimeout(150);
  const found = await page.evaluate(() => window.__viewer.visibleIds());
  assert.ok(found.length >= 2 && found.length < 8, `search found ${found.length}`);
  assert.match(await statusText(page), /shown/);
  await page.screenshot({ path: `${OUT}search.png` });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a dropped v1 file opens, migrated in memory, with a migrated download", async () => {
  const { page, problems } = await openViewer();
  const v1 = `${[
    { type: "session", id: "old-1", timestamp: "2024-11-02T10:00:00.000Z", cwd: "/srv/app" },
    {
      type: "message",
      timestamp: "2024-11-02T10:00:01.000Z",
      message: { role: "user", content: "Hello from 2024", timestamp: 1730541601000 },
    },
    {
      type: "message",
      timestamp: "2024-11-02T10:00:02.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Hi!" }],
        api: "x",
        provider: "openai",
        model: "gpt-4o",
        stopReason: "stop",
        timestamp: 1730541602000,
      },
    },
    { type: "thinking_level_change", timestamp: "2024-11-02T10:00:03.000Z", thinkingLevel: "low" },
    {
      type: "message",
      timestamp: "2024-11-02T10:00:04.000Z",
      message: { role: "user", content: "Still there?", timestamp: 1730541604000 },
    },
  ]
    .map((e) => JSON.stringify(e))
    .join("\n")}\n`;
  await dropAndShow(page, v1, "old-session.jsonl");
  assert.match(await statusText(page), /^4 entries/);
  assert.match(await page.textContent("#banners"), /version 1 session: it was migrated to version 3/);
  assert.deepEqual(await contextRoles(page), ["user", "assistant", "user"]);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("[data-testid=download-migrated]")]);
  const text = readFileSync(await download.path(), "utf8");
  const lines = parseSession(text);
  assert.equal(lines[0].version, 3);
  assert.equal(lines.length, 5);
  assert.ok(lines.slice(1).every((e) => typeof e.id === "string" && "parentId" in e));
  assert.equal(migrate(text), text, "the download is already version 3");
  await page.screenshot({ path: `${OUT}dropped-v1.png` });
  assert.deepEqual(problems, []);
  await page.close();
});

test("an oh-my-pi file, its title line before the header, opens with its header found", async () => {
  const { page, problems } = await openViewer();
  const omp = `${[
    {
      type: "title",
      v: 1,
      title: "Fix the build",
      source: "auto",
      updatedAt: "2025-01-01T00:00:00.000Z",
      pad: "      ",
    },
    { type: "session", version: 3, id: "omp-session", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/srv/app" },
    {
      type: "message",
      id: "aa000001",
      parentId: null,
      timestamp: "2025-01-01T00:00:01.000Z",
      message: { role: "user", content: "Fix the build", timestamp: 1 },
    },
    {
      type: "message",
      id: "aa000002",
      parentId: "aa000001",
      timestamp: "2025-01-01T00:00:02.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Done" }],
        provider: "p",
        model: "m",
        stopReason: "stop",
        timestamp: 2,
      },
    },
  ]
    .map((e) => JSON.stringify(e))
    .join("\n")}\n`;
  await dropAndShow(page, omp, "omp-session.jsonl");
  await waitForContext(page, "aa000002");
  assert.deepEqual(
    await contextRoles(page),
    buildSessionContext(omp, "aa000002").messages.map((m) => m.role),
  );
  await page.click(".tab[data-tab=stats]");
  const stats = await page.textContent("#panel-stats");
  assert.match(stats, /Header\s*id\s*omp-session/);
  assert.match(stats, /cwd\s*\/srv\/app/);
  await page.click(".tab[data-tab=diagnostics]");
  const kinds = await page.$$eval("[data-testid=diagnostics] [data-kind]", (els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(kinds, ["before-header", "misplaced-header"]);
  assert.match(await page.textContent("[data-testid=diagnostics]"), /line 1 comes before the session header on line 2/);
  await page.screenshot({ path: `${OUT}omp-title.png` });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a malformed file shows its diagnostics and the page keeps working", async () => {
  const { page, problems } = await openViewer();
  const broken = [
    '{"type":"message","id":"aa000001","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"before the header","timestamp":1}}',
    '{"type":"session","version":3,"id":"broken","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}',
    '{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m","stopReason":"stop","timestamp":2}}',
    '{"type":"message","id": oops',
    "[1,2,3]",
    '{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"duplicate id","timestamp":3}}',
    '{"type":"message","id":"aa000003","parentId":"nowhere","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"user","content":"orphan","timestamp":4}}',
    '{"type":"message","id":"aa000004","parentId":"aa000005","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"cycle a","timestamp":5}}',
    '{"type":"message","id":"aa000005","parentId":"aa000004","timestamp":"2025-01-01T00:00:06.000Z","message":{"role":"user","content":"cycle b","timestamp":6}}',
    '{"type":"label","id":"aa000006","parentId":"aa000002","timestamp":"2025-01-01T00:00:07.000Z","targetId":"missing","label":"x"}',
    '{"type":"compaction","id":"aa000007","parentId":"aa000006","timestamp":"2025-01-01T00:00:08.000Z","summary":"s","firstKeptEntryId":"gone","tokensBefore":10}',
    '{"type":"message","id":"aa000008","parentId":"aa000007","timestamp":"2025-01-01T00:00:09.000Z","message":{"role":"user","content":"last',
  ].join("\n");
  await dropAndShow(page, broken, "broken.jsonl");
  const expected = inspectSession(broken);
  assert.ok(expected.length >= 8);
  await page.click(".tab[data-tab=diagnostics]");
  const kinds = await page.$$eval("[data-testid=diagnostics] [data-kind]", (els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(
    kinds,
    expected.map((d) => d.kind),
  );
  const text = await page.textContent("[data-testid=diagnostics]");
  for (const d of expected) if (d.line !== undefined) assert.ok(text.includes(`line ${d.line}`), `line ${d.line}`);
  assert.equal(await page.textContent("#diag-count"), String(expected.length));
  const count = getTree(broken).reduce(function n(acc, node) {
    return acc + 1 + node.children.reduce(n, 0);
  }, 0);
  assert.match(await statusText(page), new RegExp(`^${count} entries`));
  await page.screenshot({ path: `${OUT}diagnostics.png` });
  // Still usable: pick a leaf, then open the sample again.
  await page.click(".filter[data-filter=all]");
  await (await rowOf(page, "aa000002")).first().click();
  await waitForContext(page, "aa000002");
  assert.deepEqual(
    await contextRoles(page),
    buildSessionContext(broken, "aa000002").messages.map((m) => m.role),
  );
  await page.click("#sample-button");
  await page.waitForFunction(() => window.__viewer.opened >= 3);
  assert.match(await statusText(page), new RegExp(`^${parseSession(SAMPLE).length - 1} entries`));
  assert.deepEqual(problems, []);
  await page.close();
});

test("session content is never run as HTML", async () => {
  const { page, problems } = await openViewer();
  const evil =
    '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script><svg onload="window.__pwned=1"></svg>';
  const t = (s) => `2025-02-01T00:00:0${s}.000Z`;
  const lines = [
    { type: "session", version: 3, id: "evil", timestamp: t(0), cwd: evil },
    { type: "session_info", id: "e0000001", parentId: null, timestamp: t(1), name: evil },
    {
      type: "message",
      id: "e0000002",
      parentId: "e0000001",
      timestamp: t(2),
      message: {
        role: "user",
        content: `${evil}\n\n[click](javascript:window.__pwned=1) **${evil}** \`${evil}\``,
        timestamp: 2,
      },
    },
    {
      type: "message",
      id: "e0000003",
      parentId: "e0000002",
      timestamp: t(3),
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: evil },
          { type: "text", text: `# ${evil}\n\n- ${evil}\n\n\`\`\`html\n${evil}\n\`\`\`` },
          { type: "toolCall", id: evil, name: evil, arguments: { [evil]: evil } },
        ],
        provider: evil,
        model: evil,
        stopReason: evil,
        errorMessage: evil,
        timestamp: 3,
      },
    },
    {
      type: "message",
      id: "e0000004",
      parentId: "e0000003",
      timestamp: t(4),
      message: {
        role: "toolResult",
        toolCallId: evil,
        toolName: evil,
        content: [
          { type: "text", text: evil },
          { type: "image", mimeType: 'image/png" onerror="window.__pwned=1', data: 'x" onerror="window.__pwned=1' },
        ],
        isError: true,
        timestamp: 4,
      },
    },
    { type: "label", id: "e0000005", parentId: "e0000004", timestamp: t(5), targetId: "e0000004", label: evil },
    {
      type: "custom_message",
      id: "e0000006",
      parentId: "e0000005",
      timestamp: t(6),
      customType: evil,
      content: evil,
      display: true,
      details: evil,
    },
    {
      type: "message",
      id: "e0000007",
      parentId: "e0000006",
      timestamp: t(7),
      message: {
        role: "bashExecution",
        command: evil,
        output: evil,
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: 7,
      },
    },
    { type: "branch_summary", id: "e0000008", parentId: "e0000007", timestamp: t(8), fromId: evil, summary: evil },
  ]
    .map((e) => JSON.stringify(e))
    .join("\n");
  await dropAndShow(page, lines, "<img src=x onerror=alert(1)>.jsonl");
  await page.click(".filter[data-filter=all]");
  for (const tab of ["entry", "stats", "diagnostics", "context"]) await page.click(`.tab[data-tab=${tab}]`);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(
    await page.$$eval('img[src="x"], img[onerror], svg[onload], [onerror], [onload]', (els) => els.length),
    0,
  );
  assert.equal(await page.$$eval("script", (els) => els.length), 1, "only the page's own module script");
  assert.equal(await page.$$eval('a[href^="javascript:"]', (els) => els.length), 0);
  assert.ok(
    (await page.textContent("[data-testid=context]")).includes("<script>window.__pwned=1</script>"),
    "shown as text",
  );
  await page.screenshot({ path: `${OUT}injection.png` });
  assert.deepEqual(
    problems.filter((p) => !p.includes("Content Security Policy")),
    [],
  );
  await page.close();
});

test("download branch writes the selected path as a new session (pi's createBranchedSession)", async () => {
  const entries = parseSession(SAMPLE);
  const leaf = entries.find((e) => e.type === "message" && JSON.stringify(e.message).includes("Zwischenspeicher")).id;
  const { page, problems } = await openViewer(`#leaf=${leaf}`);
  await waitForContext(page, leaf);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-button")]);
  assert.match(download.suggestedFilename(), new RegExp(`sample-branch-${leaf}\\.jsonl$`));
  const out = parseSession(readFileSync(await download.path(), "utf8"));
  const header = out[0];
  assert.equal(header.type, "session");
  assert.equal(header.version, 3);
  assert.equal(header.parentSession, "sample.jsonl");
  assert.equal(header.cwd, entries[0].cwd);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const path = [];
  for (let e = byId.get(leaf); e; e = byId.get(e.parentId)) path.unshift(e);
  const withoutLabels = path.filter((e) => e.type !== "label");
  // As pi 1.6 copies a branch: labels are left out, each kept entry's parent
  // is the kept entry before it, and a compaction that kept from a label keeps
  // from the first entry after that label.
  const nextKept = new Map();
  let waiting = [];
  for (const e of path) {
    if (e.type === "label") waiting.push(e.id);
    else {
      for (const id of waiting) nextKept.set(id, e.id);
      waiting = [];
    }
  }
  const expected = withoutLabels.map((e, i) => {
    const copy = { ...e, parentId: i ? withoutLabels[i - 1].id : null };
    if (e.type === "compaction" && e.firstKeptEntryId !== e.id && nextKept.has(e.firstKeptEntryId)) {
      copy.firstKeptEntryId = nextKept.get(e.firstKeptEntryId);
    }
    return copy;
  });
  assert.deepEqual(out.slice(1, 1 + withoutLabels.length), expected);
  const labels = out.slice(1 + withoutLabels.length);
  assert.ok(
    labels.length >= 1 && labels.every((l) => l.type === "label" && withoutLabels.some((e) => e.id === l.targetId)),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("a 100,000-entry session opens and stays responsive", async () => {
  const { page, problems } = await openViewer();
  const before = await page.evaluate(() => window.__viewer.opened);
  const started = Date.now();
  await page.evaluate(async () => {
    const blob = await (await fetch("/fixtures/large.jsonl")).blob();
    const dt = new DataTransfer();
    dt.items.add(new File([blob], "large.jsonl"));
    document.body.dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: dt }));
  });
  await page.waitForFunction((n) => window.__viewer.opened > n, before, { timeout: 120_000 });
  await waitForContext(page);
  const openMs = Date.now() - started;
  assert.match(await statusText(page), /^100000 entries/);
  const domRows = await page.$$eval("[data-entry-id]", (els) => els.length);
  assert.ok(domRows < 200, `DOM rows: ${domRows}`);
  // Scrolling to the middle renders rows there quickly.
  const t0 = Date.now();
  await page.evaluate(() => {
    const g = document.getElementById("graph");
    g.scrollTop = g.scrollHeight / 2;
  });
  await page.waitForFunction(() => [...document.querySelectorAll(".row")].some((r) => Number(r.dataset.row) > 40_000));
  const scrollMs = Date.now() - t0;
  // Keyboard: End, then Enter selects the last row as the leaf.
  await page.focus("#graph");
  await page.keyboard.press("End");
  // The list draws on the next animation frame: wait for the cursor's row, the last one drawn.
  await page.waitForFunction(() => {
    const cursor = document.querySelector(".row.cursor");
    const rows = [...document.querySelectorAll(".row")].map((r) => Number(r.dataset.row));
    return cursor !== null && Number(cursor.dataset.row) === Math.max(...rows);
  });
  const t1 = Date.now();
  await page.keyboard.press("Enter");
  const prev = await page.evaluate(() => document.querySelector("[data-testid=context]").dataset.leaf);
  const target = await page.evaluate(() => document.querySelector(".row.cursor").dataset.entryId);
  if (target !== prev) await waitForContext(page, target);
  const selectMs = Date.now() - t1;
  const stats = await page.evaluate(() => document.getElementById("panel-stats").textContent);
  await page.screenshot({ path: `${OUT}large.png` });
  console.log(
    `# 100k entries: opened in ${openMs} ms, scroll ${scrollMs} ms, select ${selectMs} ms, ${domRows} rows in the DOM; ${stats.match(/Opened in [^.]*/)?.[0]}`,
  );
  assert.ok(openMs < 60_000);
  assert.deepEqual(problems, []);
  await page.close();
});
