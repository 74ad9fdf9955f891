import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { cycles, importGraph } from "./import-cycles.ts";

function tree(files: Record<string, string>): { root: string; paths: string[] } {
  const root = mkdtempSync(path.join(tmpdir(), "svc-cycles-"));
  const paths: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const full = path.join(root, name);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
    paths.push(full);
  }
  return { root, paths };
}

test("a type-only import back from another folder closes a cycle; the chain's files are named", (t) => {
  const { root, paths } = tree({
    "a.ts": 'import { b } from "./sub/b.ts";\nexport const a = b;\n',
    "sub/b.ts": 'import { c } from "./c.ts";\nexport const b = c;\n',
    "sub/c.ts": 'import type { A } from "../a.ts";\nexport const c = 1 as unknown as A;\n',
    "d.ts": 'import { a } from "./a.ts";\nexport { a };\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const found = cycles(importGraph(paths));
  assert.deepEqual(
    found.map((component) => component.map((file) => path.relative(root, file))),
    [["a.ts", "sub/b.ts", "sub/c.ts"]],
  );
});

test("imports down a chain, re-exports, dynamic imports and packages make no cycle", (t) => {
  const { root, paths } = tree({
    "top.ts": 'export { low } from "./low.ts";\nimport "node:fs";\nimport x from "pkg";\n',
    "low.ts": 'export const low = () => import("./top.ts");\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.deepEqual(cycles(importGraph(paths)), []);
});
