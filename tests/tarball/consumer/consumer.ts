// Type-checked inside the scratch project (tsc --noEmit), as ESM under node16,
// as CommonJS under node16 (consumer.cts) and under moduleResolution bundler.
import {
  buildSessionContext,
  getTree,
  migrate,
  Session,
  type SessionContext,
  type SessionTreeNode,
} from "session-tree";

const text: string = migrate('{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}');
const roots: SessionTreeNode[] = getTree(text);
const context: SessionContext = buildSessionContext(text, null);
const session: Session = Session.create({ cwd: "/" });
const id: string = session.appendMessage({ role: "user", content: "hi", timestamp: 1 });
// @ts-expect-error a number is no leaf id
buildSessionContext(text, 42);
export const used = [roots.length, context.messages.length, id];

// session-tree/node (module node16, nodenext or bundler resolution)
import { type SessionInfo, SessionLockedError, SessionManager } from "session-tree/node";

const manager: SessionManager = SessionManager.create("/", "/tmp/sessions", { durability: "fsync", lockTimeout: 100 });
const entryId: string = manager.appendMessage({ role: "user", content: "hi", timestamp: 1 });
const infos: Promise<SessionInfo[]> = SessionManager.list("/");
const locked: boolean = new Error() instanceof SessionLockedError;
// @ts-expect-error no such durability level
SessionManager.create("/", undefined, { durability: "sometimes" });
export const usedNode = [entryId, infos, locked];
