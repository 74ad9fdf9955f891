import { DocumentLoadError } from "../model.ts";

/**
 * A small reader of DER and BER (the encodings of PKCS#7 / CMS): tag, content span and children of a value.
 * Indefinite lengths (BER, which S/MIME writers use) are followed to their end-of-contents marker. Nesting and
 * sizes are bounded, and anything malformed is a DocumentLoadError.
 */

export interface Tlv {
  /** The identifier octet: class, constructed bit and tag number (numbers above 30 are not used by CMS). */
  tag: number;
  constructed: boolean;
  /** Where the whole value starts, where its content starts and ends (the end-of-contents marker excluded). */
  start: number;
  contentStart: number;
  contentEnd: number;
  /** Where the next value starts. */
  end: number;
}

const MAX_DEPTH = 64;

function bad(what: string): never {
  throw new DocumentLoadError(`The PKCS#7 data is malformed: ${what}`);
}

/** Reads the value at `offset` of `bytes` (within `limit`). */
export function readTlv(bytes: Uint8Array, offset: number, limit = bytes.length, depth = 0): Tlv {
  if (depth > MAX_DEPTH) bad("values nested too deep");
  if (offset + 2 > limit) bad("a value runs past the end");
  const tag = bytes[offset];
  if ((tag & 0x1f) === 0x1f) bad("a multi-byte tag");
  const constructed = (tag & 0x20) !== 0;
  let at = offset + 1;
  const first = bytes[at++];
  if (first === 0x80) {
    // Indefinite length: children up to the 00 00 marker.
    if (!constructed) bad("an indefinite length on a primitive value");
    const contentStart = at;
    for (;;) {
      if (at + 2 > limit) bad("an indefinite length without its end");
      if (bytes[at] === 0 && bytes[at + 1] === 0) {
        return { tag, constructed, start: offset, contentStart, contentEnd: at, end: at + 2 };
      }
      at = readTlv(bytes, at, limit, depth + 1).end;
    }
  }
  let length = first;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count > 4) bad("a length of more than four bytes");
    length = 0;
    for (let i = 0; i < count; i++) {
      if (at >= limit) bad("a length runs past the end");
      length = length * 256 + bytes[at++];
    }
  }
  if (at + length > limit) bad("a value longer than the data");
  return { tag, constructed, start: offset, contentStart: at, contentEnd: at + length, end: at + length };
}

/** The values inside a constructed value. */
export function children(bytes: Uint8Array, parent: Tlv, depth = 0): Tlv[] {
  if (!parent.constructed) return [];
  const out: Tlv[] = [];
  for (let at = parent.contentStart; at < parent.contentEnd; ) {
    const child = readTlv(bytes, at, parent.contentEnd, depth + 1);
    out.push(child);
    at = child.end;
  }
  return out;
}

export function content(bytes: Uint8Array, tlv: Tlv): Uint8Array {
  return bytes.subarray(tlv.contentStart, tlv.contentEnd);
}

/** An OCTET STRING's bytes; a constructed one (BER) is its segments joined. */
export function octets(bytes: Uint8Array, tlv: Tlv, depth = 0): Uint8Array {
  if (!tlv.constructed) return content(bytes, tlv);
  const parts = children(bytes, tlv, depth).map((child) => octets(bytes, child, depth + 1));
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Dotted form of an OBJECT IDENTIFIER. */
export function oid(bytes: Uint8Array, tlv: Tlv): string {
  if (tlv.tag !== 0x06) bad("an object identifier was expected");
  const data = content(bytes, tlv);
  const parts: number[] = [];
  let value = 0;
  for (const byte of data) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (parts.length === 0)
        parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join(".");
}

/** An INTEGER as hex (serial numbers), without leading zero bytes. */
export function integerHex(bytes: Uint8Array, tlv: Tlv): string {
  let hex = Buffer.from(content(bytes, tlv)).toString("hex").toUpperCase();
  while (hex.startsWith("00") && hex.length > 2) hex = hex.slice(2);
  return hex;
}

/** A UTCTime or GeneralizedTime as an ISO date, or null. */
export function time(bytes: Uint8Array, tlv: Tlv): string | null {
  const text = Buffer.from(content(bytes, tlv)).toString("latin1");
  const match = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?/.exec(text);
  if (!match) return null;
  const year =
    match[1].length === 2 ? (Number(match[1]) < 50 ? 2000 : 1900) + Number(match[1]) : Number(match[1]);
  return new Date(
    Date.UTC(
      year,
      Number(match[2]) - 1,
      Number(match[3]),
      Number(match[4]),
      Number(match[5]),
      Number(match[6] ?? 0),
    ),
  ).toISOString();
}
