// End-to-end test of "Share…" (www/share-*.js, www/redact.js, www/share.js) in
// headless Chromium: a branch with one planted secret of each kind is shared
// with every finding ticked (plus a string of our own); the downloaded file
// holds none of them in any form, opens from disk with the network off and
// fetches nothing, and shows the branch's entries and the context the page
// showed (checked against pi 1.6.0's buildSessionProjection).
//
//   node --test tests/viewer/share.test.mjs

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadPi } from "../shared/pi.mjs";
import { serveViewer, watchProblems } from "./page.mjs";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const OUT = here("./output/");
mkdirSync(OUT, { recursive: true });

// Made-up secrets of the right shapes; none is real.
const S = {
  openai: "sk-proj-T3stOnlyAbcdefGhijklMnopqrStuvwx",
  anthropic: "sk-ant-api03-T3stOnly_abcdefghijklmnopQRSTUV-xyz",
  github: "ghp_T3stOnlyabcdefghijklmnopqrstuvwxyz0123",
  githubOauth: "gho_T3stOnlyZYXWVUTSRQPONMLKJIHGFEDCBA9876",
  githubPat: "github_pat_11T3STONLY0abcdefghij_klmnopqrstuvwxyzABCDEFGHIJ",
  gitlab: "glpat-T3stOnlyAbCdEfGhIj01",
  aws: "AKIAT3STONLYEXAMPLE7",
  google: "AIzaSyT3stOnly-abcdefghijklmnopqrstuvwx",
  slack: "xoxb-123456789012-T3stOnlyabcdef",
  stripe: "sk_live_T3stOnlyabcdefghijklmnop",
  npm: "npm_T3stOnlyabcdefghijklmnopqrstuvwxyz01",
  huggingface: "hf_T3stOnlyabcdefghijklmnopqrstuvwx",
  bearer: "tok.T3stOnly-Bearer_value~42",
  privateKey:
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAT3stOnlyPrivateKeyBody0123456789\nabcdefghijklmnopqrstuvwxyz+/==\n-----END RSA PRIVATE KEY-----",
  envToken: "t0ken-value-T3stOnly",
  envSecret: "s3cret value T3stOnly",
  envKey: "k3y-T3stOnly",
  password: "hunter2-T3stOnly",
  homeLinux: "/home/alice",
  homeMac: "/Users/carol",
  homeWindows: "C:\\Users\\bob",
};
const OWN = "Project Bluebird";
const HOMES = new Set([S.homeLinux, S.homeMac, S.homeWindows]);
const OFF_BRANCH = "sk-proj-OffBranchT3stOnlyQwertyuiopAsdfgh";

