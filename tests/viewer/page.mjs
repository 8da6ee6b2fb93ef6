// Helpers the viewer's Playwright suites share (not a test file itself).

/**
 * Drops `text` on the viewer as a file named `name`, through real `dragenter`,
 * `dragover` and `drop` events carrying a DataTransfer, and waits until the
 * viewer has opened it.
 */
export async function dropFile(page, text, name) {
  const before = await page.evaluate(() => window.__viewer.opened);
  await page.evaluate(
    ({ text, name }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type: "application/jsonl" }));
      for (const type of ["dragenter", "dragover", "drop"]) {
        document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }
    },
    { text, name },
  );
  await page.waitForFunction((n) => window.__viewer.opened > n, before, { timeout: 60_000 });
}
