// Unit tests of www/redact.js: each kind of secret in a string written here,
// its exact span worked out by hand.

import assert from "node:assert/strict";
import { test } from "node:test";
import { customFinding, leaks, redactJsonl, redactor, scanEntries, scanText } from "../../../www/redact.js";

const found = (text) => scanText(text).map((f) => [f.kind, f.text]);

// Made-up keys of the right shapes (none of them real).
const KEYS = {
  openai: "sk-proj-Abc123Def456Ghi789Jkl012Mno345",
  anthropic: "sk-ant-api03-Zyx987Wvu654Tsr321Qpo0-_aa",
  github: "ghp_0123456789abcdefghijABCDEFGHIJ012345",
  githubPat: "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
  gitlab: "glpat-AbCdEfGhIj0123456789",
  aws: "AKIAIOSFODNN7EXAMPLE",
  google: "AIzaSyA-1234567890abcdefghijklmnopqrstu",
  slack: "xoxb-1234567890-abcdefghij",
  stripe: "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
  npm: "npm_abcdefghijklmnopqrstuvwxyz0123456789",
  huggingface: "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
};

test("provider keys and tokens are found whole, where they stand alone", () => {
  for (const [name, key] of Object.entries(KEYS)) {
    const kind = name === "githubPat" ? "github" : name;
    assert.deepEqual(found(`the key is ${key}.`), [[kind, key]], name);
    assert.deepEqual(found(`"${key}"`), [[kind, key]], `${name} in quotes`);
  }
  // Too short, or glued to a word: not a key.
  assert.deepEqual(found("sk-short and task-abcdefghijklmnopqrstuvwxyz0123"), []);
  assert.deepEqual(found("XAKIAIOSFODNN7EXAMPLE"), []);
});

test("Bearer headers, private keys, URL passwords", () => {
  assert.deepEqual(found('curl -H "Authorization: Bearer abc.DEF-123_456~x=" https://x'), [
    ["bearer", "abc.DEF-123_456~x="],
  ]);
  // A Bearer header carrying an OpenAI key is an OpenAI key (one finding).
  assert.deepEqual(found(`Bearer ${KEYS.openai}`), [["openai", KEYS.openai]]);
  const block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\nAAAA\n-----END OPENSSH PRIVATE KEY-----";
  assert.deepEqual(found(`cat id_ed25519\n${block}\nok`), [["private-key", block]]);
  // A block cut short runs to the end of the string.
  assert.deepEqual(found("x -----BEGIN RSA PRIVATE KEY-----\nMIIE"), [
    ["private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE"],
  ]);
  assert.deepEqual(found("postgres://app:s3cr3t@db:5432/x"), [["url-password", "s3cr3t"]]);
});

test(".env-style assignments: the value is the secret, not the name", () => {
  assert.deepEqual(found("DB_PASSWORD=hunter22"), [["env", "hunter22"]]);
  assert.deepEqual(found('export GITHUB_TOKEN="abc def ghi"'), [["env", "abc def ghi"]]);
  assert.deepEqual(found("API_SECRET='xyz123'\nMY_KEY: k3y"), [
    ["env", "xyz123"],
    ["env", "k3y"],
  ]);
  assert.deepEqual(found("PASSWORD=letmein"), [["env", "letmein"]]);
  // A variable reference is no secret; a provider key in an assignment is that provider's.
  assert.deepEqual(found("TOKEN=$GITHUB_TOKEN"), []);
  assert.deepEqual(found(`OPENAI_API_KEY=${KEYS.openai}`), [["openai", KEYS.openai]]);
  assert.deepEqual(found("MONKEY=banana"), []);
  // Flags, small numbers, placeholders and lookups are not secrets.
  assert.deepEqual(found("USE_API_KEY=true MAX_TOKEN=4096 MY_SECRET=xxxx API_KEY=process.env.KEY"), []);
  assert.deepEqual(found("MAX_TOKEN=409612"), [["env", "409612"]]);
});

