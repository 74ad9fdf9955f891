import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fontFamilyEnv } from "./font-families.ts";

test("a font family's environment keeps soffice's configuration and temporary files under its directory", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "font-env-"));
  try {
    const env = fontFamilyEnv("DejaVu Sans", dir);
    assert.equal(path.dirname(env.FONTCONFIG_FILE ?? ""), dir);
    assert.match(await readFile(env.FONTCONFIG_FILE ?? "", "utf8"), /<string>DejaVu Sans<\/string>/);
    // soffice makes its lu*.tmp directories in TMPDIR and leaves them when killed: they must go with `dir`.
    assert.equal(path.dirname(env.TMPDIR ?? ""), dir);
    assert.ok(existsSync(env.TMPDIR ?? ""));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
