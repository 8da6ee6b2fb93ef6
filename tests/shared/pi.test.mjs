// The pi loader finds both installed versions by path: 0.73.1, the reference of every
// comparison, and 1.6.0, whose package entry needs Node 22 while its session manager loads here.
import assert from "node:assert/strict";
import { test } from "node:test";
import { installedVersion, loadPi } from "./pi.mjs";

for (const version of ["0.73.1", "1.6.0"]) {
  test(`pi ${version}: the session manager loads and exports SessionManager and buildSessionContext`, async () => {
    assert.equal(installedVersion(version), version);
    const pi = await loadPi(version);
    assert.equal(typeof pi.SessionManager, "function");
    assert.equal(typeof pi.buildSessionContext, "function");
    assert.equal(typeof pi.SessionManager.inMemory, "function");
  });
}

test("an unknown pi version is an error naming the known ones", async () => {
  await assert.rejects(loadPi("9.9.9"), /no pi 9\.9\.9 .*known: 0\.73\.1, 1\.6\.0/);
});
