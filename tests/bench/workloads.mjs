// Seeded generators for the benchmark workloads.
//
// Every workload is a Buffer holding a session file written the way pi writes
// one: `JSON.stringify(entry) + "\n"` per line, entry objects built with the
// key order of pi's own `SessionManager.append*` methods (1.6.0). The same
// seed gives the same bytes on every machine and every Node version (the
// generator uses the suites' seeded PRNG, tests/shared/rng.mjs, never
// Math.random, and no clock).
//
// Shapes and size distributions are calibrated against a real pi session
// (1,003 lines, 2.4 MB, version 1): per line about 48% assistant messages
// (mostly tool calls, some thinking/text blocks, a `usage` object each), 45%
// tool results (median ~1 KB, a tail into tens of KB for `read`), 5% user
// messages, and a few model/thinking-level changes and bash executions.
// Tool-result tools: bash 45%, edit 28%, read 24%, write 3%. Message text is
// scaled down (SCALE below) so that 4,000 lines come to about 4 MB.
//
// Workloads (name: seed, what):
//   linear    0x11A7EA23  v3, 4,000 entries, 4.5 MB, one chain, never compacted
//   compacted 0xC0C0ACBF  v3, 4,000 entries, 3.9 MB, one chain, a compaction
//                         every ~1,000 entries (firstKeptEntryId 4-60 entries
//                         back on the path, at a user/assistant message)
//   branched  0xB4A2C4ED  v3, 100,000 entries, 69 MB: /tree navigation (new siblings
//                         under earlier entries, sometimes after a branch
//                         summary), labels set and cleared, compactions every
//                         ~1,000 entries along each path, a few custom
//                         messages; smaller messages (BRANCHED_SCALE)
//   v1        0x00000005  version 1, 20,000 entries, 21 MB: header
//                         without version, no ids, compactions with
//                         `firstKeptEntryIndex`
//   pi16      0x16016016  v3 as pi 1.6 writes it, 4,000 entries, 3.9 MB: a
//                         system message at the start and every ~50 entries,
//                         a context edit every ~20, usage entries, a compaction
//                         every ~1,000 with usage and the system checkpoint
//   pi16-intl 0x016E7E16  pi16 with international text, 4,000 entries, 6 MB:
//                         prose in CJK, Hangul, Cyrillic, accents and emoji,
//                         code and tool output with most words swapped too;
//                         about 25% of the characters are not ASCII
//   pi16-heavy 0x16AEAB16 pi16 at 20,000 entries, 30 MB, compacted every
//                         ~3,000 (issue 23's heavy pi 1.6 session): about a
//                         fifth of the words (runs of letters, digits or
//                         emoji, JSON keys and ids included) are not ASCII
//
// writeLargeSession() streams sessions of a GB and more to a file for
// `large.mjs` (make bench-large); see its comment.
//
// Usage: `import { makeWorkload, WORKLOADS } from "./workloads.mjs"`;
// `makeWorkload("linear")` returns `{ name, seed, bytes, entries, description }`.
// `node workloads.mjs [dir]` writes them all as .jsonl files (for inspection).

import { closeSync, openSync, writeSync } from "node:fs";
import { Rng } from "../shared/rng.mjs";
import { checkpoint as systemCheckpoint } from "../shared/sessions.mjs";

export const SEEDS = {
  linear: 0x11a7ea23,
  compacted: 0xc0c0acbf,
  branched: 0xb4a2c4ed,
  v1: 0x00000005,
  pi16: 0x16016016,
  "pi16-intl": 0x16e7e16,
  "pi16-heavy": 0x16aeab16,
};

/** Text-size multiplier for the ~1 KB-per-line workloads (linear, compacted, v1). */
export const SCALE = 0.24;
/** Text-size multiplier for `pi16-heavy` (20,000 entries in about 30 MB). */
export const HEAVY_SCALE = 0.33;
/** Text-size multiplier for the 100,000-entry branched workload. */
export const BRANCHED_SCALE = 0.08;

// ---------------------------------------------------------------------------
// Text pools. Message text is a slice of one of these at a random offset:
// code (read/edit/write), shell output (bash), prose (markdown: user prompts,
// assistant text, thinking, summaries). They contain what real tool output
// contains and JSON must escape: newlines, tabs, quotes, backslashes, and a
// little non-ASCII (about 0.5% of the bytes, as in the real session).

const WORDS = (
  "session entry tree node leaf parent child branch label summary compaction context message model " +
  "provider thinking level tool call result read write edit bash agent user assistant token usage cost " +
  "file path line column offset limit buffer string array object index map set value key type id " +
  "render update handle event listener queue stream abort retry error warning status state config " +
  "options settings theme editor footer header component container input output command process " +
  "the a of to in and is it for that this with on as be are was can not we should will just now let " +
  "first then next after before because so but if when which where what how all some more less same"
).split(" ");
const IDENTS = (
  "sessionManager entries leafId parentId byId labelsById fileEntries messages agentState thinkingLevel " +
  "modelRegistry toolCall toolResult appendMessage buildSessionContext getTree migrate parseLine " +
  "renderer container editor footer options settings result error value index count buffer text chunk " +
  "handleEvent onUpdate subscribe dispose compact branchSummary firstKept tokensBefore cwd sessionFile"
).split(" ");
const DIRS = [
  "src",
  "src/core",
  "src/modes/interactive",
  "src/tui",
  "test",
  "packages/ai/src",
  "packages/agent/src",
  "docs",
];
const EXTS = [".ts", ".ts", ".ts", ".tsx", ".js", ".json", ".md"];
const NON_ASCII = ["→", "✓", "✗", "…", "é", "─", "│", "•", "°", "ü", "—", "⚠"];

