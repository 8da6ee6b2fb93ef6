// Run inside the scratch project: the package as an ES module.
import { buildSessionContext, getTree, migrate, parseSession, Session, sessionInfo } from "session-tree";

const text = [
  '{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}',
  '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
].join("\n");
const entries = parseSession(text);
const upgraded = migrate(text);
const roots = getTree(upgraded);
const context = buildSessionContext(upgraded);
const session = Session.open(upgraded);
console.log(
  JSON.stringify({
    lines: entries.length,
    version: JSON.parse(upgraded.split("\n")[0]).version,
    roots: roots.length,
    messages: context.messages.length,
    sessionEntries: session.getEntries().length,
    first: sessionInfo(upgraded).firstMessage,
  }),
);
