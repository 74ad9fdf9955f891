import { DocumentLoadError } from "./model.ts";

/** How many bytes are looked at to tell binary from text. */
const SNIFF_BYTES = 8192;

/** The encoding a byte-order mark announces, with the mark's length (UTF-32 marks are looked for first). */
function byteOrderMark(bytes: Uint8Array): { encoding: string; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0 && bytes[3] === 0)
    return { encoding: "utf-32le", length: 4 };
  if (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff)
    return { encoding: "utf-32be", length: 4 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return null;
}

/**
 * UTF-16 or UTF-32 without a mark, told by where the NUL bytes fall in text that is mostly ASCII: every second
 * byte (UTF-16), three in four (UTF-32). Null when the NULs follow no such pattern (binary data).
 */
function unmarkedWide(head: Uint8Array): string | null {
  const n = head.length - (head.length % 4);
  if (n < 8) return null;
  const zeros = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) if (head[i] === 0) zeros[i % 4]++;
  const quarter = n / 4;
  const high = (k: number) => zeros[k] >= 0.9 * quarter;
  const low = (k: number) => zeros[k] <= 0.1 * quarter;
  if (high(1) && high(2) && high(3) && low(0)) return "utf-32le";
  if (high(0) && high(1) && high(2) && low(3)) return "utf-32be";
  if (high(1) && high(3) && low(0) && low(2)) return "utf-16le";
  if (high(0) && high(2) && low(1) && low(3)) return "utf-16be";
  return null;
}

/** Frequent characters of a script, for telling legacy CJK encodings apart (a wrong guess decodes to rare ones). */
const FREQUENT: Record<string, RegExp> = {
  shift_jis: /[\u3041-\u309f\u30a0-\u30ff\u3001\u3002]/u,
  "euc-kr": /[이다는의에하고을가로서한지기리사수자도들것있그나대시아해게어인요니라보만습을를과으]/u,
  gb18030:
    /[的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实，。]/u,
  big5: /[的一是不了在人有我他這個們中來上大為和國地到以說時要就出會可也你對生能而子那得於著下自之年過發後作裡用道行所然家種事成方多經麼去法學如都同現當沒動面起看定天分還進好小部其些主樣理心她本前開但因只從想實，。]/u,
};

/** The legacy charset whose decoding of non-UTF-8 bytes reads as the most frequent characters of its script, else Windows-1252. */
function legacyCharset(bytes: Uint8Array): string {
  let best = "windows-1252";
  let bestScore = 0.15;
  for (const [charset, frequent] of Object.entries(FREQUENT)) {
    let text: string;
    try {
      text = new TextDecoder(charset, { fatal: true }).decode(bytes);
    } catch {
      continue;
    }
    let wide = 0;
    let hits = 0;
    for (const char of text) {
      if (char.charCodeAt(0) < 0x80) continue;
      wide++;
      if (frequent.test(char)) hits++;
    }
    const score = wide === 0 ? 0 : hits / wide;
    if (score > bestScore) {
      best = charset;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The encoding of a text's bytes: its byte-order mark, else a UTF-16/32 NUL pattern, else UTF-8 when the bytes
 * are valid UTF-8, else a legacy charset guessed from them (Shift_JIS, EUC-KR, GB18030, Big5, else
 * Windows-1252, a superset of Latin-1). `guessed` is true for the last two (UTF-8 and legacy).
 */
export function textEncoding(bytes: Uint8Array): { encoding: string; bomLength: number; guessed: boolean } {
  const bom = byteOrderMark(bytes);
  if (bom) return { encoding: bom.encoding, bomLength: bom.length, guessed: false };
  const head = bytes.subarray(0, SNIFF_BYTES);
  const wide = head.includes(0) ? unmarkedWide(head) : null;
  if (wide) return { encoding: wide, bomLength: 0, guessed: false };
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, 64 * 1024 + 3));
    return { encoding: "utf-8", bomLength: 0, guessed: true };
  } catch {
    // The sample may end inside a character: a longer text is checked whole.
    if (bytes.length > 64 * 1024 + 3) {
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        return { encoding: "utf-8", bomLength: 0, guessed: true };
      } catch {
        // Not UTF-8: a legacy charset below.
      }
    }
    return { encoding: legacyCharset(bytes.subarray(0, 256 * 1024)), bomLength: 0, guessed: true };
  }
}

/** UTF-32 (which TextDecoder does not know): code points above U+10FFFF or surrogates become U+FFFD. */
function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let chunk: number[] = [];
  for (let at = 0; at + 4 <= bytes.length; at += 4) {
    const code = view.getUint32(at, littleEndian);
    chunk.push(code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? 0xfffd : code);
    if (chunk.length === 8192) {
      parts.push(String.fromCodePoint(...chunk));
      chunk = [];
    }
  }
  parts.push(String.fromCodePoint(...chunk));
  return parts.join("");
}

/** Bytes in an encoding textEncoding names (UTF-32 included). */
export function decodeAs(encoding: string, bytes: Uint8Array): string {
  if (encoding === "utf-32le" || encoding === "utf-32be") return decodeUtf32(bytes, encoding === "utf-32le");
  return new TextDecoder(encoding).decode(bytes);
}

/**
 * Decodes the bytes of a text document: by its byte-order mark (UTF-8, UTF-16 or UTF-32; the mark is dropped) or
 * the NUL pattern of unmarked UTF-16/32, else by `declared` (a charset the document names for itself) when it is
 * one the platform knows, else UTF-8, or, when the bytes are not valid UTF-8, a legacy charset guessed from them
 * (Shift_JIS, EUC-KR, GB18030, Big5, else Windows-1252) with a warning. Bytes with NUL characters in no UTF-16/32
 * pattern are binary, not text: DocumentLoadError.
 */
export function decodeText(
  bytes: Uint8Array,
  what: string,
  declared: string | null = null,
): { text: string; warnings: string[] } {
  const head = bytes.subarray(0, SNIFF_BYTES);
  const found = textEncoding(bytes);
  if (!found.guessed) {
    return { text: decodeAs(found.encoding, bytes.subarray(found.bomLength)), warnings: [] };
  }
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
    const charset = found.encoding === "utf-8" ? "windows-1252" : found.encoding;
    const name =
      charset === "windows-1252"
        ? "Windows-1252"
        : charset === "shift_jis"
          ? "Shift_JIS"
          : charset.toUpperCase();
    return {
      text: new TextDecoder(charset).decode(bytes),
      warnings: [`The text is not valid UTF-8; it was read as ${name}`],
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
