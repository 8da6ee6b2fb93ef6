// Run inside the scratch project: session-tree/node as an ES module.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listSessions, SessionManager } from "session-tree/node";

const dir = mkdtempSync(join(tmpdir(), "tarball-node-"));
const manager = SessionManager.create("/work", dir);
manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
manager.close();
const reopened = SessionManager.open(manager.getSessionFile());
const rows = await listSessions(dir);
console.log(
  JSON.stringify({ entries: reopened.getEntries().length, listed: rows.length, first: rows[0].info.firstMessage }),
);
