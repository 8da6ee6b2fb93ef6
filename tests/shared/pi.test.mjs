// The pi loader finds pi 1.6.0 by path (its package entry needs Node 22 while its session manager
// loads here), together with pi-ai's getCurrentSystemMessage.
import assert from "node:assert/strict";
import { test } from "node:test";
import { getCurrentSystemMessage, installedVersion, loadPi, PI_VERSION } from "./pi.mjs";

test(`pi ${PI_VERSION}: the session manager loads and exports what the suites compare with`, async () => {
  assert.equal(installedVersion(), PI_VERSION);
  const pi = await loadPi();
  for (const name of ["buildSessionContext", "buildContextEntries", "buildSessionProjection", "parseSessionEntries"])
    assert.equal(typeof pi[name], "function", name);
  assert.equal(typeof pi.SessionManager.inMemory, "function");
  assert.equal(typeof getCurrentSystemMessage, "function");
});

test("an unknown pi version is an error naming the known ones", async () => {
  await assert.rejects(loadPi("9.9.9"), /no pi 9\.9\.9 .*known: 1\.6\.0/);
});
