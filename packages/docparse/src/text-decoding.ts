import { DocumentLoadError } from "./model.ts";

/** How many bytes are looked at to tell binary from text. */
const SNIFF_BYTES = 8192;

/** The encoding a byte-order mark announces, with the mark's length. */
function byteOrderMark(bytes: Uint8Array): { encoding: string; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return null;
}

/**
 * Decodes the bytes of a text document: by its byte-order mark (UTF-8, UTF-16 LE or BE; the mark is dropped),
 * else by `declared` (a charset the document names for itself) when it is one the platform knows, else UTF-8,
 * or, when the bytes are not valid UTF-8, Windows-1252 (a superset of Latin-1) with a warning. Bytes with NUL
 * characters and no UTF-16 mark are binary, not text: DocumentLoadError.
 */
export function decodeText(
  bytes: Uint8Array,
  what: string,
  declared: string | null = null,
): { text: string; warnings: string[] } {
  const bom = byteOrderMark(bytes);
  if (bom) {
    return { text: new TextDecoder(bom.encoding).decode(bytes.subarray(bom.length)), warnings: [] };
  }
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) {
    throw new DocumentLoadError(`The ${what} document holds binary data (NUL bytes), not text`);
  }
  if (declared && !/^utf-?8$/i.test(declared.trim())) {
    try {
      return { text: new TextDecoder(declared.trim().toLowerCase()).decode(bytes), warnings: [] };
    } catch {
      // An unknown charset name: read as if none were named.
    }
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes), warnings: [] };
  } catch {
    return {
      text: new TextDecoder("windows-1252").decode(bytes),
      warnings: ["The text is not valid UTF-8; it was read as Windows-1252"],
    };
  }
}

/** The charset a markup document names in its first bytes: `<meta charset>`, `http-equiv`, `<?xml encoding?>`. */
function declaredCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 2048));
  const match =
    /<\?xml[^>]*\sencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head) ??
    /<meta[^>]*charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
  return match ? match[1] : null;
}

/** The text of a markup input (HTML, XML): given text as is, or bytes decoded by their mark or declared charset. */
export function decodeMarkup(input: { bytes?: Uint8Array; text?: string }, what: string) {
  if (input.text !== undefined) return { text: input.text, warnings: [] as string[] };
  if (input.bytes !== undefined) return decodeText(input.bytes, what, declaredCharset(input.bytes));
  throw new DocumentLoadError("The input has neither bytes nor text");
}

/** The text of a backend input: given text as is, or decoded bytes. */
export function inputText(input: { bytes?: Uint8Array; text?: string }, what: string) {
  if (input.text !== undefined) return { text: input.text, warnings: [] as string[] };
  if (input.bytes !== undefined) return decodeText(input.bytes, what);
  throw new DocumentLoadError("The input has neither bytes nor text");
}

/** Offsets at which each line of `text` starts; line breaks are \n, \r\n or \r. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) starts.push(i + 1);
    else if (code === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}