const t = (i) => new Date(Date.UTC(2026, 10, 20, 10, 0, i)).toISOString();
const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120, cost: { total: 0.0042 } };
const ENTRIES = [
  { type: "session", version: 3, id: "share-test", timestamp: t(0), cwd: `${S.homeLinux}/work/app` },
  { type: "model_change", id: "m0", parentId: null, timestamp: t(1), provider: "anthropic", modelId: "claude-x" },
  {
    type: "message",
    id: "u1",
    parentId: "m0",
    timestamp: t(2),
    message: { role: "user", content: `Deploy ${OWN}; the OpenAI key is ${S.openai}.`, timestamp: 2000 },
  },
  {
    type: "message",
    id: "a1",
    parentId: "u1",
    timestamp: t(3),
    message: {
      role: "assistant",
      content: [
        { type: "thinking", thinking: `Anthropic key ${S.anthropic}, GitHub ${S.github}.` },
        { type: "text", text: `I will call the API. Tokens: ${S.githubOauth} and ${S.githubPat}.` },
        {
          type: "toolCall",
          id: "call-1",
          name: "bash",
          arguments: { command: `curl -H "Authorization: Bearer ${S.bearer}" https://api.example.com/v1` },
        },
      ],
      provider: "anthropic",
      model: "claude-x",
      usage,
      stopReason: "toolUse",
      timestamp: 3000,
    },
  },
  {
    type: "message",
    id: "r1",
    parentId: "a1",
    timestamp: t(4),
    message: {
      role: "toolResult",
      toolCallId: "call-1",
      toolName: "bash",
      content: [
        {
          type: "text",
          text: `${S.privateKey}\nMY_TOKEN=${S.envToken}\nAPP_SECRET="${S.envSecret}"\nSERVICE_KEY=${S.envKey}\nPASSWORD=${S.password}\n`,
        },
      ],
      isError: false,
      timestamp: 4000,
    },
  },
  { type: "label", id: "l1", parentId: "r1", timestamp: t(5), targetId: "u1", label: `gitlab ${S.gitlab}` },
  { type: "session_info", id: "n1", parentId: "l1", timestamp: t(6), name: `${OWN} with ${S.slack}` },
  {
    type: "message",
    id: "a2",
    parentId: "n1",
    timestamp: t(7),
    message: {
      role: "assistant",
      content: [
        { type: "text", text: `AWS ${S.aws}, Google ${S.google}, Stripe ${S.stripe}.` },
        { type: "toolCall", id: "call-2", name: "read", arguments: { path: `${S.homeWindows}\\notes.txt` } },
        { type: "toolCall", id: "call-3", name: "edit", arguments: { file_path: `${S.homeMac}/x.py` } },
      ],
      provider: "anthropic",
      model: "claude-x",
      usage,
      stopReason: "toolUse",
      timestamp: 7000,
    },
  },
  {
    type: "message",
    id: "r2",
    parentId: "a2",
    timestamp: t(8),
    message: {
      role: "toolResult",
      toolCallId: "call-2",
      toolName: "read",
      content: [{ type: "text", text: `npm ${S.npm}` }],
      isError: false,
      timestamp: 8000,
    },
  },
  {
    type: "compaction",
    id: "c1",
    parentId: "r2",
    timestamp: t(9),
    summary: `Earlier: keys like ${S.huggingface} were used in ${S.homeLinux}/work.`,
    firstKeptEntryId: "a2",
    tokensBefore: 5000,
  },
  {
    type: "message",
    id: "u2",
    parentId: "c1",
    timestamp: t(10),
    message: { role: "user", content: "Now summarise.", timestamp: 10000 },
  },
  {
    type: "message",
    id: "a3",
    parentId: "u2",
    timestamp: t(11),
    message: {
      role: "assistant",
      content: [{ type: "text", text: `Done for ${OWN}.` }],
      provider: "anthropic",
      model: "claude-x",
      usage,
      stopReason: "stop",
      timestamp: 11000,
    },
  },
  // Another branch, not shared.
  {
    type: "message",
    id: "x1",
    parentId: "a1",
    timestamp: t(12),
    message: { role: "user", content: `Elsewhere: ${OFF_BRANCH}`, timestamp: 12000 },
  },
];
const JSONL = `${ENTRIES.map((e) => JSON.stringify(e)).join("\n")}\n`;
const LEAF = "a3";

/** Every way a string can be written in an HTML file: raw, JSON-escaped, HTML-escaped, `<` as \u003c. */
function forms(s) {
  const json = JSON.stringify(s).slice(1, -1);
  const html = s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return new Set([s, json, json.replace(/</g, "\\u003c"), html, encodeURIComponent(s)]);
}

const viewer = serveViewer();

async function openWithFile() {
  const page = await viewer.browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const problems = watchProblems(page);
  await page.goto(viewer.server.url);
  await page.waitForFunction(() => window.__viewer?.opened >= 1, null, { timeout: 20_000 });
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "secrets.jsonl", { type: "application/jsonl" }));
    for (const type of ["dragenter", "dragover", "drop"]) {
      document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  }, JSONL);
  await page.waitForFunction(() => window.__viewer.opened >= 2, null, { timeout: 20_000 });
  await page.evaluate((leaf) => {
    location.hash = `#leaf=${leaf}`;
  }, LEAF);
  await page.waitForFunction((leaf) => document.querySelector("[data-testid=context]").dataset.leaf === leaf, LEAF);
  return { page, problems };
}

