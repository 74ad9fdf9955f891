import { createHash, timingSafeEqual } from "node:crypto";

/** The credential of an `Authorization: Bearer <token>` header, or null when absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Compares a presented secret with a stored SHA-256 hex hash in constant time. */
export function matchesHash(secret: string, hashHex: string): boolean {
  const a = Buffer.from(sha256Hex(secret), "hex");
  const b = Buffer.from(hashHex, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