// Pieces from `next()` joined with `sep`, until the text is `length` long.
function joinUpTo(length, sep, next) {
  const parts = [];
  let n = 0;
  while (n < length) {
    const part = next();
    parts.push(part);
    n += part.length + sep.length;
  }
  return parts.join(sep);
}

function buildCodePool(rng, length) {
  let depth = 0;
  return joinUpTo(length, "\n", () => {
    const ind = "\t".repeat(depth);
    const a = rng.pick(IDENTS);
    const b = rng.pick(IDENTS);
    const w = rng.pick(WORDS);
    let line;
    switch (rng.range(0, 13)) {
      case 0:
        line = `import { ${a}, type ${b} } from "../${rng.pick(DIRS)}/${w}.js";`;
        break;
      case 1:
        line = `${ind}const ${a} = await this.${b}.${rng.pick(IDENTS)}(${w.length}, "${w}");`;
        break;
      case 2:
        line = `${ind}if (${a} === null || ${b}.length > ${rng.range(0, 999)}) {`;
        depth = Math.min(depth + 1, 6);
        break;
      case 3:
      case 4:
        line = `${ind}}`;
        depth = Math.max(depth - 1, 0);
        break;
      case 5:
        line = `${ind}// ${rng.pick(WORDS)} ${rng.pick(WORDS)} ${w} ${rng.pick(WORDS)} ${rng.chance(0.15) ? `${rng.pick(NON_ASCII)} ` : ""}${rng.pick(WORDS)}`;
        break;
      case 6:
        line = `${ind}return ${a}.map((${w}) => ${w}.${b}).filter(Boolean);`;
        break;
      case 7:
        line = `${ind}throw new Error(\`${w} ${rng.pick(WORDS)}: \${${a}}\`);`;
        break;
      case 8:
        line = `${ind}const re = /^\\s*(${w}|${rng.pick(WORDS)})\\b/;`;
        break;
      case 9:
        line = `${ind}${a}.set("${rng.hex(6)}", { ${b}: ${rng.range(0, 99)}, label: "${w}" });`;
        break;
      case 10:
        line = "";
        break;
      case 11:
        line = `${ind}export function ${a}(${b}: string, ${w}?: number): void {`;
        depth = Math.min(depth + 1, 6);
        break;
      default:
        line = `${ind}${a} = ${b} ?? ${JSON.stringify(`${w} ${rng.pick(WORDS)}`)};`;
    }
    return line;
  });
}

function buildShellPool(rng, length) {
  return joinUpTo(length, "\n", () => {
    let line;
    const path = `${rng.pick(DIRS)}/${rng.pick(IDENTS)}${rng.pick(EXTS)}`;
    switch (rng.range(0, 7)) {
      case 0:
        line = `${path}:${rng.range(1, 2400)}:${rng.range(1, 80)} lint/${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(WORDS)}`;
        break;
      case 1:
        line = `  ${rng.chance(0.9) ? "✓" : "✗"} ${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(IDENTS)} (${rng.range(0, 900)} ms)`;
        break;
      case 2:
        line = `${rng.hex(7)} ${rng.pick(WORDS)}: ${rng.pick(WORDS)} ${rng.pick(IDENTS)} ${rng.pick(WORDS)}`;
        break;
      case 3:
        line = `-rw-r--r--  1 user  staff  ${rng.range(100, 99999)} Dec  ${rng.range(1, 9)} 1${rng.range(0, 9)}:${rng.range(10, 59)} ${path}`;
        break;
      case 4:
        line = `    ${rng.range(1, 999)} │ ${rng.pick(IDENTS)}("${rng.pick(WORDS)}", ${rng.pick(IDENTS)});`;
        break;
      case 5:
        line = `${path}`;
        break;
      case 6:
        line = `  > ${rng.range(1, 999)} │\tconst ${rng.pick(IDENTS)} = "${rng.pick(WORDS)}\\n";`;
        break;
      default:
        line = `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(WORDS)}`;
    }
    return line;
  });
}

function buildProsePool(rng, length) {
  return joinUpTo(length, "\n\n", () => {
    let para;
    const r = rng.range(0, 9);
    if (r === 0) para = `## ${cap(rng.pick(WORDS))} ${rng.pick(WORDS)} ${rng.pick(IDENTS)}`;
    else if (r <= 2) {
      const items = [];
      for (let i = rng.range(2, 5); i > 0; i--) items.push(`- **${rng.pick(IDENTS)}**: ${sentence(rng)}`);
      para = items.join("\n");
    } else if (r === 3)
      para = `\`\`\`ts\nconst ${rng.pick(IDENTS)} = ${rng.pick(IDENTS)}("${rng.pick(WORDS)}");\n\`\`\``;
    else {
      const s = [];
      for (let i = rng.range(1, 4); i > 0; i--) s.push(sentence(rng));
      para = s.join(" ");
    }
    return para;
  });
}

function sentence(rng) {
  const words = [];
  for (let i = rng.range(5, 16); i > 0; i--) {
    const r = rng.next();
    words.push(r < 0.12 ? `\`${rng.pick(IDENTS)}\`` : r < 0.125 ? rng.pick(NON_ASCII) : rng.pick(WORDS));
  }
  return cap(words.join(" ")) + rng.pick([".", ".", ".", ":", "?", "!"]);
}

function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

let POOLS = null;
function pools() {
  if (!POOLS) {
    const rng = new Rng(0x7e47);
    POOLS = {
      code: buildCodePool(rng, 1 << 19),
      shell: buildShellPool(rng, 1 << 18),
      prose: buildProsePool(rng, 1 << 18),
      b64: rng.chars(B64, 1 << 15),
    };
  }
  return POOLS;
}

