// The README's section on the command: every ```console block is run as
// written (from the repository root, times in UTC, no colour) and must print
// exactly what the README shows.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = fileURLToPath(new URL("../../pkg/bin/session-tree.js", import.meta.url));
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const start = readme.indexOf("## The `session-tree` command");
const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
const blocks = [...section.matchAll(/```console\n([\s\S]*?)```/g)].map((m) => m[1]);

/** `$ session-tree …` lines and the output after each. */
function commands(block) {
  const out = [];
  for (const line of block.replace(/\n$/, "").split("\n")) {
    if (line.startsWith("$ ")) out.push({ command: line.slice(2), expected: [] });
    else out.at(-1).expected.push(line);
  }
  return out;
}

test("the README's command section has examples to run", () => {
  assert.ok(start !== -1);
  assert.ok(blocks.length >= 5, `${blocks.length} console blocks`);
});

test("every console example in the README's command section prints what it shows", () => {
  for (const block of blocks) {
    for (const { command, expected } of commands(block)) {
      const [name, ...args] = command.split(" ");
      assert.equal(name, "session-tree", command);
      const r = spawnSync(process.execPath, [bin, ...args], {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, TZ: "UTC", NO_COLOR: "1" },
      });
      assert.equal(r.status, 0, `${command}: ${r.stderr}`);
      assert.equal(r.stdout.replace(/\n$/, ""), expected.join("\n"), command);
    }
  }
});
