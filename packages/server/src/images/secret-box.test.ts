import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loadSecretBox } from "./secret-box.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-secret-box-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the key file is made once (0600); sealed values open with it only, and tampering is detected", async () => {
  const keyFile = join(dir, "secret-key");
  const box = await loadSecretBox(keyFile);
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  const sealed = box.seal("registry password");
  assert.equal(sealed.includes("registry password"), false);
  assert.notEqual(box.seal("registry password"), sealed, "a fresh nonce per value");
  assert.equal((await loadSecretBox(keyFile)).open(sealed), "registry password", "the same key is read back");

  const [version, nonce, tag, body] = sealed.split(".");
  const flipped = Buffer.from(body, "base64url");
  flipped[0] ^= 1;
  assert.throws(() => box.open([version, nonce, tag, flipped.toString("base64url")].join(".")));

  const otherFile = join(dir, "other-key");
  const other = await loadSecretBox(otherFile);
  assert.notEqual(readFileSync(otherFile, "utf8"), readFileSync(keyFile, "utf8"));
  assert.throws(() => other.open(sealed), "another key cannot open it");

  writeFileSync(join(dir, "short-key"), "c2hvcnQ\n");
  await assert.rejects(loadSecretBox(join(dir, "short-key")), /not 32 bytes/);
});