// International text: the same pools with words swapped for CJK, accented Latin, Cyrillic,
// Arabic and emoji, until about a quarter of the characters (code points) are not ASCII.
const INTL_WORDS = [
  "会话树",
  "上下文窗口",
  "压缩摘要",
  "分支节点",
  "读取文件内容",
  "测试失败了",
  "请再运行一次",
  "日本語のテキスト",
  "ファイルを読む",
  "コンパクション",
  "セッションツリー",
  "한국어 문장",
  "테스트를 실행",
  "세션 트리",
  "привет",
  "сессия",
  "مرحبا",
  "café",
  "résumé",
  "Größe",
  "déjà",
  "façade",
  "ñandú",
  "Ærøskøbing",
  "🚀",
  "✅",
  "👩‍💻",
  "🎉",
  "😀",
  "🇯🇵",
];
/** The chance that a word of the pools is swapped: tuned so that the workload's text is ~25% non-ASCII. */
const INTL_SWAP = 0.9;

function intlize(rng, text, swap) {
  const word = () => rng.pick(INTL_WORDS);
  return text.replace(/[A-Za-z]{2,}/g, (w) =>
    rng.chance(swap) ? (rng.chance(0.5) ? word() : `${word()}${word()}`) : w,
  );
}

/** The pools with words swapped by `intlize`, at each pool's own chance. */
function swappedPools(seed, { code, shell, prose }) {
  const rng = new Rng(seed);
  const base = pools();
  return {
    code: intlize(rng, base.code, code),
    shell: intlize(rng, base.shell, shell),
    prose: intlize(rng, base.prose, prose),
    b64: base.b64,
  };
}

let INTL_POOLS = null;
function intlPools() {
  // prompts, replies and thinking in the user's language; code and tool output partly
  INTL_POOLS ??= swappedPools(0x1e7e, { code: INTL_SWAP, shell: INTL_SWAP, prose: 1 });
  return INTL_POOLS;
}

// The heavy pi 1.6 workload's text (issue 23): about a fifth of the words of every pool swapped.
const HEAVY_SWAP = 0.42;
let HEAVY_POOLS = null;
function heavyPools() {
  HEAVY_POOLS ??= swappedPools(0x4ea7, { code: HEAVY_SWAP, shell: HEAVY_SWAP, prose: HEAVY_SWAP });
  return HEAVY_POOLS;
}

/** The share of code points in `text` that are not ASCII. */
export function nonAsciiShare(text) {
  let all = 0;
  let non = 0;
  for (const ch of text) {
    all++;
    if (ch.codePointAt(0) > 0x7f) non++;
  }
  return all ? non / all : 0;
}

/** `len` characters from a pool (of `poolSet`), starting at a random line start. */
function slice(rng, pool, len, poolSet = pools) {
  const p = poolSet()[pool];
  len = Math.min(len, p.length - 1);
  let start = rng.range(0, p.length - len - 1);
  if (pool !== "b64") {
    const nl = p.indexOf("\n", start);
    if (nl !== -1 && nl + 1 + len <= p.length) start = nl + 1;
    while (p[start] === "\n" && start + len < p.length) start++;
  }
  return p.slice(start, start + len);
}

// ---------------------------------------------------------------------------
// Conversation simulator: produces message objects (pi's AgentMessage shapes,
// with pi-ai's key order) and hands them to a writer.

const MODELS = [
  { provider: "anthropic", model: "claude-opus-4-5", api: "anthropic-messages", price: [5, 25, 0.5, 6.25] },
  { provider: "anthropic", model: "claude-sonnet-4-5", api: "anthropic-messages", price: [3, 15, 0.3, 3.75] },
  { provider: "openai", model: "gpt-5.1-codex", api: "openai-responses", price: [1.25, 10, 0.125, 0] },
  { provider: "google", model: "gemini-3-pro-preview", api: "google-generative-ai", price: [2, 12, 0.2, 0] },
];
const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high"];
const TOOLS = [
  ["bash", 0.45],
  ["edit", 0.28],
  ["read", 0.24],
  ["write", 0.03],
];
const CWD = "/home/dev/workspaces/pi-mono";

class Conversation {
  constructor(rng, writer, scale, poolSet = pools) {
    this.rng = rng;
    this.w = writer;
    this.scale = scale;
    this.poolSet = poolSet;
    this.model = MODELS[0];
    this.thinkingLevel = "off";
    this.contextTokens = 3000;
  }

  /** Text from one of the pools of this conversation's pool set (ASCII-heavy or international). */
  slice(pool, len) {
    return slice(this.rng, pool, len, this.poolSet);
  }

  sz(median, sigma, min = 1, max = 1e9) {
    return this.rng.size(median * this.scale, sigma, min, max);
  }

  toolCallId() {
    const m = this.model.provider;
    if (m === "openai") return `call_${this.rng.chars(B62, 24)}|fc_${this.rng.hex(40)}`;
    return `toolu_01${this.rng.chars(B62, 22)}`;
  }

  filePath() {
    return `${CWD}/packages/coding-agent/${this.rng.pick(DIRS)}/${this.rng.pick(IDENTS)}${this.rng.pick(EXTS)}`;
  }

  usage(outputTokens) {
    const rng = this.rng;
    const [pi, po, pr, pw] = this.model.price;
    const input = rng.range(1, 10);
    const cacheWrite = rng.chance(0.1) ? rng.range(2000, 40000) : rng.range(50, 3000);
    const cacheRead = this.contextTokens;
    const output = outputTokens;
    const cost = {
      input: (input * pi) / 1e6,
      output: (output * po) / 1e6,
      cacheRead: (cacheRead * pr) / 1e6,
      cacheWrite: (cacheWrite * pw) / 1e6,
      total: 0,
    };
    cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
    this.contextTokens += cacheWrite;
    return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
  }

  userMessage() {
    const text = this.slice("prose", this.sz(240, 0.9, 10, 6000));
    this.contextTokens += text.length >> 2;
    return this.w.message({ role: "user", content: [{ type: "text", text }], timestamp: this.w.tick(1) });
  }