async function review(page) {
  await page.click("[data-testid=share]");
  await page.waitForSelector("#share-dialog[open] [data-testid=redaction]");
  return page.$$eval("[data-testid=redaction]", (items) =>
    items.map((li) => ({
      text: li.querySelector(".finding-text").textContent,
      kind: li.dataset.kind,
      checked: li.querySelector("input[type=checkbox]").checked,
    })),
  );
}

async function download(page) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click("[data-testid=share-download]")]);
  await page.waitForFunction(() => !document.querySelector("#share-dialog").open);
  return file;
}

/** The text of a context message as the shared page writes it in `.msg-text`. */
function messageText(m) {
  if (m.role === "bashExecution") return `$ ${m.command}\n${m.output}`;
  if (m.role === "branchSummary" || m.role === "compactionSummary") return m.summary;
  if (typeof m.content === "string") return m.content;
  return (m.content ?? [])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

test("a shared branch holds none of the ticked secrets, works offline, and shows the branch and its context", async () => {
  const { page, problems } = await openWithFile();
  const pageRoles = await page.$$eval("[data-testid=context] > [data-role]", (els) => els.map((e) => e.dataset.role));

  const findings = await review(page);
  for (const [name, secret] of Object.entries(S)) {
    assert.ok(
      findings.some((f) => f.text === secret),
      `${name} is listed: ${JSON.stringify(findings.map((f) => f.text))}`,
    );
  }
  assert.ok(
    findings.every((f) => f.checked),
    "every finding starts ticked",
  );
  assert.ok(!findings.some((f) => f.text === OFF_BRANCH), "a secret off the branch is not part of the review");
  await page.fill("#share-own", OWN);
  await page.click("[data-testid=share-add]");
  assert.equal(await page.$$eval("[data-testid=redaction]", (els) => els.length), findings.length + 1);
  await page.screenshot({ path: `${OUT}share-review.png` });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: `${OUT}share-review-dark.png` });
  await page.emulateMedia({ colorScheme: "light" });

  const file = await download(page);
  assert.match(file.suggestedFilename(), /^secrets-shared-a3\.html$/);
  const saved = await file.path();
  const html = readFileSync(saved, "utf8");
  const bytes = readFileSync(saved);
  for (const secret of [...Object.values(S), OWN, OFF_BRANCH]) {
    for (const form of forms(secret)) {
      assert.equal(bytes.indexOf(Buffer.from(form, "utf8")), -1, `${JSON.stringify(form)} is in the shared file`);
    }
  }
  // Outside the session's own text and data, nothing refers to anything elsewhere.
  const page_ = html
    .replace(/(<textarea[^>]*>)[\s\S]*?<\/textarea>/, "$1</textarea>")
    .replace(/(<script type="application\/json"[^>]*>)[\s\S]*?<\/script>/, "$1</script>");
  assert.doesNotMatch(
    page_,
    /https?:|\/\/[a-z]|<link|<img|<iframe|<script[^>]*\ssrc|url\(|\bimport\b|\bfetch\(|XMLHttpRequest/i,
  );
  copyFileSync(saved, `${OUT}shared.html`);

  // From disk, offline, with every request that is not the file itself aborted and recorded.
  const context = await viewer.browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.setOffline(true);
  const requests = [];
  const fileUrl = `file://${OUT}shared.html`;
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url === fileUrl) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const shared = await context.newPage();
  const sharedProblems = [];
  shared.on("request", (r) => {
    if (r.url() !== fileUrl) requests.push(r.url());
  });
  shared.on("pageerror", (e) => sharedProblems.push(e.message));
  shared.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") sharedProblems.push(m.text());
  });
  await shared.goto(fileUrl);
  await shared.waitForSelector("[data-testid=context] [data-role]");

  // The branch's entries (the path from the root, walked here by parentId), in order.
  const byId = new Map(ENTRIES.map((e) => [e.id, e]));
  const path = [];
  for (let e = byId.get(LEAF); e; e = byId.get(e.parentId)) path.unshift(e);
  await shared.click("button[data-filter=all]");
  const rows = await shared.$$eval("[data-testid=share-rows] [data-entry-id]", (els) =>
    els.map((e) => [e.dataset.entryId, e.className]),
  );
  assert.deepEqual(
    rows.filter(([, cls]) => !cls.includes("k-label")).map(([id]) => id),
    path.filter((e) => e.type !== "label").map((e) => e.id),
  );
  assert.equal(rows.filter(([, cls]) => cls.includes("k-label")).length, 1);
  assert.ok(!rows.some(([id]) => id === "x1"));
  // The default filter hides labels, session info and model changes, as pi's.
  await shared.click("button[data-filter=default]");
  const defaultRows = await shared.$$eval("[data-testid=share-rows] [data-entry-id]", (els) =>
    els.map((e) => e.dataset.entryId),
  );
  assert.deepEqual(defaultRows, ["u1", "a1", "r1", "a2", "r2", "c1", "u2", "a3"]);

  // The context: the page's roles, and pi's projection of the original file, secrets replaced.
  const pi = await loadPi();
  const projection = pi.buildSessionProjection(pi.parseSessionEntries(JSONL), LEAF);
  const expected = [];
  for (const { sourceEntry, messages } of projection.entries) {
    for (const m of messages) expected.push({ role: m.role, source: sourceEntry.id, text: messageText(m) });
  }
  const got = await shared.$$eval("[data-testid=context] > [data-role]", (els) =>
    els.map((e) => ({
      role: e.dataset.role,
      source: e.dataset.sourceId,
      text: e.querySelector(".msg-text").textContent,
    })),
  );
  assert.deepEqual(
    got.map((m) => m.role),
    pageRoles,
  );
  assert.deepEqual(
    got.map((m) => [m.role, m.source]),
    expected.map((m) => [m.role, m.source]),
  );
  const hide = (text) => {
    let out = text;
    for (const s of [...Object.values(S), OWN].sort((a, b) => b.length - a.length)) {
      out = out.split(s).join(HOMES.has(s) ? "~" : "\u0000");
    }
    return out;
  };
  assert.deepEqual(
    got.map((m) => m.text.replace(/\[REDACTED:[a-z-]+\]/g, "\u0000")),
    expected.map((m) => hide(m.text)),
  );
  await shared.screenshot({ path: `${OUT}shared.png` });
  // The README's picture is refreshed on request only (UPDATE_SCREENSHOT=1).
  if (process.env.UPDATE_SCREENSHOT === "1") copyFileSync(`${OUT}shared.png`, here("../../www/screenshot-share.png"));
  await shared.emulateMedia({ colorScheme: "dark" });
  await shared.screenshot({ path: `${OUT}shared-dark.png` });
  if (process.env.UPDATE_SCREENSHOT === "1")
    copyFileSync(`${OUT}shared-dark.png`, here("../../www/screenshot-share-dark.png"));
  assert.deepEqual(requests, [], "the shared file asked for nothing");
  assert.deepEqual(sharedProblems, []);
  await context.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test("an unticked finding stays in the file, and a string that cannot be removed stops the export", async () => {
  const { page, problems } = await openWithFile();
  await review(page);
  // Untick the home directory (a false positive, say).
  const home = page.locator("[data-testid=redaction]", { hasText: S.homeLinux }).first();
  await home.locator("input[type=checkbox]").uncheck();
  const file = await download(page);
  const html = readFileSync(await file.path(), "utf8");
  assert.ok(html.includes(`${S.homeLinux}/work/app`), "the unticked path is kept");
  assert.ok(!html.includes(S.openai));

  // An entry id cannot be redacted: the review says so and makes no file.
  await review(page);
  await page.fill("#share-own", "a2");
  await page.click("[data-testid=share-add]");
  let downloaded = false;
  page.once("download", () => {
    downloaded = true;
  });
  await page.click("[data-testid=share-download]");
  await page.waitForFunction(() => document.querySelector("#share-error").textContent.length > 0);
  assert.match(await page.textContent("#share-error"), /"a2" would still be in it/);
  assert.ok(await page.evaluate(() => document.querySelector("#share-dialog").open));
  assert.equal(downloaded, false);
  assert.deepEqual(problems, []);
  await page.close();
});
