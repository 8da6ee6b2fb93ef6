// Writes www/sample.jsonl: the session the viewer shows on first load.
//
//   node tests/viewer/gen-sample.mjs
//
// A hand-written, realistic pi session (version 3) about adding a response
// cache to a small weather CLI. It has four leaves, a branch summary, a
// compaction, labels, model and thinking-level changes, a session name,
// custom messages and extension state, tool calls and results (one failing),
// an image, and bash executions (one excluded from the context with `!!`).
// And what pi 1.6 writes: system messages (the prompt, then a change of
// sections and tools), a `cache_warm` usage entry, context edits (a tool
// output replaced, one omitted, an image pruned after the compaction), usage
// on the branch summary and the compaction, and the compaction's checkpoint of
// the system prompt, computed by pi 1.6.0 itself (`make test-deps` first).
// Ids and timestamps are fixed, so the file is reproducible.

import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { buildSessionProjection, getCurrentSystemMessage } from "../shared/pi.mjs";

const OUT = fileURLToPath(new URL("../../www/sample.jsonl", import.meta.url));

// --- a tiny PNG (a bar chart of temperatures) for the image block ----------
function crc32(bytes) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
function chartPng() {
  const w = 96,
    h = 64,
    temps = [14, 17, 21, 19, 24, 27, 22];
  const rows = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) {
      let rgb = [246, 248, 252];
      const bar = Math.floor((x - 6) / 12),
        inBar = x >= 6 && (x - 6) % 12 < 8 && bar < temps.length;
      if (inBar && h - 4 - y < temps[bar] * 2) rgb = bar === 5 ? [232, 93, 4] : [59, 130, 246];
      if (y === h - 4) rgb = [120, 120, 130];
      row.set(rgb, 1 + x * 3);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]).toString("base64");
}

// --- the session ------------------------------------------------------------
const start = Date.parse("2025-06-12T09:14:03.000Z");
let clock = start;
let counter = 0;
const lines = [];
const tick = (s) => (clock += s * 1000);
const nextId = () => ((0x3fa2c1d0 + ++counter * 0x9e3779b1) >>> 0).toString(16).padStart(8, "0");

lines.push({
  type: "session",
  version: 3,
  id: "5f0c2a9e-7b1d-4c3e-9a8f-2d6b1e4c7a90",
  timestamp: new Date(start).toISOString(),
  cwd: "/home/ana/code/forecast-cli",
});

function add(parentId, type, fields, seconds = 5) {
  tick(seconds);
  const id = nextId();
  lines.push({ type, id, parentId, timestamp: new Date(clock).toISOString(), ...fields });
  return id;
}
const usage = (input, output, cacheRead = 0) => {
  const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 0.3e-6, cacheWrite: 0 };
  cost.total = cost.input + cost.output + cost.cacheRead;
  return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost };
};
const user = (parent, content, s = 20) =>
  add(parent, "message", { message: { role: "user", content, timestamp: clock + s * 1000 } }, s);
let model = "claude-sonnet-4-5";
const assistant = (parent, content, { stop = "stop", u = usage(2400, 300, 9000), s = 8, extra = {} } = {}) =>
  add(
    parent,
    "message",
    {
      message: {
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider: "anthropic",
        model,
        usage: u,
        stopReason: stop,
        ...extra,
        timestamp: clock + s * 1000,
      },
    },
    s,
  );
const call = (id, name, args) => ({ type: "toolCall", id, name, arguments: args });
const text = (t) => ({ type: "text", text: t });
const thinking = (t) => ({ type: "thinking", thinking: t });
const result = (parent, toolCallId, toolName, output, isError = false, s = 2) =>
  add(
    parent,
    "message",
    {
      message: {
        role: "toolResult",
        toolCallId,
        toolName,
        content: [text(output)],
        isError,
        timestamp: clock + s * 1000,
      },
    },
    s,
  );
const bash = (parent, command, output, exitCode, extra = {}, s = 15) =>
  add(
    parent,
    "message",
    {
      message: {
        role: "bashExecution",
        command,
        output,
        exitCode,
        cancelled: false,
        truncated: false,
        ...extra,
        timestamp: clock + s * 1000,
      },
    },
    s,
  );

const tool = (name, description, properties) => ({
  name,
  description,
  parameters: { type: "object", properties, required: Object.keys(properties) },
});
const pathArg = { path: { type: "string", description: "File path, relative to the working directory" } };
const system = (parent, fields, s = 1) =>
  add(parent, "message", { message: { role: "system", ...fields, timestamp: clock + s * 1000 } }, s);

