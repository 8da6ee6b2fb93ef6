// ESM consumer (package "type": "module", module nodenext).

import type { ByteSource, Diagnostic, FileEntry, SessionContext, SessionTreeNode } from "session-tree";
import { buildSessionContext, getTree, inspectSession, migrate, parseSession } from "session-tree";
import { exercise } from "../types-shared/usage.js";

const entries: FileEntry[] = parseSession("", { strict: true });
const changed: boolean = migrate(entries);
const bytes: Uint8Array = migrate(new Uint8Array());
const text: string = migrate("");
const source: ByteSource = { size: 0, read: () => new Uint8Array() };
const streamed: boolean = migrate(source, { pieceSize: 64, write: (piece: Uint8Array) => void piece });
const whole: Uint8Array = migrate(source, { pieceSize: 64 });
const problems: Diagnostic[] = inspectSession(source, { pieceSize: 64 });
const roots: SessionTreeNode[] = getTree(entries);
const context: SessionContext = buildSessionContext("", null);
exercise({ buildSessionContext, getTree, migrate, parseSession });
void [changed, bytes, text, streamed, whole, problems, roots, context];
