// The secret scanner and redactor of "Share…", without the DOM: finds API keys
// and tokens, Bearer headers, private-key blocks, .env-style secrets and
// home-directory paths in the string values of session entries, and replaces
// the strings the user keeps ticked, everywhere, in one pass. The worker runs
// it (share-worker.js); unit tests: tests/viewer/unit/redact.test.mjs.

/**
 * What the scanner looks for, most specific first: where two findings
 * overlap, the earlier detector wins (an OpenAI key in `OPENAI_API_KEY=…` is
 * an OpenAI key). `group`: the capture groups holding the secret, the first
 * one that matched wins (0: the whole match).
 */
export const DETECTORS = [
  { kind: "anthropic", label: "Anthropic API key", re: /(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    kind: "openai",
    label: "OpenAI API key",
    re: /(?<![\w-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
  },
  {
    kind: "github",
    label: "GitHub token",
    re: /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g,
  },
  { kind: "gitlab", label: "GitLab token", re: /(?<![\w-])gl(?:pat|dt|rt|ptt|cbt)-[A-Za-z0-9_-]{20,}/g },
  {
    kind: "aws",
    label: "AWS access key id",
    re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  { kind: "google", label: "Google API key", re: /(?<![\w-])AIza[0-9A-Za-z_-]{35}/g },
  { kind: "slack", label: "Slack token", re: /(?<![\w-])xox[abposre]-[A-Za-z0-9-]{10,}/g },
  {
    kind: "slack-webhook",
    label: "Slack webhook",
    re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,}/g,
  },
  { kind: "stripe", label: "Stripe key", re: /(?<![\w-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: "npm", label: "npm token", re: /(?<![\w-])npm_[A-Za-z0-9]{36,}/g },
  { kind: "huggingface", label: "Hugging Face token", re: /(?<![\w-])hf_[A-Za-z0-9]{30,}/g },
  { kind: "groq", label: "Groq API key", re: /(?<![\w-])gsk_[A-Za-z0-9]{40,}/g },
  { kind: "xai", label: "xAI API key", re: /(?<![\w-])xai-[A-Za-z0-9]{40,}/g },
  { kind: "replicate", label: "Replicate token", re: /(?<![\w-])r8_[A-Za-z0-9]{30,}/g },
  { kind: "pypi", label: "PyPI token", re: /(?<![\w-])pypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: "sendgrid", label: "SendGrid key", re: /(?<![\w-])SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  { kind: "digitalocean", label: "DigitalOcean token", re: /(?<![\w-])do[opr]_v1_[a-f0-9]{64}/g },
  {
    kind: "jwt",
    label: "JSON Web Token",
    re: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    kind: "private-key",
    label: "Private key block",
    re: /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----(?:[\s\S]*?-----END \1-----|[\s\S]*$)/g,
  },
  { kind: "bearer", label: "Bearer token", re: /\bBearer\s+([A-Za-z0-9\-._~+/]{8,}=*)/g, group: [1] },
  {
    kind: "url-password",
    label: "Password in a URL",
    re: /\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"']+:([^/\s:@"']{3,})@/g,
    group: [1],
  },
  {
    kind: "env",
    label: "Secret assignment",
    re: /(?<![A-Za-z0-9_])(?:export\s+)?["']?([A-Za-z_][A-Za-z0-9_]*?(?:_TOKEN|_SECRET|_KEY|_PASSWORD|_PASSWD|_PASS|_PWD|_APIKEY|_CREDENTIALS?)|PASSWORD|PASSWD|SECRET|TOKEN|APIKEY)["']?\s*[=:]\s*(?:"([^"\n\\]{3,})"|'([^'\n]{3,})'|([^\s"'`,;(){}[\]<>$][^\s"'`,;(){}[\]<>]{2,}))/gi,
    group: [2, 3, 4],
  },
  {
    kind: "home",
    label: "Home directory",
    // A user name may hold dots, but a dot at its end ends the sentence.
    re: /(?:(?<![\w.-])\/home\/(?!\.)[A-Za-z0-9._-]*[A-Za-z0-9_-]|(?<![\w.-])\/Users\/(?!Shared(?![\w.-]))(?!\.)[A-Za-z0-9._-]*[A-Za-z0-9_-]|(?<![A-Za-z])[A-Za-z]:[\\/]Users[\\/](?!Public(?![\w.-]))[^\\/\s"'<>:|?*]*[^\\/\s"'<>:|?*.])(?![A-Za-z0-9_-]|\.[A-Za-z0-9_-])/g,
  },
];

/** What an assignment's value is when it is no secret: a flag, a small number, a placeholder, a lookup. */
const NOT_A_VALUE =
  /^(?:true|false|null|none|nil|yes|no|on|off|undefined|empty|required|optional|string|number|boolean|\d{1,5}|x+|\*+|\.+|-+|(?:process\.env|os\.environ|getenv|env)\b.*)$/i;

const PRIORITY = new Map(DETECTORS.map((d, i) => [d.kind, i]));
const LABEL = new Map(DETECTORS.map((d) => [d.kind, d.label]));
/** A finding's label, for the review. */
export const labelOf = (kind) => LABEL.get(kind) ?? "Your string";

/** What a finding is replaced with: `~` for a home directory, else a marker naming the kind. */
export const replacementOf = (kind) => (kind === "home" ? "~" : `[REDACTED:${kind}]`);

/** The secrets in one string: `{ kind, start, end, text }`, in order, never overlapping. */
export function scanText(text) {
  if (typeof text !== "string" || text.length < 3) return [];
  const found = [];
  for (const d of DETECTORS) {
    const re = new RegExp(d.re.source, `${d.re.flags.replace("d", "")}d`);
    for (const m of text.matchAll(re)) {
      let span = null;
      for (const g of d.group ?? [0]) {
        if (m.indices[g]) {
          span = m.indices[g];
          break;
        }
      }
      if (!span || span[1] <= span[0]) continue;
      if (d.kind === "env" && NOT_A_VALUE.test(text.slice(span[0], span[1]))) continue;
      found.push({ kind: d.kind, start: span[0], end: span[1], text: text.slice(span[0], span[1]) });
    }
  }
  // Most specific first, then leftmost, then longest; drop what overlaps a kept one.
  found.sort((a, b) => PRIORITY.get(a.kind) - PRIORITY.get(b.kind) || a.start - b.start || b.end - a.end);
  const kept = [];
  for (const f of found) if (!kept.some((k) => f.start < k.end && k.start < f.end)) kept.push(f);
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * Entry fields that hold ids and types: never scanned or rewritten (an id is
 * no secret, and rewriting one would break the tree).
 */
const STRUCTURAL = new Set(["type", "id", "parentId", "targetId", "firstKeptEntryId", "fromId"]);

const isObject = (v) => typeof v === "object" && v !== null;

/** Calls `visit(text, path)` for every string value of an entry, outside its structural fields. */
export function eachString(entry, visit) {
  const stack = [[entry, "", 0]];
  while (stack.length) {
    const [value, path, depth] = stack.pop();
    if (typeof value === "string") visit(value, path);
    else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`, depth + 1]);
    } else if (isObject(value)) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i];
        if (depth === 0 && STRUCTURAL.has(k)) continue;
        if (k === "role" && path === ".message") continue;
        stack.push([value[k], `${path}.${k}`, depth + 1]);
      }
    }
  }
}

const CONTEXT = 40;
const MAX_PLACES = 5;

/**
 * Every secret in `entries` (the header included), one finding per distinct
 * string: `{ kind, label, text, replacement, count, places }`; `places` are
 * up to five occurrences, `{ entryId, field, before, after }`, in file order.
 */
export function scanEntries(entries) {
  const byKey = new Map();
  for (const entry of entries) {
    const entryId = isObject(entry) && typeof entry.id === "string" ? entry.id : "";
    eachString(entry, (text, field) => {
      for (const f of scanText(text)) {
        const key = `${f.kind}\u0000${f.text}`;
        let finding = byKey.get(key);
        if (!finding) {
          finding = {
            kind: f.kind,
            label: labelOf(f.kind),
            text: f.text,
            replacement: replacementOf(f.kind),
            count: 0,
            places: [],
          };
          byKey.set(key, finding);
        }
        finding.count++;
        if (finding.places.length < MAX_PLACES) {
          finding.places.push({
            entryId,
            field: field.replace(/^\./, "") || "(value)",
            before: text.slice(Math.max(0, f.start - CONTEXT), f.start),
            after: text.slice(f.end, f.end + CONTEXT),
          });
        }
      }
    });
  }
  return [...byKey.values()];
}

/** A user's own string, as a finding to redact. */
export const customFinding = (text) => ({
  kind: "custom",
  label: labelOf("custom"),
  text,
  replacement: replacementOf("custom"),
  count: 0,
  places: [],
});

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A function that replaces every one of `redactions` (`{ kind, text, replacement }`)
 * in a string, in one left-to-right pass, longest text first where several
 * start at the same place. A home directory is only replaced where its name
 * ends (so `/home/al` leaves `/home/alice` alone).
 */
export function redactor(redactions) {
  const list = redactions.filter((r) => typeof r.text === "string" && r.text.length > 0);
  if (!list.length) return (s) => s;
  const sorted = [...list].sort((a, b) => b.text.length - a.text.length);
  // A home directory ends where its user name does: not before a name character, nor before a dot and one.
  const end = "(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_-])";
  const pattern = sorted.map((r) => escapeRe(r.text) + (r.kind === "home" ? end : "")).join("|");
  const re = new RegExp(pattern, "g");
  const to = new Map();
  for (const r of sorted) if (!to.has(r.text)) to.set(r.text, r.replacement);
  return (s) => s.replace(re, (m) => to.get(m));
}

/** A copy of `value` with `redact` applied to its strings (not structural fields); `changed` says whether any changed. */
export function redactEntry(value, redact) {
  let changed = false;
  const walk = (v, path, depth) => {
    if (typeof v === "string") {
      const r = redact(v);
      if (r !== v) changed = true;
      return r;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}[${i}]`, depth + 1));
    if (isObject(v)) {
      const out = {};
      for (const k of Object.keys(v)) {
        const keep = (depth === 0 && STRUCTURAL.has(k)) || (k === "role" && path === ".message");
        out[k] = keep ? v[k] : walk(v[k], `${path}.${k}`, depth + 1);
      }
      return out;
    }
    return v;
  };
  const copy = walk(value, "", 0);
  return { value: copy, changed };
}

/**
 * Redacts JSONL text line by line: a line with something to redact is parsed,
 * redacted and written again; every other line stays byte for byte. A line
 * that is not JSON is redacted as text.
 */
export function redactJsonl(text, redactions) {
  const redact = redactor(redactions);
  return text
    .split("\n")
    .map((line) => {
      if (!line.trim()) return line;
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        return redact(line);
      }
      const { value, changed } = redactEntry(entry, redact);
      return changed ? JSON.stringify(value) : line;
    })
    .join("\n");
}

const htmlEscape = (s) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** The ways a string can be written in an HTML file: as is, JSON-escaped (with `<` as `\u003c` too), HTML-escaped. */
export function encodings(s) {
  const json = JSON.stringify(s).slice(1, -1);
  return [...new Set([s, json, json.replace(/</g, "\\u003c"), htmlEscape(s)])];
}

/** The strings of `texts` that `output` still contains, in any of their encodings. */
export function leaks(output, texts) {
  return texts.filter((t) => t && encodings(t).some((form) => output.includes(form)));
}