const info = add(null, "session_info", { name: "Cache forecast API responses" }, 1);
const m1 = add(info, "model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" }, 1);
const t1 = add(m1, "thinking_level_change", { thinkingLevel: "medium" }, 1);
// pi 1.6 writes the system prompt before the first request.
const sys1 = system(t1, {
  content:
    "You are an expert coding assistant operating inside pi, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files.",
  sections: {
    guidelines:
      "- Use read to examine files before editing.\n- Use edit for precise changes (old text must match exactly).\n- Be concise in your responses.\n- Show file paths clearly when working with files.",
    cwd: "Current working directory: /home/ana/code/forecast-cli",
    date: "Current date: 2025-06-12",
  },
  toolsAdded: [
    tool("read", "Read the contents of a file.", pathArg),
    tool("bash", "Execute a bash command in the current working directory.", {
      command: { type: "string", description: "Bash command to execute" },
    }),
    tool("edit", "Edit a file by replacing exact text.", {
      ...pathArg,
      oldText: { type: "string", description: "Exact text to find" },
      newText: { type: "string", description: "Replacement text" },
    }),
    tool("write", "Write content to a file, creating it if needed.", {
      ...pathArg,
      content: { type: "string", description: "Content to write" },
    }),
  ],
});
const u1 = user(
  sys1,
  "The `forecast` command calls the weather API on **every** run, and we keep hitting the rate limit.\n\nAdd a small on-disk cache with a 10 minute TTL. Start by reading `src/api.ts`.",
);
const a1 = assistant(
  u1,
  [
    thinking(
      "The user wants caching around the API client. I should read src/api.ts to see how requests are made, then check the package layout before writing anything.",
    ),
    text("I'll look at the API client first."),
    call("toolu_01", "read", { path: "src/api.ts" }),
  ],
  { stop: "toolUse" },
);
const r1 = result(
  a1,
  "toolu_01",
  "read",
  `import { fetch } from "undici";

const BASE = "https://api.open-meteo.com/v1/forecast";

export async function getForecast(lat: number, lon: number) {
  const url = \`\${BASE}?latitude=\${lat}&longitude=\${lon}&daily=temperature_2m_max\`;
  const res = await fetch(url);
  if (!res.ok) throw new Error(\`forecast request failed: \${res.status}\`);
  return res.json();
}
`,
);
const a2 = assistant(r1, [call("toolu_02", "bash", { command: "ls src test && grep -n '\"test\"' package.json" })], {
  stop: "toolUse",
});
const r2 = result(
  a2,
  "toolu_02",
  "bash",
  'src:\napi.ts\ncli.ts\nformat.ts\n\ntest:\napi.test.ts\nformat.test.ts\n7:    "test": "node --test test/"',
);
const a3 = assistant(
  r2,
  [
    text(
      "Plan:\n\n1. Add `src/cache.ts` — a JSON file cache under `~/.cache/forecast/`, keyed by the request URL.\n2. Wrap `getForecast` so a fresh entry (younger than **10 minutes**) is returned without a request.\n3. Keep the old behaviour when the cache directory is not writable.",
    ),
    call("toolu_03", "write", {
      path: "src/cache.ts",
      content: 'import { mkdir, readFile, writeFile } from "node:fs/promises";\n// …\n',
    }),
  ],
  { stop: "toolUse" },
);
const r3 = result(a3, "toolu_03", "write", "Successfully wrote 1432 bytes to src/cache.ts");
const a4 = assistant(
  r3,
  [
    call("toolu_04", "edit", {
      path: "src/api.ts",
      oldText: "const res = await fetch(url);",
      newText: "const cached = await cache.get(url);\n  if (cached) return cached;\n  const res = await fetch(url);",
    }),
  ],
  { stop: "toolUse" },
);
const r4 = result(a4, "toolu_04", "edit", "Successfully replaced text in src/api.ts.");
const a5 = assistant(r4, [
  text(
    "Done. `getForecast` now goes through the cache:\n\n```ts\nconst cached = await cache.get(url);\nif (cached) return cached;\n```\n\nEntries older than `TTL_MS = 10 * 60 * 1000` are ignored and refreshed.",
  ),
]);

// Branch D (abandoned early): a question about Redis that failed.
const d1 = user(a5, "Would Redis be a better fit than files here?", 40);
const d2 = assistant(d1, [], {
  stop: "error",
  u: usage(0, 0),
  extra: { errorMessage: "529 overloaded_error: Overloaded" },
});

