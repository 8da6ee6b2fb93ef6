// Run inside the scratch project: the package through require().
const { buildSessionContext, getTree, migrate, parseSession, Session } = require("session-tree");

const text = [
  '{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}',
  '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}',
].join("\n");
const upgraded = migrate(text);
console.log(
  JSON.stringify({
    lines: parseSession(text).length,
    version: JSON.parse(upgraded.split("\n")[0]).version,
    roots: getTree(upgraded).length,
    messages: buildSessionContext(upgraded).messages.length,
    sessionEntries: Session.open(upgraded).getEntries().length,
  }),
);