  toolArguments(name) {
    const rng = this.rng;
    switch (name) {
      case "bash":
        return { command: `cd ${CWD} && ${this.slice("shell", this.sz(70, 0.8, 8, 2000)).replace(/\n/g, " && ")}` };
      case "read":
        return rng.chance(0.3)
          ? { path: this.filePath(), offset: rng.range(1, 2000), limit: rng.pick([50, 100, 200]) }
          : { path: this.filePath() };
      case "edit":
        return {
          path: this.filePath(),
          oldText: this.slice("code", this.sz(260, 1.0, 5, 20000)),
          newText: this.slice("code", this.sz(320, 1.0, 5, 20000)),
        };
      default:
        return { path: this.filePath(), content: this.slice("code", this.sz(3500, 1.0, 50, 56000)) };
    }
  }

  toolResult(call) {
    const rng = this.rng;
    const isError = rng.chance(0.05);
    let text;
    let details;
    switch (call.name) {
      case "bash":
        text = this.slice("shell", this.sz(600, 1.2, 1, 16000));
        if (isError) text += `\n\nCommand exited with code ${rng.range(1, 2)}`;
        if (rng.chance(0.1))
          details = {
            truncation: {
              truncated: true,
              truncatedBy: "lines",
              totalLines: rng.range(2000, 9000),
              totalBytes: rng.range(60000, 400000),
              outputLines: 2000,
              outputBytes: text.length,
            },
          };
        break;
      case "read":
        // the tail: a whole file read now and then, tens of KB
        text = rng.chance(0.04)
          ? this.slice("code", this.sz(25000 / SCALE, 0.4, 20, 60000))
          : this.slice("code", this.sz(2000, 1.0, 20, 60000));
        if (rng.chance(0.2))
          details = {
            truncation: {
              content: this.slice("code", this.sz(1500, 0.8, 20, 30000)),
              truncated: true,
              truncatedBy: "lines",
              totalLines: rng.range(2000, 5000),
              totalBytes: rng.range(60000, 200000),
              outputLines: 2000,
              outputBytes: text.length,
            },
          };
        break;
      case "edit":
        if (isError) {
          text = `Could not find the exact text in ${call.arguments.path}. The old text must match exactly including all whitespace and newlines.`;
          details = {};
        } else {
          text = `Successfully replaced text in ${call.arguments.path}. Changed ${call.arguments.oldText.length} characters to ${call.arguments.newText.length} characters.`;
          details = {
            diff: this.slice("code", this.sz(800, 1.0, 20, 24000)).replace(
              /^/gm,
              () => `${rng.chance(0.3) ? "+" : rng.chance(0.3) ? "-" : " "}${String(rng.range(1, 2400)).padStart(5)} `,
            ),
          };
        }
        break;
      default:
        text = `Successfully wrote ${call.arguments.content.length} bytes to ${call.arguments.path}`;
    }
    this.contextTokens += text.length >> 2;
    const message = { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text }] };
    if (details !== undefined) message.details = details;
    message.isError = isError;
    message.timestamp = this.w.tick(rng.range(5, 15000));
    return this.w.message(message);
  }

  assistant({ final }) {
    const rng = this.rng;
    const content = [];
    let out = 0;
    if (this.thinkingLevel !== "off" && rng.chance(0.55)) {
      const thinking = this.slice("prose", this.sz(1100, 0.9, 20, 16000));
      content.push({ type: "thinking", thinking, thinkingSignature: this.slice("b64", this.sz(900, 0.6, 40, 6000)) });
      out += thinking.length >> 2;
    }
    const calls = [];
    if (final) {
      const text = this.slice("prose", this.sz(1000, 1.0, 10, 17000));
      content.push({ type: "text", text });
      out += text.length >> 2;
    } else {
      if (rng.chance(0.45)) {
        const text = this.slice("prose", this.sz(100, 0.9, 5, 2000));
        content.push({ type: "text", text });
        out += text.length >> 2;
      }
      const n = rng.chance(0.9) ? 1 : rng.range(2, 4);
      for (let i = 0; i < n; i++) {
        const r = rng.next();
        let acc = 0;
        let name = "bash";
        for (const [tool, p] of TOOLS) {
          acc += p;
          if (r < acc) {
            name = tool;
            break;
          }
        }
        const call = { type: "toolCall", id: this.toolCallId(), name, arguments: this.toolArguments(name) };
        content.push(call);
        calls.push(call);
        out += JSON.stringify(call.arguments).length >> 2;
      }
    }
    const aborted = rng.chance(0.015);
    const m = this.model;
    const message = {
      role: "assistant",
      content: aborted ? [] : content,
      api: m.api,
      provider: m.provider,
      model: m.model,
      usage: this.usage(aborted ? 0 : Math.max(8, out)),
      stopReason: aborted ? "aborted" : final ? "stop" : "toolUse",
      timestamp: this.w.tick(rng.range(300, 4000)),
    };
    if (aborted) message.errorMessage = "Request was aborted.";
    this.w.message(message);
    this.w.tick(rng.range(800, 60000));
    return aborted ? [] : calls;
  }

  bashExecution() {
    const output = this.slice("shell", this.sz(500, 1.5, 1, 50000));
    return this.w.message({
      role: "bashExecution",
      command: this.slice("shell", this.rng.range(2, 40)).split("\n")[0],
      output,
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: this.w.tick(1),
    });
  }

  /** One user prompt and the agent's work on it (~18 entries on average). */
  turn() {
    const rng = this.rng;
    if (rng.chance(0.05)) {
      this.model = rng.pick(MODELS);
      this.w.modelChange(this.model.provider, this.model.model);
    }
    if (rng.chance(0.05)) {
      this.thinkingLevel = rng.pick(THINKING_LEVELS);
      this.w.thinkingLevelChange(this.thinkingLevel);
    }
    if (rng.chance(0.03)) this.bashExecution();
    this.w.tick(rng.range(2000, 300000));
    this.userMessage();
    const rounds = Math.min(40, Math.floor(-Math.log(1 - rng.next()) * 8));
    for (let i = 0; i < rounds; i++) {
      const calls = this.assistant({ final: false });
      if (calls.length === 0) return; // aborted: the user takes over
      for (const call of calls) this.toolResult(call);
    }
    this.assistant({ final: true });
  }

  compactionSummary() {
    return `# Context Checkpoint\n\n${this.slice("prose", this.rng.size(3800, 0.3, 800, 12000))}`;
  }

  compactionDetails() {
    const rng = this.rng;
    const readFiles = [];
    const modifiedFiles = [];
    for (let i = rng.range(2, 20); i > 0; i--) readFiles.push(this.filePath());
    for (let i = rng.range(0, 10); i > 0; i--) modifiedFiles.push(this.filePath());
    return { readFiles, modifiedFiles };
  }
}

