import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { contextPaths, ignored, parseDockerignore } from "./dockerignore.ts";

test(".dockerignore patterns match as docker build's do", () => {
  const rules = parseDockerignore(
    "# comment\nnode_modules\n/.git\n*.log\n**/*.tmp\ndocs/**\n!docs/keep.md\nbuild/\n./secret?.txt\n",
  );
  const cases: [string, boolean][] = [
    ["node_modules", true],
    ["node_modules/x/index.js", true],
    ["src/node_modules", false],
    [".git/HEAD", true],
    ["app.log", true],
    ["logs/app.log", false],
    ["a/b/c.tmp", true],
    ["c.tmp", true],
    ["docs/guide.md", true],
    ["docs/keep.md", false],
    ["build/out.js", true],
    ["secret1.txt", true],
    ["secret12.txt", false],
    ["src/main.ts", false],
  ];
  for (const [path, expected] of cases) assert.equal(ignored(rules, path), expected, path);
  assert.deepEqual(parseDockerignore("../up\n.\n"), [], "nothing outside or the root itself");
});

test("the context's paths leave out what .dockerignore says, never the Dockerfile", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-dockerignore-"));
  try {
    const files = [
      "Dockerfile",
      ".dockerignore",
      "src/a.ts",
      "node_modules/m/i.js",
      "docs/keep.md",
      "docs/x.md",
    ];
    for (const file of files) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), "x");
    }
    writeFileSync(join(dir, ".dockerignore"), "node_modules\ndocs\n!docs/keep.md\nDockerfile\n");
    assert.deepEqual(contextPaths(dir, ["Dockerfile"]).sort(), [
      ".dockerignore",
      "Dockerfile",
      "docs/keep.md",
      "src",
      "src/a.ts",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
