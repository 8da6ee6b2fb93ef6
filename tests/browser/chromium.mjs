// Opens a page in Debian's headless Chromium (through playwright-core, which
// never downloads a browser) and collects what the page reports.
//
// Pages under test publish `window.__results` (an object of
// `{ ok: true, value } | { ok: false, name, message }` records) when they are
// done; page errors, console errors and failed requests are collected too.

import { chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-quic",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** Loads `url` and waits (at most `timeout` ms) for `window.__results`. */
export async function collectPageResults(browser, url, { timeout = 20_000 } = {}) {
  const page = await browser.newPage();
  const problems = [];
  const requests = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("requestfailed", (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
  );
  page.on("response", (response) => {
    requests.push({ url: response.url(), status: response.status(), type: response.headers()["content-type"] });
  });
  try {
    await page.goto(url, { waitUntil: "load", timeout });
    try {
      await page.waitForFunction(() => window.__results !== undefined, null, { timeout });
    } catch {
      throw new Error(`page never published window.__results; problems: ${problems.join("; ") || "none"}`);
    }
    const results = await page.evaluate(() => window.__results);
    // The text as rendered (innerText), not the DOM's raw text.
    // biome-ignore lint/performance/useDomNodeTextContent: rendered text is what a reader sees
    const text = await page.evaluate(() => document.body.innerText);
    return { results, problems, requests, text };
  } finally {
    await page.close();
  }
}