// ---------------------------------------------------------------------------
// Writers: v3 (ids, parentIds, a movable leaf) and v1 (no ids).

const START = Date.UTC(2025, 11, 8, 22, 41, 5, 306);

/** What both writers share: a clock, the entry kinds written the same way, the bytes. */
class Writer {
  constructor(rng) {
    this.rng = rng;
    this.clock = START;
  }
  tick(ms) {
    this.clock += ms;
    return this.clock;
  }
  message(message) {
    return this.append("message", { message });
  }
  modelChange(provider, modelId) {
    return this.append("model_change", { provider, modelId });
  }
  thinkingLevelChange(thinkingLevel) {
    return this.append("thinking_level_change", { thinkingLevel });
  }
  toBuffer() {
    return toBuffer(this.entries);
  }
}

class V3Writer extends Writer {
  constructor(rng) {
    super(rng);
    this.entries = [];
    this.ids = new Set();
    this.idToIndex = new Map();
    this.parent = []; // index of each entry's parent, -1 for none
    this.sinceCompaction = []; // entries on the path since the last compaction
    this.leaf = -1;
    this.entries.push({
      type: "session",
      version: 3,
      id: rng.uuid(),
      timestamp: new Date(this.clock).toISOString(),
      cwd: CWD,
    });
  }
  newId() {
    for (;;) {
      const id = this.rng.hex(8);
      if (!this.ids.has(id)) {
        this.ids.add(id);
        return id;
      }
    }
  }
  /** pi's key order: type, id, parentId, timestamp, then the fields */
  append(type, fields, parent = this.leaf) {
    const id = this.newId();
    const entry = {
      type,
      id,
      parentId: parent === -1 ? null : this.entries[parent].id,
      timestamp: new Date(this.tick(this.rng.range(1, 40))).toISOString(),
      ...fields,
    };
    const index = this.entries.length;
    this.entries.push(entry);
    this.idToIndex.set(id, index);
    this.parent[index] = parent;
    this.sinceCompaction[index] = type === "compaction" ? 0 : parent === -1 ? 1 : this.sinceCompaction[parent] + 1;
    this.leaf = index;
    return index;
  }
  /** entries since the last compaction on the current path */
  pathSinceCompaction() {
    return this.leaf === -1 ? 0 : this.sinceCompaction[this.leaf];
  }
  /** the entry to keep from: 4-60 entries back on the path, at a user or assistant message */
  firstKept(back) {
    let i = this.leaf;
    for (let k = 0; k < back && this.parent[i] !== -1; k++) i = this.parent[i];
    while (this.parent[i] !== -1) {
      const e = this.entries[i];
      if (e.type === "message" && (e.message.role === "user" || e.message.role === "assistant")) break;
      i = this.parent[i];
    }
    return i;
  }
  compaction(conv) {
    const kept = this.firstKept(this.rng.range(4, 60));
    this.append("compaction", {
      summary: conv.compactionSummary(),
      firstKeptEntryId: this.entries[kept].id,
      tokensBefore: this.rng.range(150000, 195000),
      details: conv.compactionDetails(),
      fromHook: false,
    });
    conv.contextTokens = 8000;
  }
}

/**
 * A v3 writer as pi 1.6 writes: a system message at the start and every ~50 entries (sections
 * and tools patched), a context edit every ~20 entries (null, string or blocks, on a message
 * of the current path), usage entries, and compactions with usage and the system checkpoint
 * (the system messages since the previous checkpoint folded onto it). Keys in pi 1.6's order.
 */