test("home directories of Linux, macOS and Windows", () => {
  assert.deepEqual(found("cd /home/alice/project && ls /Users/bob.smith"), [
    ["home", "/home/alice"],
    ["home", "/Users/bob.smith"],
  ]);
  assert.deepEqual(found("C:\\Users\\carol\\src and D:/Users/dave/x"), [
    ["home", "C:\\Users\\carol"],
    ["home", "D:/Users/dave"],
  ]);
  assert.deepEqual(found("/Users/Shared/x C:\\Users\\Public\\y /home/.cache"), []);
  // A dot after the name ends a sentence; inside it, it is part of the name.
  assert.deepEqual(found("in /home/alice. Then /home/a.b/x"), [
    ["home", "/home/alice"],
    ["home", "/home/a.b"],
  ]);
});

test("scanEntries groups by string, skips ids and types, and shows each place in context", () => {
  const entries = [
    { type: "session", version: 3, id: "s1", cwd: "/home/alice/p" },
    {
      type: "message",
      id: "sk-ant-not-a-secret-because-it-is-an-id-0000",
      parentId: null,
      message: { role: "user", content: [{ type: "text", text: "in /home/alice/p run it" }] },
    },
    { type: "session_info", id: "i1", parentId: "x", name: `key ${KEYS.github}` },
  ];
  const findings = scanEntries(entries);
  assert.deepEqual(
    findings.map((f) => [f.kind, f.text, f.count, f.replacement]),
    [
      ["home", "/home/alice", 2, "~"],
      ["github", KEYS.github, 1, "[REDACTED:github]"],
    ],
  );
  assert.deepEqual(findings[0].places, [
    { entryId: "s1", field: "cwd", before: "", after: "/p" },
    {
      entryId: "sk-ant-not-a-secret-because-it-is-an-id-0000",
      field: "message.content[0].text",
      before: "in ",
      after: "/p run it",
    },
  ]);
  assert.deepEqual(findings[1].places, [{ entryId: "i1", field: "name", before: "key ", after: "" }]);
});

test("redactor replaces in one pass, longest first, home paths only where the name ends", () => {
  const r = redactor([
    { kind: "home", text: "/home/al", replacement: "~" },
    { kind: "custom", text: "abc", replacement: "[X]" },
    { kind: "custom", text: "abcd", replacement: "[Y]" },
  ]);
  assert.equal(r("/home/al/x /home/alice/y abcd abc /home/al. /home/al.x"), "~/x /home/alice/y [Y] [X] ~. /home/al.x");
  // The replacement is not scanned again.
  assert.equal(
    redactor([customFinding("RED"), customFinding("ACT")])("RED ACT"),
    "[REDACTED:custom] [REDACTED:custom]",
  );
});

test("redactJsonl rewrites only the lines it changes and never an id", () => {
  const lines = [
    '{"type":"session","version":3,"id":"h","cwd":"/home/alice/p"}',
    '{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"plain  text"},"n":1.0}',
    `{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"key ${KEYS.npm}"}]}}`,
  ];
  const out = redactJsonl(`${lines.join("\n")}\n`, [
    { kind: "home", text: "/home/alice", replacement: "~" },
    { kind: "npm", text: KEYS.npm, replacement: "[REDACTED:npm]" },
    { kind: "custom", text: "a1", replacement: "[no]" },
  ]).split("\n");
  assert.equal(out.length, 4);
  assert.equal(out[0], '{"type":"session","version":3,"id":"h","cwd":"~/p"}');
  assert.equal(out[1], lines[1]); // untouched, "1.0" and all
  assert.equal(
    out[2],
    '{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"key [REDACTED:npm]"}]}}',
  );
  // "a1" survives in the ids: the leak check says so.
  assert.deepEqual(leaks(out.join("\n"), ["a1", KEYS.npm, "/home/alice"]), ["a1"]);
});

