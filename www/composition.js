// What fills the context, and what a session costs, without the DOM: the
// characters and estimated tokens of a context's messages by role and by tool,
// the provider's own input count where the path has one, and usage totals
// with pi's accounting. The worker runs it; tests/viewer/unit/ covers it.

import { NEVER_A_ROW } from "./model.js";

/** Characters per estimated token: pi's own heuristic (its compaction's `estimateTokens`). */
export const CHARS_PER_TOKEN = 4;
/** Tokens an image is estimated at: pi counts an image as 4,800 characters, so 1,200 tokens. */
export const IMAGE_TOKENS = 1200;
/** The estimate, in words, for the page to state beside the figures. */
export const ESTIMATE_NOTE = `estimated tokens = characters ÷ ${CHARS_PER_TOKEN}, rounded up, plus ${IMAGE_TOKENS.toLocaleString("en-US")} per image (pi's own estimate)`;

const isObject = (v) => typeof v === "object" && v !== null;
const str = (v) => (typeof v === "string" ? v : "");

function safeJson(v) {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return "";
  }
}

/** Characters and images of a text-and-image content value (a string counts as one text block). */
function contentSize(content) {
  if (typeof content === "string") return { chars: content.length, images: 0 };
  let chars = 0;
  let images = 0;
  if (Array.isArray(content)) {
    for (const b of content) {
      if (!isObject(b)) continue;
      if (b.type === "text") chars += str(b.text).length;
      else if (b.type === "image") images++;
    }
  }
  return { chars, images };
}

/**
 * The size of one context message, as pi's `estimateTokens` measures it:
 * `{ chars, images, tools }`, where `tools` lists `[toolName, chars]` for the
 * parts that belong to a tool (a tool call's name and arguments, a tool
 * result's content). Text only: an image adds to `images`, not to `chars`.
 *
 * - system: its content's text, every section's text, and its `toolsAdded` as JSON;
 * - user, custom, toolResult: the text blocks (a string content is one block);
 * - assistant: text, thinking, and each tool call's name plus its arguments as JSON;
 * - bashExecution: the command and the output;
 * - branchSummary, compactionSummary: the summary;
 * - any other role: nothing.
 */
export function messageSize(m) {
  const out = { chars: 0, images: 0, tools: [] };
  if (!isObject(m)) return out;
  switch (m.role) {
    case "system": {
      Object.assign(out, contentSize(m.content));
      if (isObject(m.sections)) for (const v of Object.values(m.sections)) out.chars += str(v).length;
      if (m.toolsAdded) out.chars += safeJson(m.toolsAdded).length;
      break;
    }
    case "user":
    case "custom":
      Object.assign(out, contentSize(m.content));
      break;
    case "toolResult": {
      const { chars, images } = contentSize(m.content);
      out.chars = chars;
      out.images = images;
      out.tools = [[String(m.toolName ?? "(unnamed)"), chars]];
      break;
    }
    case "assistant":
      if (Array.isArray(m.content)) {
        for (const b of m.content) {
          if (!isObject(b)) continue;
          if (b.type === "text") out.chars += str(b.text).length;
          else if (b.type === "thinking") out.chars += str(b.thinking).length;
          else if (b.type === "toolCall") {
            const n = str(b.name).length + safeJson(b.arguments).length;
            out.chars += n;
            out.tools.push([String(b.name ?? "(unnamed)"), n]);
          }
        }
      }
      break;
    case "bashExecution":
      out.chars = str(m.command).length + str(m.output).length;
      break;
    case "branchSummary":
    case "compactionSummary":
      out.chars = str(m.summary).length;
      break;
  }
  return out;
}

/** Estimated tokens for `chars` characters and `images` images (see ESTIMATE_NOTE). */
export const estimateTokens = (chars, images = 0) => Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;

const bySize = (a, b) => b.tokens - a.tokens || b.chars - a.chars || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * What fills a context (`buildSessionContext(...).messages`):
 * `{ total, byRole, byTool, lastInput }`. `total` and each row are
 * `{ name, messages, chars, images, tokens }`; rows come largest first. A
 * tool's row counts its calls' and results' characters (`calls`, `results`
 * say how many). `lastInput` is the input the provider reported for the last
 * assistant message that has usage (`input + cacheRead + cacheWrite`, what
 * that request sent), with the message's index, or `null`.
 */
