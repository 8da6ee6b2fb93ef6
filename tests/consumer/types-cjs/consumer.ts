// CommonJS consumer (package "type": "commonjs", module nodenext): the
// import below compiles to require("session-tree") and must resolve to
// index.d.cts through the "require" condition.

import type { FileEntry, SessionContext, SessionEntry } from "session-tree";
import { buildSessionContext, getTree, migrate, parseSession } from "session-tree";

import sessionTree = require("session-tree");

const entries: FileEntry[] = parseSession(new Uint8Array([0x7b, 0x7d]));
const changed: boolean = migrate(entries);
const text: string = migrate("");
const tree = getTree(entries.filter((e): e is SessionEntry => e.type !== "session"));
const context: SessionContext = buildSessionContext(entries, "abc");
const same: typeof parseSession = sessionTree.parseSession;
// @ts-expect-error leafId must be a string, null or undefined
buildSessionContext("", 1);
void [changed, text, tree, context, same];
