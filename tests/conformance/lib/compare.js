// Comparison of our package with pi on one session file, every function and input form.
import { Rng } from "../../shared/rng.mjs";
import { ours } from "./ours.js";
import {
  piBuildContextEntriesRaw,
  piBuildSessionContextRaw,
  piBuildSessionProjectionRaw,
  piCurrentSystemMessage,
  piLoadEntries,
  piMigrateParsed,
  piMigrateText,
  piOverFile,
  piParse,
  piTree,
  sourceText,
} from "./reference.js";

/** The leaf-taking functions compared with pi, each with pi's function of the same name. */
const leafFunctions = [
  ["buildSessionContext", piBuildSessionContextRaw],
  ["buildContextEntries", piBuildContextEntriesRaw],
  ["buildSessionProjection", piBuildSessionProjectionRaw],
  ["currentSystemMessage", piCurrentSystemMessage],
];

/**
 * Whether a generated case is a session as pi 1.6 writes it (system messages, context edits,
 * usage, retain-none compactions, checkpoints, null content): every odd case seed, always.
 */
export const isPi16Case = (seed) => (seed & 1) === 1;

// ids made by pi's v1→v2 migration (8 hex digits, or a full uuid in its fallback)
const ID_RE = /"([0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?)"/g;

/** The quoted id-shaped strings present in the input: those are not freshly generated. */
export function inputIdSet(text) {
  return new Set(text.match(ID_RE) ?? []);
}

/** Replace freshly generated ids (not in the input) by their rank of first appearance. */
export function normalizeIds(json, inputIds) {
  const map = new Map();
  return json.replace(ID_RE, (m) => {
    if (inputIds.has(m)) return m;
    let r = map.get(m);
    if (!r) {
      r = `"<new-id#${map.size + 1}>"`;
      map.set(m, r);
    }
    return r;
  });
}

