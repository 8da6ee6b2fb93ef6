// ESM consumer (package "type": "module", module nodenext).

import type { FileEntry, SessionContext, SessionTreeNode } from "session-tree";
import { buildSessionContext, getTree, migrate, parseSession } from "session-tree";
import { exercise } from "../types-shared/usage.js";

const entries: FileEntry[] = parseSession("", { strict: true });
const changed: boolean = migrate(entries);
const bytes: Uint8Array = migrate(new Uint8Array());
const text: string = migrate("");
const roots: SessionTreeNode[] = getTree(entries);
const context: SessionContext = buildSessionContext("", null);
exercise({ buildSessionContext, getTree, migrate, parseSession });
void [changed, bytes, text, roots, context];