class V3Writer16 extends V3Writer {
  constructor(rng, poolSet = pools) {
    super(rng);
    this.poolSet = poolSet;
    this.systems = []; // the checkpoint and the system messages after it, on the current path
    this.nextSystem = rng.range(40, 60);
    this.nextEdit = rng.range(15, 25);
    this.sinceSystem = 0;
    this.sinceEdit = 0;
    this.systemMessage(true);
  }
  text(len) {
    return slice(this.rng, "prose", len, this.poolSet);
  }
  systemMessage(first) {
    const rng = this.rng;
    const message = { role: "system" };
    message.content = first ? `You are an expert coding assistant. ${this.text(600)}` : "";
    if (!first && rng.chance(0.4)) message.content = this.text(rng.range(40, 400));
    const sections = {};
    const names = ["preamble", "cwd", "skills", "agents", "date", "git"];
    for (const name of first ? names : [rng.pick(names), rng.pick(names)])
      sections[name] = !first && rng.chance(0.2) ? null : this.text(rng.range(20, 300));
    message.sections = sections;
    const tools = ["read", "bash", "edit", "write", "grep", "find"];
    if (!first && rng.chance(0.3)) message.toolsRemoved = [{ name: rng.pick(tools) }];
    if (first || rng.chance(0.3))
      message.toolsAdded = (first ? tools : [rng.pick(tools)]).map((name) => ({
        name,
        description: this.text(rng.range(60, 400)),
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      }));
    message.timestamp = this.tick(1);
    this.message(message);
    this.systems.push(message);
  }
  contextEdit() {
    const rng = this.rng;
    // an editable message among the last ~120 entries of the path
    const candidates = [];
    for (let i = this.leaf, k = 0; i !== -1 && k < 120; i = this.parent[i], k++) {
      const e = this.entries[i];
      if (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)) candidates.push(i);
    }
    if (!candidates.length) return;
    const target = this.entries[rng.pick(candidates)];
    const role = target.message.role;
    const text = () => this.text(rng.range(20, 200));
    const replacement = rng.weighted([
      [4, () => null],
      // appendContextEdit stores a string aimed at an assistant or tool result as one text block
      [3, () => (role === "user" ? { content: text() } : { content: [{ type: "text", text: text() }] })],
      [3, () => ({ content: [{ type: "text", text: text() }] })],
    ])();
    this.append("context_edit", { targetId: target.id, replacement });
  }
  usageEntry(conv) {
    const m = conv.model;
    this.append("usage", { kind: "cache_warm", provider: m.provider, model: m.model, usage: conv.usage(0) });
  }
  /** After each turn: the system messages, edits and usage entries that pi 1.6 would have written. */
  afterTurn(conv, added) {
    this.sinceSystem += added;
    this.sinceEdit += added;
    while (this.sinceEdit >= this.nextEdit) {
      this.contextEdit();
      this.sinceEdit -= this.nextEdit;
      this.nextEdit = this.rng.range(15, 25);
    }
    while (this.sinceSystem >= this.nextSystem) {
      this.systemMessage(false);
      this.sinceSystem -= this.nextSystem;
      this.nextSystem = this.rng.range(40, 60);
    }
    if (this.rng.chance(0.3)) this.usageEntry(conv);
  }
  compaction(conv) {
    const kept = this.firstKept(this.rng.range(4, 60));
    const timestamp = this.clock + 20;
    const checkpoint = systemCheckpoint(this.systems, timestamp);
    this.append("compaction", {
      summary: conv.compactionSummary(),
      firstKeptEntryId: this.entries[kept].id,
      tokensBefore: this.rng.range(150000, 195000),
      details: conv.compactionDetails(),
      usage: conv.usage(this.rng.range(500, 3000)),
      fromHook: false,
      systemMessage: checkpoint,
    });
    this.systems = [checkpoint];
    conv.contextTokens = 8000;
  }
}

class V1Writer extends Writer {
  constructor(rng) {
    super(rng);
    this.entries = [
      {
        type: "session",
        id: rng.uuid(),
        timestamp: new Date(this.clock).toISOString(),
        cwd: CWD,
        provider: "anthropic",
        modelId: "claude-opus-4-5",
        thinkingLevel: "off",
      },
    ];
    this.sinceCompaction = 0;
  }
  append(type, fields) {
    this.entries.push({ type, timestamp: new Date(this.tick(this.rng.range(1, 40))).toISOString(), ...fields });
    this.sinceCompaction++;
    return this.entries.length - 1;
  }
  pathSinceCompaction() {
    return this.sinceCompaction;
  }
  compaction(conv) {
    // firstKeptEntryIndex: an index into the parsed lines, header included
    let i = this.entries.length - this.rng.range(4, 60);
    while (i > 1) {
      const e = this.entries[i];
      if (e.type === "message" && (e.message.role === "user" || e.message.role === "assistant")) break;
      i--;
    }
    this.append("compaction", {
      summary: conv.compactionSummary(),
      firstKeptEntryIndex: i,
      tokensBefore: this.rng.range(150000, 195000),
    });
    this.sinceCompaction = 0;
    conv.contextTokens = 8000;
  }
}

function toBuffer(entries) {
  const lines = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) lines[i] = JSON.stringify(entries[i]);
  return Buffer.from(`${lines.join("\n")}\n`, "utf8");
}

// ---------------------------------------------------------------------------
// The workloads.

/** A chain of `count` entries (stops at the first turn boundary past it). */
function chain(rng, writer, { count, compactEvery, scale, poolSet }) {
  const conv = new Conversation(rng, writer, scale, poolSet);
  let next = compactEvery ? rng.range(compactEvery - 100, compactEvery + 100) : Infinity;
  while (writer.entries.length - 1 < count) {
    const before = writer.entries.length;
    conv.turn();
    writer.afterTurn?.(conv, writer.entries.length - before);
    if (writer.pathSinceCompaction() >= next && writer.entries.length - 1 < count) {
      writer.compaction(conv);
      next = rng.range(compactEvery - 100, compactEvery + 100);
    }
  }
  // exactly `count` entries
  writer.entries.length = count + 1;
  return writer;
}

