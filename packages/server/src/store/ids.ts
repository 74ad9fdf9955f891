import { randomBytes } from "node:crypto";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** RFC 4648 base32 in lowercase, without padding. */
function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * A new id such as `proj_…`: the kind, `_`, and 16 random bytes (128 bits) in lowercase base32, 26 characters. Lowercase letters and
 * digits only, so an id stays the same through case-insensitive places such as host names and file systems.
 */
export function newId(kind: string): string {
  return `${kind}_${base32(randomBytes(16))}`;
}

/** Epoch milliseconds as an RFC 3339 string (UTC, millisecond precision). */
export function toRfc3339(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