// pi kept the prompt cache warm while the user was away.
const warm = add(
  a5,
  "usage",
  { kind: "cache_warm", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(0, 1, 11800) },
  110,
);
const b1 = bash(
  warm,
  "npm test",
  "> forecast-cli@0.4.0 test\n> node --test test/\n\n✔ formats a week (1.2ms)\n✖ fetches once per run (12.4ms)\n  AssertionError: expected 2 requests, got 1\n\nℹ tests 2\nℹ pass 1\nℹ fail 1",
  1,
  {},
  120,
);
// An extension trims old tool output from the context: the file read is
// replaced by a note, the directory listing left out.
const e1 = add(
  b1,
  "context_edit",
  {
    targetId: r1,
    replacement: {
      content: [text("[pruned: src/api.ts, 10 lines; getForecast(lat, lon) fetches BASE with undici]")],
    },
  },
  1,
);
const e2 = add(e1, "context_edit", { targetId: r2, replacement: null }, 1);
const u2 = user(
  e2,
  "One test fails now: `fetches once per run` expects two requests. The second call is served from the cache. Fix the test setup.",
);
const a6 = assistant(
  u2,
  [
    thinking(
      "The test calls getForecast twice and counts requests. With the cache, the second call is a hit. Options: clear the cache between calls, or make time controllable. Let me read the test.",
    ),
    call("toolu_05", "read", { path: "test/api.test.ts" }),
  ],
  { stop: "toolUse" },
);
const r5 = result(
  a6,
  "toolu_05",
  "read",
  'test("fetches once per run", async () => {\n  await getForecast(52.5, 13.4);\n  await getForecast(52.5, 13.4);\n  assert.equal(requests, 2);\n});',
);

// Branch A (abandoned): mocking Date.now, the edit fails.
const x1 = assistant(
  r5,
  [
    text("I'll mock `Date.now` so the second call sees an expired entry."),
    call("toolu_06", "edit", {
      path: "test/api.test.ts",
      oldText: "await getForecast(52.5, 13.4);\n  await getForecast",
      newText: "…",
    }),
  ],
  { stop: "toolUse" },
);
const x2 = result(
  x1,
  "toolu_06",
  "edit",
  "Could not find the exact text in test/api.test.ts. The old text must match exactly including all whitespace and newlines.",
  true,
);
const x3 = assistant(x2, [text("The indentation differs; let me retry with the exact text…")], {
  stop: "aborted",
  u: usage(3100, 20, 12000),
});

// Branch B (main line): navigated back to r5 with a summary of branch A.
const s1 = add(
  r5,
  "branch_summary",
  {
    fromId: x3,
    summary:
      "Tried to mock `Date.now` inside the test so the cached entry looks expired. The edit failed (whitespace mismatch) and the user stopped it: mocking globals was judged too fragile.",
    usage: usage(4100, 160),
    fromHook: false,
  },
  300,
);
const u3 = user(s1, "Don't mock globals. Inject a clock into the cache instead, defaulting to `Date.now`.");
const a7 = assistant(
  u3,
  [
    thinking(
      "A `now` parameter in the cache constructor keeps production code unchanged and lets the test advance time explicitly.",
    ),
    call("toolu_07", "edit", {
      path: "src/cache.ts",
      oldText: "constructor(dir: string)",
      newText: "constructor(dir: string, private now = Date.now)",
    }),
  ],
  { stop: "toolUse" },
);
const r6 = result(a7, "toolu_07", "edit", "Successfully replaced text in src/cache.ts.");
const a8 = assistant(r6, [
  text(
    "The cache now takes a `now` function. In the test, pass a fake clock and move it past the TTL between the two calls:\n\n```ts\nlet t = 0;\nconst cache = new Cache(dir, () => t);\nawait getForecast(52.5, 13.4, cache);\nt += 11 * 60_000;\nawait getForecast(52.5, 13.4, cache);\n```",
  ),
]);
const b2 = bash(
  a8,
  "npm test",
  "> forecast-cli@0.4.0 test\n> node --test test/\n\n✔ formats a week (1.1ms)\n✔ fetches once per run (9.8ms)\n✔ serves fresh entries from the cache (2.3ms)\n\nℹ tests 3\nℹ pass 3\nℹ fail 0",
  0,
  {},
  90,
);
const l1 = add(b2, "label", { targetId: a8, label: "tests-green" }, 10);
const l0 = add(l1, "label", { targetId: u1, label: "start" }, 2);
// The user switched skills on: pi 1.6 writes what changed in the prompt.
const sys2 = system(
  l0,
  {
    content: "",
    sections: {
      skills:
        "<available_skills>\n  <skill><name>readme-writer</name><description>Write and update README sections</description></skill>\n</available_skills>",
    },
    toolsAdded: [
      tool("grep", "Search file contents for a pattern.", {
        pattern: { type: "string", description: "Regular expression" },
      }),
    ],
    toolsRemoved: [{ name: "write" }],
  },
  20,
);
const m2 = add(sys2, "model_change", { provider: "anthropic", modelId: "claude-opus-4-1" }, 30);
model = "claude-opus-4-1";
const t2 = add(m2, "thinking_level_change", { thinkingLevel: "high" }, 2);
const u4 = add(
  t2,
  "message",
  {
    message: {
      role: "user",
      content: [
        text(
          "Now document the cache in the README. Here is what `forecast --chart` prints for Berlin, include a sentence about it:",
        ),
        { type: "image", data: chartPng(), mimeType: "image/png" },
      ],
      timestamp: clock + 25000,
    },
  },
  25,
);
const a9 = assistant(
  u4,
  [
    thinking(
      "The chart shows seven daily maxima with Saturday highlighted as the warmest day. The README needs a Caching section: location, TTL, how to bypass.",
    ),
    text(
      "Added a **Caching** section to `README.md`:\n\n## Caching\n\nResponses are stored in `~/.cache/forecast/` for 10 minutes. Delete the directory to start fresh.\n\nThe chart above shows the week for Berlin: Saturday is the warmest day at *27 °C*.",
    ),
  ],
  { u: usage(5200, 420, 22000) },
);