function branched(rng, { count, scale }) {
  const w = new V3Writer(rng);
  const conv = new Conversation(rng, w, scale);
  const labelled = new Set();
  let next = rng.range(900, 1100);
  w.append("session_info", { name: "refactor the session tree" });
  while (w.entries.length - 1 < count) {
    conv.turn();
    if (w.pathSinceCompaction() >= next) {
      w.compaction(conv);
      next = rng.range(900, 1100);
    }
    if (rng.chance(0.02)) {
      w.append("custom_message", {}); // placeholder replaced below, keeps pi's key order
      const e = w.entries[w.leaf];
      const { id, parentId, timestamp } = e;
      w.entries[w.leaf] = {
        type: "custom_message",
        customType: "todo-reminder",
        content: slice(rng, "prose", rng.range(40, 400)),
        display: rng.chance(0.5),
        details: { count: rng.range(1, 9) },
        id,
        parentId,
        timestamp,
      };
    }
    if (rng.chance(0.06)) {
      // label an entry on the current path (pi: appendLabelChange, at the leaf)
      let t = w.leaf;
      for (let k = rng.range(0, 200); k > 0 && w.parent[t] !== -1; k--) t = w.parent[t];
      const targetId = w.entries[t].id;
      labelled.add(targetId);
      w.append("label", {
        targetId,
        label: rng.pick(["checkpoint", "good", "bug here", "before refactor", "try again", "✓ works"]),
      });
    }
    if (labelled.size > 0 && rng.chance(0.02)) {
      // clear a label: `label: undefined`, which JSON.stringify drops
      const targetId = labelled.values().next().value;
      labelled.delete(targetId);
      w.append("label", { targetId, label: undefined });
    }
    if (rng.chance(0.08)) navigate(rng, w, conv);
  }
  w.entries.length = count + 1;
  return w;
}

/** /tree navigation: move the leaf to an earlier entry, maybe with a branch summary. */
function navigate(rng, w, conv) {
  let target;
  if (rng.chance(0.85)) {
    // back to a user message on the current path, up to ~300 entries back
    const users = [];
    for (let i = w.leaf, k = 0; i !== -1 && k < 300; i = w.parent[i], k++) {
      const e = w.entries[i];
      if (e.type === "message" && e.message.role === "user") users.push(i);
    }
    if (users.length === 0) return;
    target = rng.pick(users);
  } else {
    // anywhere earlier in the file (an older branch, another leaf)
    target = rng.range(1, w.entries.length - 1);
  }
  const e = w.entries[target];
  // pi: a user message puts the leaf on its parent (the text goes back to the editor)
  const newLeaf = e.type === "message" && e.message.role === "user" ? w.parent[target] : target;
  w.leaf = newLeaf;
  if (rng.chance(0.5)) {
    const summary = slice(rng, "prose", rng.size(900, 0.6, 100, 6000));
    w.append(
      "branch_summary",
      {
        fromId: newLeaf === -1 ? "root" : w.entries[newLeaf].id,
        summary,
        details: conv.compactionDetails(),
        fromHook: false,
      },
      newLeaf,
    );
  }
}

export const WORKLOADS = {
  linear: {
    seed: SEEDS.linear,
    description: "v3, one chain, never compacted",
    make: (rng) => chain(rng, new V3Writer(rng), { count: 4000, scale: SCALE }),
  },
  compacted: {
    seed: SEEDS.compacted,
    description: "v3, one chain, compacted every ~1,000 entries",
    make: (rng) => chain(rng, new V3Writer(rng), { count: 4000, compactEvery: 1000, scale: SCALE }),
  },
  branched: {
    seed: SEEDS.branched,
    description: "v3, /tree branches, labels, branch summaries, compactions",
    make: (rng) => branched(rng, { count: 100000, scale: BRANCHED_SCALE }),
  },
  v1: {
    seed: SEEDS.v1,
    description: "version 1: no ids, compactions with firstKeptEntryIndex",
    make: (rng) => chain(rng, new V1Writer(rng), { count: 20000, compactEvery: 1000, scale: SCALE }),
  },
  pi16: {
    seed: SEEDS.pi16,
    description: "v3 as pi 1.6 writes it: system messages, context edits, usage, checkpoints",
    make: (rng) => chain(rng, new V3Writer16(rng), { count: 4000, compactEvery: 1000, scale: SCALE }),
  },
  "pi16-intl": {
    seed: SEEDS["pi16-intl"],
    description: "pi16 with about a quarter of the characters non-ASCII (CJK, accents, emoji)",
    make: (rng) =>
      chain(rng, new V3Writer16(rng, intlPools), { count: 4000, compactEvery: 1000, scale: SCALE, poolSet: intlPools }),
  },
  "pi16-heavy": {
    seed: SEEDS["pi16-heavy"],
    description: "pi16 at 20,000 entries, compacted every ~3,000, a fifth of the words non-ASCII",
    make: (rng) =>
      chain(rng, new V3Writer16(rng, heavyPools), {
        count: 20000,
        compactEvery: 3000,
        scale: HEAVY_SCALE,
        poolSet: heavyPools,
      }),
  },
};

/**
 * Workloads that `bench.mjs` does not run through every operation. The
 * manager's open row (`manager.mjs`) reads `branched` continued to 100 MB: the
 * same seed and generator, so its first 100,000 entries are `branched`'s.
 */
export const LARGE_WORKLOADS = {
  "branched-100mb": {
    seed: SEEDS.branched,
    description: "the branched workload continued to 100 MB",
    make: (rng) => branched(rng, { count: 145000, scale: BRANCHED_SCALE }),
  },
};

/**
 * One session of `count` entries as pi 1.6 writes it (the `pi16` workload's
 * writer, compacted every 1,000 entries), for the folders of the usage row.
 */
export function makePi16Session(seed, count) {
  return chain(new Rng(seed), new V3Writer16(new Rng(seed ^ 0x5eed)), {
    count,
    compactEvery: 1000,
    scale: SCALE,
  }).toBuffer();
}

export function makeWorkload(name) {
  const spec = WORKLOADS[name] ?? LARGE_WORKLOADS[name];
  if (!spec) throw new Error(`unknown workload ${name}`);
  const writer = spec.make(new Rng(spec.seed));
  return {
    name,
    seed: spec.seed,
    description: spec.description,
    entries: writer.entries.length - 1,
    bytes: writer.toBuffer(),
  };
}