export function composition(messages) {
  const roles = new Map();
  const tools = new Map();
  const total = { name: "total", messages: 0, chars: 0, images: 0, tokens: 0 };
  let lastInput = null;
  messages.forEach((m, index) => {
    const size = messageSize(m);
    const role = isObject(m) ? String(m.role) : "unknown";
    const row = roles.get(role) ?? { name: role, messages: 0, chars: 0, images: 0, tokens: 0 };
    row.messages++;
    row.chars += size.chars;
    row.images += size.images;
    roles.set(role, row);
    total.messages++;
    total.chars += size.chars;
    total.images += size.images;
    for (const [name, chars] of size.tools) {
      const t = tools.get(name) ?? { name, calls: 0, results: 0, chars: 0, images: 0, tokens: 0 };
      if (role === "toolResult") {
        t.results++;
        t.images += size.images;
      } else t.calls++;
      t.chars += chars;
      tools.set(name, t);
    }
    const u = isObject(m) && m.role === "assistant" ? m.usage : null;
    if (isObject(u)) {
      const n = (v) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
      const input = n(u.input);
      const cacheRead = n(u.cacheRead);
      const cacheWrite = n(u.cacheWrite);
      lastInput = { index, input, cacheRead, cacheWrite, total: input + cacheRead + cacheWrite };
    }
  });
  for (const r of [total, ...roles.values(), ...tools.values()]) r.tokens = estimateTokens(r.chars, r.images);
  return {
    total,
    byRole: [...roles.values()].sort(bySize),
    byTool: [...tools.values()].sort(bySize),
    lastInput,
  };
}

/**
 * The usage figures the panels show, from the package's `Session.usage` (pi
 * 1.6's accounting, computed once, in the core): `which` is `"total"` (the
 * whole file, what pi's `getSessionStats` reports) or `"path"` (the root to
 * the leaf). `{ input, output, cacheRead, cacheWrite, total, cost, records,
 * incomplete, by }`: `total` is the tokens (input + output + cache read +
 * cache write), `by` the same split by source (`assistant`, `usage`,
 * `compaction`, `branchSummary`, `toolResult`).
 */
export function usageView(report, which) {
  const of = (u) => ({
    input: u.input,
    output: u.output,
    cacheRead: u.cacheRead,
    cacheWrite: u.cacheWrite,
    total: u.totalTokens,
    cost: u.cost,
    records: u.records,
    incomplete: u.incomplete,
  });
  const by = {};
  for (const [source, u] of Object.entries(report.byKind[which])) by[source] = of(u);
  return { ...of(report[which]), by };
}

/**
 * What each leaf's branch cost, from the package's `Session.usage` report,
 * by node (`ids`: the graph's entry ids): `{ own, path }` dollars for a leaf
 * (`own`: below the last fork above it; `path`: from the root), `null` for
 * the other entries. A session without forks has one branch: no costs.
 * `usage` entries are never a row (pi's /tree): with `types` and `parent`
 * (each node's entry type and parent node, -1 for none), a branch that ends
 * in them has its cost on the entry above them; two such branches that meet
 * there add their own costs.
 */
export function leafCosts(ids, report, types = null, parent = null) {
  const out = new Array(ids.length).fill(null);
  if (report.leaves.length < 2) return out;
  const at = new Map(ids.map((id, i) => [id, i]));
  for (const leaf of report.leaves) {
    let i = at.get(leaf.entryId);
    while (i !== undefined && i >= 0 && NEVER_A_ROW.has(types?.[i]) && parent) i = parent[i];
    if (i === undefined || i < 0) continue;
    const had = out[i];
    out[i] = had
      ? { own: had.own + leaf.own.cost, path: Math.max(had.path, leaf.path.cost) }
      : { own: leaf.own.cost, path: leaf.path.cost };
  }
  return out;
}

/**
 * The line that says what summaries cost, from a `usageView`: the
 * summarizer requests of compactions and of branch summaries, beside the
 * whole cost; `null` when there were none.
 */
export function summaryCostLine(usage) {
  const parts = [];
  for (const [key, one, many] of [
    ["compaction", "compaction", "compactions"],
    ["branchSummary", "branch summary", "branch summaries"],
  ]) {
    const u = usage.by[key];
    if (u?.records) parts.push(`${u.records} ${u.records === 1 ? one : many} $${u.cost.toFixed(4)}`);
  }
  return parts.length ? `Summaries cost ${parts.join(", ")}, of $${usage.cost.toFixed(4)} in all.` : null;
}
