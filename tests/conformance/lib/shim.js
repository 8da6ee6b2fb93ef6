// A pi-based stand-in for the session-tree package, with our documented API and our
// documented deliberate differences on well-formed input (migrate(text) keeps malformed
// and blank lines in place and returns v3+ files unchanged).
//
// It exists to validate the harness: with CONFORMANCE_IMPL=shim every comparison must
// come out equal, so a difference reported against the real package is the package's.
import {
  migrateSessionEntries,
  parseSessionEntries,
  buildContextEntries as piBuildContextEntries,
  buildSessionContext as piBuildSessionContext,
  buildSessionProjection as piBuildSessionProjection,
  piCurrentSystemMessage,
  SessionManager,
} from "../../shared/pi.mjs";
import { piOverFile, piTree, sourceText } from "./reference.js";

export function parseSession(source, _options) {
  return parseSessionEntries(sourceText(source));
}

function migrateArray(entries) {
  const header = entries.find((e) => e.type === "session");
  const version = header?.version ?? 1;
  migrateSessionEntries(entries);
  return !(version >= 3);
}

export function migrate(source, options) {
  if (Array.isArray(source)) return migrateArray(source);
  // A byte source streamed to `options.write`: here in one piece; nothing for a current file.
  if (typeof options?.write === "function") {
    const text = migrateText(sourceText(source));
    if (text !== null) options.write(new TextEncoder().encode(text));
    return text !== null;
  }
  // Bytes in, bytes out: a current file's bytes as they are, else the UTF-8 of the text.
  if (typeof source !== "string") {
    const text = migrateText(sourceText(source));
    return text === null ? new Uint8Array(source) : new TextEncoder().encode(text);
  }
  return migrateText(source) ?? source;
}

/** The migrated text, or null when nothing is due. */
function migrateText(text) {
  const entries = parseSessionEntries(text);
  if (!migrateArray(entries)) return null;
  // keep every line in place; replace the lines that parsed with their migrated entry
  let k = 0;
  const lines = text.split("\n");
  const out = lines.map((line) => {
    const cr = line.endsWith("\r") ? "\r" : "";
    if (!line.trim()) return line;
    try {
      JSON.parse(line);
    } catch {
      return line;
    }
    return JSON.stringify(entries[k++]) + cr;
  });
  return out.join("\n");
}

export function getTree(source) {
  if (Array.isArray(source)) {
    const sm = SessionManager.inMemory();
    sm.fileEntries = source;
    sm._buildIndex();
    return sm.getTree();
  }
  return piTree(source);
}

/**
 * A leaf-taking function of pi over any source form (text, bytes and byte sources parsed and
 * migrated). Only the leaf goes on to pi: what follows it in our API is `options`.
 */
const overSource =
  (fn) =>
  (source, ...args) => {
    const leafArgs = args.slice(0, 1);
    if (Array.isArray(source)) return piOverFile(fn, source, leafArgs);
    const entries = parseSessionEntries(sourceText(source));
    migrateArray(entries);
    return piOverFile(fn, entries, leafArgs);
  };

export const buildSessionContext = overSource(piBuildSessionContext);
export const buildContextEntries = overSource(piBuildContextEntries);
export const buildSessionProjection = overSource(piBuildSessionProjection);
export const currentSystemMessage = overSource(piCurrentSystemMessage);
