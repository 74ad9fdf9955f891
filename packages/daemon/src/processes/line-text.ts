import { isUtf8 } from "node:buffer";

/**
 * How captured bytes become the `line` strings of the runtime API (JSON strings).
 *
 * Valid UTF-8 is decoded as is. A byte that is not part of a valid UTF-8 sequence becomes the lone surrogate
 * U+DC00 + byte (U+DC80..U+DCFF), the "surrogateescape" scheme of Python: no byte is lost, JSON.stringify writes
 * such a character as the escape `\udcXX`, and a client recovers the exact bytes with
 * `line.encode("utf-8", "surrogateescape")` in Python or {@link encodeLineBytes} here. Text that is valid UTF-8
 * never contains lone surrogates, so the mapping is unambiguous.
 */
export function decodeLineBytes(bytes: Uint8Array): { text: string; escaped: boolean } {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return { text: buffer.toString("utf8"), escaped: false };
  return { text: decodeEscaped(buffer), escaped: true };
}

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there starts none. */
function validSequenceLength(buffer: Buffer, i: number): number {
  const b0 = buffer[i];
  const n = buffer.length;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < n && buffer[j] >= lo && buffer[j] <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

function decodeEscaped(buffer: Buffer): string {
  let out = "";
  let runStart = 0;
  let i = 0;
  while (i < buffer.length) {
    const byte = buffer[i];
    if (byte < 0x80) {
      i++;
      continue;
    }
    const length = validSequenceLength(buffer, i);
    if (length > 0) {
      i += length;
      continue;
    }
    out += buffer.toString("utf8", runStart, i) + String.fromCharCode(0xdc00 + byte);
    i++;
    runStart = i;
  }
  return out + buffer.toString("utf8", runStart, buffer.length);
}

/** The exact bytes of a line produced by {@link decodeLineBytes}: the inverse of the decoding. */
export function encodeLineBytes(text: string): Buffer {
  const parts: Buffer[] = [];
  let runStart = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xdc80 || code > 0xdcff) continue;
    // A low surrogate that completes a pair is a real character, not an escaped byte.
    const previous = i > 0 ? text.charCodeAt(i - 1) : 0;
    if (previous >= 0xd800 && previous <= 0xdbff) continue;
    parts.push(Buffer.from(text.slice(runStart, i), "utf8"), Buffer.of(code - 0xdc00));
    runStart = i + 1;
  }
  if (parts.length === 0) return Buffer.from(text, "utf8");
  parts.push(Buffer.from(text.slice(runStart), "utf8"));
  return Buffer.concat(parts);
}

/**
 * Where a line longer than the line limit is cut: at `limit`, moved back (at most 3 bytes) so that a multi-byte
 * UTF-8 character is not split between the two pieces.
 */
export function cutPoint(bytes: Uint8Array, limit: number): number {
  if (limit >= bytes.length) return bytes.length;
  for (let back = 0; back < 4 && limit - back > 0; back++) {
    if ((bytes[limit - back] & 0xc0) !== 0x80) return limit - back;
  }
  return limit;
}