// Branch C: a short detour that was never continued.
const c1 = user(a9, "Translate that section to German as well.", 60);
const c2 = assistant(
  c1,
  [text("## Zwischenspeicher\n\nAntworten werden 10 Minuten lang in `~/.cache/forecast/` gespeichert.")],
  { u: usage(5600, 90, 24000) },
);

// The main line continues: compaction, extension message, more work. As pi
// 1.6's appendCompaction does, the compaction stores the system prompt of the
// context it compacts (pi-ai's getCurrentSystemMessage over the projection at
// its parent), stamped with its own time.
const checkpoint = getCurrentSystemMessage(buildSessionProjection(lines.slice(1), a9).messages);
const k1 = add(
  a9,
  "compaction",
  {
    summary:
      "## Goal\nCache forecast API responses on disk (10 minute TTL).\n\n## Done\n- `src/cache.ts`: JSON file cache keyed by URL, injectable clock.\n- `getForecast` reads through the cache.\n- Tests pass (3/3); README has a Caching section.\n\n## Decisions\n- No global mocks in tests; the clock is injected.",
    firstKeptEntryId: u4,
    tokensBefore: 48210,
    usage: usage(47900, 380),
    fromHook: false,
    systemMessage: { ...checkpoint, timestamp: clock + 400 * 1000 },
  },
  400,
);
const cm = add(
  k1,
  "custom_message",
  {
    customType: "todo-reminder",
    content: "Open TODOs in this repository: 2 (`src/format.ts:14`, `src/cli.ts:88`).",
    display: true,
    details: { count: 2 },
  },
  3,
);
// A new day, and a todo tool instead of grep.
const sys3 = system(
  cm,
  {
    content: "",
    sections: { date: "Current date: 2025-06-13" },
    toolsAdded: [
      tool("todo", "Read and update the session's todo list.", {
        action: { type: "string", description: "list, add or done" },
      }),
    ],
    toolsRemoved: [{ name: "grep" }],
  },
  2,
);
const u5 = user(sys3, "Last thing: add a `--no-cache` flag to the CLI.");
const a10 = assistant(
  u5,
  [
    call("toolu_08", "edit", {
      path: "src/cli.ts",
      oldText: '.option("--chart")',
      newText: '.option("--chart")\n  .option("--no-cache", "always query the API")',
    }),
  ],
  { stop: "toolUse", u: usage(6100, 120, 3000) },
);
const r7 = result(a10, "toolu_08", "edit", "Successfully replaced text in src/cli.ts.");
const a11 = assistant(
  r7,
  [
    text(
      "`forecast --no-cache` now skips the cache and always queries the API. Everything is in place:\n\n- [x] cache with TTL\n- [x] injectable clock, green tests\n- [x] README section\n- [x] `--no-cache` flag",
    ),
  ],
  { u: usage(6400, 150, 3000) },
);
// The image has done its job: an extension prunes it from the context.
const e3 = add(
  a11,
  "context_edit",
  {
    targetId: u4,
    replacement: {
      content: [
        text(
          "Now document the cache in the README. Here is what `forecast --chart` prints for Berlin, include a sentence about it:",
        ),
        text("[image pruned: bar chart of seven daily maxima, Saturday the warmest at 27 °C]"),
      ],
    },
  },
  2,
);
const st = add(e3, "custom", { customType: "git-checkpoint", data: { commit: "a41c9e2", files: 4 } }, 1);
const b3 = bash(
  st,
  "git status --short",
  " M README.md\n M src/api.ts\n M src/cli.ts\n?? src/cache.ts",
  0,
  { excludeFromContext: true },
  20,
);
add(b3, "label", { targetId: a11, label: "ready-to-commit" }, 5);

writeFileSync(OUT, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
console.log(`wrote ${lines.length} lines to ${OUT}`);
void d2;
void c2;
void x3;
