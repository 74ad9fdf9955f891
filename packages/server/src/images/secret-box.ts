/**
 * # secret-box
 *
 * Secrets at rest (a registry's password): AES-256-GCM with the server's secret key, a random 12-byte nonce per
 * value, stored as `v1.<nonce>.<tag>.<ciphertext>` (base64url). The key is 32 random bytes in a mode-0600 file,
 * `<data dir>/secret-key` unless configured, made at the first start; every server of a deployment must be
 * given the same file. The database alone never holds what decrypts its secrets.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** The key from its file, made first (0600, exclusive create) when missing. */
export async function loadSecretBox(keyFile: string): Promise<SecretBox> {
  let key: Buffer;
  try {
    key = Buffer.from((await readFile(keyFile, "utf8")).trim(), "base64url");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await writeFile(keyFile, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" }).catch(
      (e: NodeJS.ErrnoException) => {
        if (e.code !== "EEXIST") throw e;
      },
    );
    key = Buffer.from((await readFile(keyFile, "utf8")).trim(), "base64url");
  }
  if (key.length !== 32) throw new Error(`the secret key in ${keyFile} is not 32 bytes of base64url`);
  return secretBox(key);
}

export function secretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return ["v1", nonce, cipher.getAuthTag(), body]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(sealed) {
      const [version, nonce, tag, body] = sealed.split(".");
      if (version !== "v1" || nonce === undefined || tag === undefined || body === undefined) {
        throw new Error("not a sealed secret");
      }
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
        "utf8",
      );
    },
  };
}
