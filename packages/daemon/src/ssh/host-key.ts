import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { ServiceError } from "@svc/contract/errors";

const run = promisify(execFile);

/** `SHA256:<base64 without padding>` of an OpenSSH public key line, as `ssh-keygen -l` prints it. */
export function publicKeyFingerprint(line: string): string {
  const blob = line.trim().split(/\s+/)[1];
  if (!blob || !/^[A-Za-z0-9+/]+=*$/.test(blob)) throw new Error("not an OpenSSH public key line");
  const digest = createHash("sha256").update(Buffer.from(blob, "base64")).digest("base64");
  return `SHA256:${digest.replace(/=+$/, "")}`;
}

/**
 * The sandbox's SSH host key (ed25519), generated once with `ssh-keygen` into a root-only directory on the
 * sandbox disk: it outlives disable and enable, so its fingerprint stays the same. Returns the fingerprint.
 */
export async function ensureHostKey(keyPath: string): Promise<string> {
  try {
    return publicKeyFingerprint(await readFile(`${keyPath}.pub`, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(dirname(keyPath), { recursive: true, mode: 0o700 });
  try {
    // A private key without its .pub (a crash between the two writes) is replaced.
    await rm(keyPath, { force: true });
    await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "svc-sandbox", "-f", keyPath], {
      timeout: 30_000,
    });
  } catch (error) {
    throw new ServiceError("SSH_FAILED", `cannot generate the SSH host key: ${(error as Error).message}`);
  }
  return publicKeyFingerprint(await readFile(`${keyPath}.pub`, "utf8"));
}
