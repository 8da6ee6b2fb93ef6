// The pi loader finds pi 1.6.0 by path (its package entry needs Node 22 while its session manager
// loads here), together with pi-ai's getCurrentSystemMessage.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  getCurrentSystemMessage,
  installedVersion,
  loadPi,
  PI_VERSION,
  piSessionStats,
  SessionManager,
} from "./pi.mjs";

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

test("pi's getSessionStats runs on a session manager's entries", () => {
  const sm = SessionManager.inMemory("/tmp");
  const usage = (total) => ({ input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 10, cost: { total } });
  sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
  sm.appendMessage({ role: "assistant", content: [], usage: usage(0.5), timestamp: 2 });
  sm.appendUsage("cache_warm", "p", "m", usage(0.25));
  const stats = piSessionStats(sm);
  assert.deepEqual(stats.tokens, { input: 2, output: 4, cacheRead: 6, cacheWrite: 8, total: 20 });
  assert.equal(stats.cost, 0.75);
  assert.equal(stats.assistantMessages, 1);
});