// `node workloads.mjs [dir]`: write the workloads out and print their make-up.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { writeFileSync, mkdirSync } = await import("node:fs");
  const dir = process.argv[2];
  if (dir) mkdirSync(dir, { recursive: true });
  for (const name of Object.keys(WORKLOADS)) {
    const t0 = performance.now();
    const w = makeWorkload(name);
    const ms = performance.now() - t0;
    const kinds = {};
    let maxLine = 0;
    for (const line of w.bytes.toString("utf8").trim().split("\n")) {
      maxLine = Math.max(maxLine, Buffer.byteLength(line));
      const e = JSON.parse(line);
      const k = e.type === "message" ? `message:${e.message.role}` : e.type;
      kinds[k] = (kinds[k] ?? 0) + 1;
    }
    const share = (nonAsciiShare(w.bytes.toString("utf8")) * 100).toFixed(1);
    console.log(
      `${name}: ${w.entries} entries, ${(w.bytes.length / 1e6).toFixed(2)} MB, longest line ${(maxLine / 1e3).toFixed(1)} KB, ${share}% non-ASCII characters, made in ${ms.toFixed(0)} ms, seed 0x${w.seed.toString(16)}`,
    );
    console.log("  ", JSON.stringify(kinds));
    if (dir) writeFileSync(`${dir}/${name}.jsonl`, w.bytes);
  }
}

// ---------------------------------------------------------------------------
// Sessions of a GB and more (`large.mjs`, `make bench-large`): the same
// conversation written straight to a file, a batch of lines at a time, so no
// string or array ever holds the whole session. The writers keep only a stub of
// each entry written (type, id, a message's role: what compactions, context
// edits and /tree navigation look back at).

/** Lines to a file descriptor, joined and written in batches of about 4 MB. */
class LineSink {
  constructor(fd) {
    this.fd = fd;
    this.parts = [];
    this.pending = 0; // UTF-16 units waiting
    this.bytes = 0; // bytes written
    this.lines = 0;
  }
  line(text) {
    this.parts.push(text);
    this.pending += text.length + 1;
    this.lines++;
    if (this.pending >= 1 << 22) this.flush();
  }
  flush() {
    if (!this.parts.length) return;
    const chunk = Buffer.from(`${this.parts.join("\n")}\n`, "utf8");
    this.parts = [];
    this.pending = 0;
    let done = 0;
    while (done < chunk.length) done += writeSync(this.fd, chunk, done, chunk.length - done);
    this.bytes += chunk.length;
  }
  /** Bytes written or waiting (the waiting ones counted as UTF-16 units: about right). */
  get size() {
    return this.bytes + this.pending;
  }
}

const stub = (e) =>
  e.type === "message" ? { type: e.type, id: e.id, message: { role: e.message.role } } : { type: e.type, id: e.id };

/** A writer class whose entries go to a LineSink once `stream(sink)` is called, leaving stubs behind. */
const streaming = (Base) =>
  class extends Base {
    stream(sink) {
      this.sink = sink;
      for (let i = 0; i < this.entries.length; i++) {
        sink.line(JSON.stringify(this.entries[i]));
        this.entries[i] = stub(this.entries[i]);
      }
    }
    append(...args) {
      const i = super.append(...args);
      if (this.sink) {
        this.sink.line(JSON.stringify(this.entries[i]));
        this.entries[i] = stub(this.entries[i]);
      }
      return i;
    }
  };
const StreamV3Writer = streaming(V3Writer);
const StreamV1Writer = streaming(V1Writer);

/** Text-size multiplier of the large sessions: tool-heavy, about 6 KB a line. */
export const LARGE_SCALE = 3;

/**
 * Writes a session of about `bytes` bytes to `path` (stopping at the first turn past it)
 * and returns `{ bytes, entries, lastId, leaves }`: `leaves` are up to `leafCount` ids of
 * entries without children, spread over the file (v3 only). Version 3: tool-heavy turns,
 * /tree navigation to an earlier entry every ~225 entries (half of them with a branch
 * summary), labels, a compaction every ~1,000 entries along each path. Version 1: one
 * chain without ids, compacted every ~1,000 entries (`firstKeptEntryIndex`).
 */
export function writeLargeSession(path, { bytes, seed, version = 3, scale = LARGE_SCALE, leafCount = 100 }) {
  const rng = new Rng(seed);
  const fd = openSync(path, "w");
  try {
    const sink = new LineSink(fd);
    const w = version === 1 ? new StreamV1Writer(rng) : new StreamV3Writer(rng);
    w.stream(sink);
    const conv = new Conversation(rng, w, scale);
    let next = rng.range(900, 1100);
    while (sink.size < bytes) {
      conv.turn();
      if (w.pathSinceCompaction() >= next) {
        w.compaction(conv);
        next = rng.range(900, 1100);
      }
      if (version === 1) continue;
      if (rng.chance(0.05)) {
        let t = w.leaf;
        for (let k = rng.range(0, 200); k > 0 && w.parent[t] !== -1; k--) t = w.parent[t];
        w.append("label", { targetId: w.entries[t].id, label: rng.pick(["checkpoint", "good", "✓ works"]) });
      }
      if (rng.chance(0.08)) navigate(rng, w, conv);
    }
    sink.flush();
    const entries = w.entries.length - 1;
    const result = { bytes: sink.bytes, entries, lastId: w.entries[entries].id, leaves: [] };
    if (version !== 1) {
      const hasChild = new Uint8Array(w.entries.length);
      for (let i = 1; i < w.entries.length; i++) if (w.parent[i] >= 0) hasChild[w.parent[i]] = 1;
      const all = [];
      for (let i = 1; i < w.entries.length; i++) if (!hasChild[i]) all.push(w.entries[i].id);
      const step = all.length / Math.min(leafCount, all.length);
      for (let k = 0; k < Math.min(leafCount, all.length); k++) result.leaves.push(all[Math.floor(k * step)]);
    }
    return result;
  } finally {
    closeSync(fd);
  }
}
