// Run inside the scratch project: session-tree/node through require(), one
// wasm instance with the main entry.
const { SessionManager } = require("session-tree/node");
const { Session } = require("session-tree");

const manager = SessionManager.inMemory("/work");
manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
const copy = Session.open([manager.getHeader(), ...manager.getEntries()]);
console.log(JSON.stringify({ entries: copy.getEntries().length, persisted: manager.isPersisted() }));