test("leaks sees a string in JSON- and HTML-escaped form too", () => {
  assert.deepEqual(leaks('{"p":"C:\\\\Users\\\\bob"}', ["C:\\Users\\bob"]), ["C:\\Users\\bob"]);
  assert.deepEqual(leaks('"a\\u003cb"', ["a<b"]), ["a<b"]);
  assert.deepEqual(leaks("x &lt;b&gt; y", ["<b>"]), ["<b>"]);
  assert.deepEqual(leaks("nothing here", ["secret"]), []);
});

test("random sessions with planted secrets: each is found, and none survives redaction", async () => {
  const { envSeed, Rng } = await import("../../shared/rng.mjs");
  const seed = envSeed("REDACT_SEED");
  const rng = new Rng(seed);
  const note = `REDACT_SEED=${seed}`;
  const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const word = (n) => Array.from({ length: n }, () => alnum[rng.int(0, alnum.length)]).join("");
  const makers = [
    () => `sk-proj-${word(rng.range(20, 48))}`,
    () => `sk-ant-api03-${word(rng.range(20, 60))}`,
    () => `ghp_${word(36)}`,
    () => `glpat-${word(20)}`,
    () => `AKIA${word(16).toUpperCase()}`,
    () => `AIza${word(35)}`,
    () => `xoxp-${word(rng.range(10, 30))}`,
    () => `sk_live_${word(24)}`,
    () => `npm_${word(36)}`,
    () => `hf_${word(34)}`,
    () => `/home/${word(rng.range(3, 10)).toLowerCase()}`,
    () => `-----BEGIN PRIVATE KEY-----\n${word(64)}\n${word(20)}==\n-----END PRIVATE KEY-----`,
  ];
  const fillers = ["", " ", "\n", "see ", "(", '"', "'", " and ", ": "];
  // After a secret: the end of the string, or a character that cannot continue it, then more words.
  const text = (secret) =>
    `${rng.pick(fillers)}${word(rng.range(0, 12))} ${secret}${rng.pick(["", " ", "\n", ". ", ")", '"'])}${rng.pick(["", " more", "\nnext"])}`;
  const planted = new Map(); // secret → the string it was planted in
  const plant = () => {
    const s = rng.pick(makers)();
    const t = text(s);
    planted.set(s, t);
    return t;
  };
  const lines = [JSON.stringify({ type: "session", version: 3, id: "h", cwd: plant() })];
  let parent = null;
  for (let i = 0; i < rng.range(5, 30); i++) {
    const id = `e${i}`;
    const kind = rng.int(0, 4);
    const entry =
      kind === 0
        ? { type: "message", id, parentId: parent, message: { role: "user", content: plant() } }
        : kind === 1
          ? {
              type: "message",
              id,
              parentId: parent,
              message: {
                role: "assistant",
                content: [
                  { type: "text", text: plant() },
                  { type: "toolCall", id: `c${i}`, name: "bash", arguments: { command: plant(), nested: [plant()] } },
                ],
              },
            }
          : kind === 2
            ? { type: "label", id, parentId: parent, targetId: "e0", label: plant() }
            : { type: "session_info", id, parentId: parent, name: plant() };
    lines.push(JSON.stringify(entry));
    parent = id;
  }
  const jsonl = `${lines.join("\n")}\n`;
  const findings = scanEntries(
    jsonl
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l)),
  );
  for (const [s, t] of planted) {
    assert.ok(
      findings.some((f) => f.text === s),
      `${note}: ${JSON.stringify(s)} found in ${JSON.stringify(t)}`,
    );
  }
  const out = redactJsonl(jsonl, findings);
  assert.deepEqual(leaks(out, [...planted.keys()]), [], note);
  // Ids, parents and types are as they were; the line count too.
  const shape = (t) =>
    t
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .map((e) => [e.type, e.id, e.parentId, e.targetId]);
  assert.deepEqual(shape(out), shape(jsonl), note);
});