/** A one-line rendering of a string: line breaks, tabs and control characters made visible. */
export function visible(s) {
  return s.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it makes visible
    /[\u0000-\u001f\u2028\u2029]/g,
    (c) => ({ "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Short description of where two strings first differ. */
export function excerpt(expected, actual, width = 160) {
  if (typeof expected !== "string" || typeof actual !== "string")
    return `pi: ${String(expected).slice(0, width)}\n ours: ${String(actual).slice(0, width)}`;
  let i = 0;
  const n = Math.min(expected.length, actual.length);
  while (i < n && expected.charCodeAt(i) === actual.charCodeAt(i)) i++;
  const from = Math.max(0, i - width / 2);
  const to = i + width / 2;
  return `first difference at char ${i} (lengths pi ${expected.length}, ours ${actual.length})\n    pi:   ${visible(expected.slice(from, to))}\n    ours: ${visible(actual.slice(from, to))}`;
}

export function stringifyOrThrow(fn) {
  try {
    const v = fn();
    if (v === undefined) return "<undefined>";
    return JSON.stringify(v);
  } catch (e) {
    return `<throws ${e?.constructor?.name ?? "?"}: ${e?.message ?? e}>`;
  }
}

/** A Uint8Array holding the UTF-8 of text; sometimes a view at an offset into a larger buffer. */
export function toBytes(text, rng) {
  const enc = Buffer.from(text, "utf8");
  if (rng?.chance(0.3)) {
    const pad = rng.range(1, 13);
    const big = new Uint8Array(enc.length + pad + 7);
    big.fill(0x7b); // '{' around it: a reader that ignores byteOffset/length sees garbage
    big.set(enc, pad);
    return big.subarray(pad, pad + enc.length);
  }
  const u = new Uint8Array(enc.length);
  u.set(enc);
  return u;
}

function isBlank(line) {
  return line.trim() === "";
}
function parses(line) {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
function splitLines(text) {
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const leafLabel = (leafArgs) => (leafArgs.length === 0 ? "leaf omitted" : `leaf ${JSON.stringify(leafArgs[0])}`);

/**
 * Compare every function on one session text. Returns a list of differences
 * ({ fn, form, leaf?, detail }). `rng` picks leaf ids and byte layouts; `extraLeaves`
 * adds leaf choices (arrays of arguments, e.g. [] or ["abc"]).
 */
export function compareSession(text, { rng = new Rng(1), extraLeaves = [], leafCount = 2 } = {}) {
  const diffs = [];
  const ids = inputIdSet(text);
  const norm = (s) => (typeof s === "string" ? normalizeIds(s, ids) : s);
  const same = (fn, form, expected, actual, leaf) => {
    const e = norm(expected);
    const a = norm(actual);
    if (e !== a) diffs.push({ fn, form, ...(leaf ? { leaf } : {}), detail: excerpt(e, a) });
  };
  const bytes = toBytes(text, rng);
  // Each form is compared with pi on the text that form carries: the bytes' text is what they
  // decode to, which differs from `text` when it holds a lone surrogate (UTF-8 has no spelling
  // for one, so the encoder wrote U+FFFD).
  const bytesText = sourceText(bytes);
  const forms = [
    ["string", () => text, text],
    ["Uint8Array", () => bytes, bytesText],
  ];
  // The same bytes as a byte source read in small pieces (1 to 97 bytes, set by the size
  // so a seed replays), for the functions that read a source by piece: piece boundaries
  // fall mid-line, mid-character and mid-string.
  const pieceSize = 1 + (bytes.length % 97);
  const byPiece = [...forms, ["source", () => memorySource(bytes), bytesText]];
  const call = (fn, form, input, args) =>
    form === "source"
      ? ours[fn](input(), ...(fn === "getTree" ? [] : args.length ? args : [undefined]), { pieceSize })
      : ours[fn](input(), ...args);

  // ---- parseSession
  for (const [form, input, formText] of forms)
    same(
      "parseSession",
      form,
      stringifyOrThrow(() => piParse(formText)),
      stringifyOrThrow(() => ours.parseSession(input())),
    );

  // ---- migrate(entries): in place, returns whether anything was migrated
  {
    let piFlag;
    const expArr = stringifyOrThrow(() => {
      const { entries, migrated } = piMigrateParsed(text);
      piFlag = migrated;
      return entries;
    });
    const mine = piParse(text);
    const before = mine.slice();
    let flag;
    const actArr = stringifyOrThrow(() => {
      flag = ours.migrate(mine);
      return mine;
    });
    same("migrate", "entries", expArr, actArr);
    if (flag !== piFlag)
      diffs.push({ fn: "migrate", form: "entries", detail: `return value: pi ${piFlag}, ours ${flag}` });
    if (mine.length !== before.length || before.some((e, i) => e !== mine[i]))
      diffs.push({
        fn: "migrate",
        form: "entries",
        detail: "not migrated in place: the array's element objects were replaced or the array changed length",
      });
  }
  // The source form streams: `write` gets the migrated file a piece at a time, nothing for
  // a current one (the source is then its own migration, and the result is its text).
  const streamed = () => {
    const chunks = [];
    const migrated = ours.migrate(memorySource(bytes), { pieceSize, write: (b) => chunks.push(b) });
    if (!migrated && chunks.length > 0) throw new Error(`a current file, yet ${chunks.length} pieces were written`);
    return migrated ? new TextDecoder("utf-8", { ignoreBOM: true }).decode(Buffer.concat(chunks)) : bytesText;
  };
  const migratedAs = {};
  for (const [form, input, formText] of byPiece) {
    let exp;
    try {
      exp = piMigrateText(formText);
    } catch (e) {
      exp = { error: `<throws ${e?.message}>` };
    }
    let out;
    try {
      out = form === "source" ? streamed() : ours.migrate(input());
    } catch (e) {
      out = `<throws ${e?.constructor?.name}: ${e?.message}>`;
    }
    if (exp.error) {
      diffs.push({
        fn: "migrate",
        form,
        detail: `pi threw ${exp.error}; ours returned ${String(out).slice(0, 100)}`,
      });
      continue;
    }
    // Bytes in, bytes out: UTF-8 of the text, compared as text (a BOM kept).
    const wantBytes = form === "Uint8Array";
    if (wantBytes && out instanceof Uint8Array && !Buffer.isBuffer(out))
      out = new TextDecoder("utf-8", { ignoreBOM: true }).decode(out);
    else if (wantBytes || typeof out !== "string") {
      diffs.push({
        fn: "migrate",
        form,
        detail: `expected ${wantBytes ? "a Uint8Array" : "a string"}, got ${out?.constructor?.name ?? typeof out}: ${String(out).slice(0, 200)}`,
      });
      continue;
    }
    migratedAs[form] = out;
    if (!exp.migrated) {
      // deliberate difference (b): a v3 file comes back byte for byte
      if (out !== formText)
        diffs.push({
          fn: "migrate",
          form,
          detail: `v3 (or later) file not returned unchanged\n  ${excerpt(formText, out)}`,
        });
      continue;
    }
    const inLines = splitLines(formText);
    const outLines = splitLines(out);
    if (inLines.length !== outLines.length) {
      diffs.push({
        fn: "migrate",
        form,
        detail: `output has ${outLines.length} lines, input ${inLines.length} (every input line must stay in place)\n  ${excerpt(exp.text, out)}`,
      });
      continue;
    }
    const jsonOut = [];
    for (let i = 0; i < inLines.length; i++) {
      const l = inLines[i];
      if (isBlank(l) || !parses(l)) {
        // deliberate difference (a): malformed and blank lines stay verbatim where they were
        if (outLines[i] !== l)
          diffs.push({
            fn: "migrate",
            form,
            detail: `line ${i + 1} (not JSON) not kept verbatim\n  ${excerpt(l, outLines[i])}`,
          });
      } else jsonOut.push(outLines[i]);
    }
    const piLines = exp.text.split("\n");
    piLines.pop();
    same("migrate", form, piLines.join("\n"), jsonOut.join("\n"));
  }
  // Streamed by piece, the very text the bytes give (new ids aside: each call draws its own).
  if (typeof migratedAs.source === "string")
    same("migrate", "source = Uint8Array", migratedAs.Uint8Array, migratedAs.source);

  // ---- inspectSession: by piece, the diagnostics (line numbers and all) of the bytes
  // (the package's own function: the shim, being pi, has none)
  if (typeof ours.inspectSession === "function")
    same(
      "inspectSession",
      "source",
      stringifyOrThrow(() => ours.inspectSession(bytes)),
      stringifyOrThrow(() => ours.inspectSession(memorySource(bytes), { pieceSize })),
    );

  // ---- getTree: against pi opening the same file
  const arr = (() => {
    try {
      return piLoadEntries(text);
    } catch {
      return null;
    }
  })();
  const arrBefore = arr ? JSON.stringify(arr) : null;
  for (const [form, input, formText] of byPiece)
    same(
      "getTree",
      form,
      stringifyOrThrow(() => piTree(formText)),
      stringifyOrThrow(() => call("getTree", form, input, [])),
    );
  if (arr)
    same(
      "getTree",
      "entries",
      stringifyOrThrow(() => piTree(text)),
      stringifyOrThrow(() => ours.getTree(arr)),
    );

  // ---- buildSessionContext and the other leaf-taking functions
  {
    const known = arr
      ? arr
          .filter((e) => e && e.type !== "session" && typeof e.id === "string" && ids.has(`"${e.id}"`))
          .map((e) => e.id)
      : [];
    const headerId = arr?.find((e) => e?.type === "session")?.id;
    const leaves = [[], ...extraLeaves];
    if (rng.chance(0.4)) leaves.push([null]);
    for (let i = 0; i < leafCount && known.length; i++) leaves.push([rng.pick(known)]);
    if (rng.chance(0.3)) leaves.push([rng.pick(["nonexistent", "zzzzzzzz", "00000000-not-there"])]);
    if (headerId !== undefined && rng.chance(0.1)) leaves.push([headerId]);
    if (rng.chance(0.05)) leaves.push([""]);
    if (rng.chance(0.05)) leaves.push([undefined]);
    for (const leafArgs of leaves) {
      const label = leafLabel(leafArgs);
      for (const [fn, piFn] of leafFunctions) {
        const expected = new Map();
        for (const [form, input, formText] of byPiece) {
          if (!expected.has(formText))
            expected.set(
              formText,
              stringifyOrThrow(() => piOverFile(piFn, piLoadEntries(formText), leafArgs)),
            );
          same(
            fn,
            form,
            expected.get(formText),
            stringifyOrThrow(() => call(fn, form, input, leafArgs)),
            label,
          );
        }
      }
    }
    if (arr) {
      // array form: the already migrated array, also leaves among freshly made ids
      const arrLeaves = [...leaves];
      const allIds = arr.filter((e) => e && e.type !== "session").map((e) => e.id);
      if (allIds.length && !known.length) arrLeaves.push([rng.pick(allIds)]);
      const msgObjects = new Set(arr.filter((e) => e?.type === "message").map((e) => e.message));
      for (const leafArgs of arrLeaves) {
        const label = leafLabel(leafArgs);
        let piCtx;
        const exp = stringifyOrThrow(() => (piCtx = piOverFile(piBuildSessionContextRaw, arr, leafArgs)));
        let ctx;
        const act = stringifyOrThrow(() => (ctx = ours.buildSessionContext(arr, ...leafArgs)));
        same("buildSessionContext", "entries", exp, act, label);
        for (const [fn, piFn] of leafFunctions.slice(1))
          same(
            fn,
            "entries",
            stringifyOrThrow(() => piOverFile(piFn, arr, leafArgs)),
            stringifyOrThrow(() => ours[fn](arr, ...leafArgs)),
            label,
          );
        if (piCtx && ctx && Array.isArray(ctx.messages)) {
          const bad = piCtx.messages.findIndex((m, k) => msgObjects.has(m) && ctx.messages[k] !== m);
          if (bad >= 0)
            diffs.push({
              fn: "buildSessionContext",
              form: "entries",
              leaf: label,
              detail: `messages[${bad}] is not the entry's own message object (=== expected)`,
            });
        }
      }
      if (JSON.stringify(arr) !== arrBefore)
        diffs.push({
          fn: "getTree/buildSessionContext",
          form: "entries",
          detail: "the input entry array was modified",
        });
    }
  }
  return diffs;
}

/** A byte source over `bytes` in memory, read by range. */
function memorySource(bytes) {
  return {
    name: "the generated session",
    size: bytes.length,
    read: (offset, length) => bytes.slice(offset, offset + length),
  };
}

/** Format differences for a failure message. */
export function formatDiffs(diffs, max = 5) {
  const lines = diffs.slice(0, max).map((d) => `  - ${d.fn} [${d.form}${d.leaf ? `, ${d.leaf}` : ""}]: ${d.detail}`);
  if (diffs.length > max) lines.push(`  ... and ${diffs.length - max} more`);
  return lines.join("\n");
}
