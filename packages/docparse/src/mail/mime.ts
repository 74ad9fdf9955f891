/**
 * A MIME reader (RFC 822/5322 headers, RFC 2045-2047 bodies): an entity's headers unfolded, its body decoded
 * from quoted-printable or base64, its text decoded from its charset, RFC 2047 encoded words in headers, and
 * multipart bodies split into their parts. Lenient: a malformed encoding or a missing closing boundary is read
 * as far as it goes, never thrown on.
 */

export interface MimeEntity {
  /** Header values by lower-case name, unfolded, in order of appearance. */
  headers: Map<string, string[]>;
  /** `text/plain` when the entity names none (or `message/rfc822` inside a digest). */
  type: string;
  /** Content-Type parameters (lower-case names), RFC 2231 continuations joined. */
  params: Record<string, string>;
  /** The body as sent (transfer encoding not undone). */
  raw: Uint8Array;
  /** Parts of a multipart body, else empty. */
  parts: MimeEntity[];
}

/** Deepest multipart nesting read; parts below are left out. */
const MAX_DEPTH = 32;

const latin1 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");

/** The offset where the header block ends (the blank line) and where the body starts; -1/-1 when no blank line. */
function headerEnd(bytes: Uint8Array): { end: number; body: number } {
  // A part that starts with a blank line has no headers.
  if (bytes[0] === 10) return { end: 0, body: 1 };
  if (bytes[0] === 13 && bytes[1] === 10) return { end: 0, body: 2 };
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 10) continue;
    if (bytes[i + 1] === 10) return { end: i, body: i + 2 };
    if (bytes[i + 1] === 13 && bytes[i + 2] === 10) return { end: i, body: i + 3 };
  }
  return { end: -1, body: -1 };
}

/** Unfolded header fields of a header block. Lines that are not fields (no colon) are skipped. */
export function parseHeaders(block: string): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  const unfolded = block.replace(/\r?\n(?=[ \t])/g, "");
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue;
    const value = line.slice(colon + 1).trim();
    const list = headers.get(name);
    if (list) list.push(value);
    else headers.set(name, [value]);
  }
  return headers;
}

/** `text/html; charset="utf-8"` → its type and parameters (RFC 2231 `name*0*=` continuations joined). */
export function parseContentType(value: string | undefined): {
  type: string;
  params: Record<string, string>;
} {
  const params: Record<string, string> = {};
  if (!value) return { type: "", params };
  const [head, ...rest] = splitParams(value);
  const continued = new Map<string, { index: number; value: string; encoded: boolean }[]>();
  for (const piece of rest) {
    const eq = piece.indexOf("=");
    if (eq <= 0) continue;
    let name = piece.slice(0, eq).trim().toLowerCase();
    let val = piece.slice(eq + 1).trim();
    if (val.startsWith('"'))
      val = val.slice(1, val.endsWith('"') && val.length > 1 ? -1 : undefined).replace(/\\(.)/g, "$1");
    const cont = /^(.+?)\*(\d+)(\*?)$/.exec(name);
    if (cont) {
      const list = continued.get(cont[1]) ?? [];
      list.push({ index: Number(cont[2]), value: val, encoded: cont[3] === "*" });
      continued.set(cont[1], list);
      continue;
    }
    if (name.endsWith("*")) {
      name = name.slice(0, -1);
      val = decodeRfc2231(val);
    }
    params[name] = val;
  }
  for (const [name, list] of continued) {
    list.sort((a, b) => a.index - b.index);
    const joined = list.map((p) => p.value).join("");
    params[name] = list[0]?.encoded ? decodeRfc2231(joined) : joined;
  }
  return { type: head.trim().toLowerCase(), params };
}

/** Splits at semicolons outside quotes. */
function splitParams(value: string): string[] {
  const out: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === "\\" && quoted) {
      current += c + (value[i + 1] ?? "");
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (c === ";" && !quoted) {
      out.push(current);
      current = "";
    } else current += c;
  }
  out.push(current);
  return out;
}

/** `utf-8'en'%E2%82%AC` → `€`. */
function decodeRfc2231(value: string): string {
  const match = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!match) return value;
  const bytes: number[] = [];
  for (let i = 0; i < match[2].length; i++) {
    const c = match[2][i];
    if (c === "%" && /^[0-9a-f]{2}$/i.test(match[2].slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(match[2].slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c.charCodeAt(0) & 0xff);
  }
  return decodeCharset(new Uint8Array(bytes), match[1] || "utf-8");
}

/** Bytes in a named charset; unknown names are read as UTF-8 (else Windows-1252 when not valid UTF-8). */
export function decodeCharset(bytes: Uint8Array, charset: string | undefined): string {
  const name = (charset ?? "").trim().toLowerCase().replace(/^"|"$/g, "");
  if (name && !/^(utf-?8|us-ascii|ascii)$/.test(name)) {
    try {
      return new TextDecoder(name === "ks_c_5601-1987" ? "euc-kr" : name).decode(bytes);
    } catch {
      // An unknown charset: fall through to UTF-8.
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** RFC 2047 encoded words (`=?utf-8?B?...?=`, `=?iso-8859-1?Q?...?=`) decoded; whitespace between two words dropped. */
export function decodeWords(value: string): string {
  const word = /=\?([^?\s]+)\?([bqBQ])\?([^?\s]*)\?=/g;
  const joined = value.replace(/(=\?[^?\s]+\?[bqBQ]\?[^?\s]*\?=)\s+(?==\?)/g, "$1");
  // Adjacent words of one charset are decoded together: a multibyte character may be split between them.
  return joined.replace(/(?:=\?([^?\s]+)\?([bqBQ])\?([^?\s]*)\?=)+/g, (run) => {
    const chunks: { charset: string; bytes: Uint8Array }[] = [];
    for (const m of run.matchAll(word)) {
      const charset = m[1].split("*")[0];
      const bytes =
        m[2].toLowerCase() === "b"
          ? new Uint8Array(Buffer.from(m[3], "base64"))
          : decodeQuotedPrintable(m[3].replace(/_/g, " "));
      const last = chunks.at(-1);
      if (last && last.charset.toLowerCase() === charset.toLowerCase()) {
        last.bytes = new Uint8Array(Buffer.concat([last.bytes, bytes]));
      } else chunks.push({ charset, bytes });
    }
    return chunks.map((c) => decodeCharset(c.bytes, c.charset)).join("");
  });
}

/** Quoted-printable → bytes; a malformed escape is kept as it is. */
export function decodeQuotedPrintable(text: string): Uint8Array {
  const out = Buffer.alloc(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 61 /* = */) {
      const next = text.slice(i + 1, i + 3);
      if (/^[0-9a-fA-F]{2}$/.test(next)) {
        out[n++] = Number.parseInt(next, 16);
        i += 2;
        continue;
      }
      // A soft line break: `=` at the end of a line (trailing spaces allowed).
      const soft = /^[ \t]*(\r\n|\n|$)/.exec(text.slice(i + 1, i + 80));
      if (soft) {
        i += soft[0].length;
        continue;
      }
    }
    out[n++] = c & 0xff;
  }
  return new Uint8Array(out.subarray(0, n));
}

/** Base64 with anything outside its alphabet skipped (line breaks, stray characters). */
function decodeBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.replace(/[^A-Za-z0-9+/]/g, ""), "base64"));
}

/** The first value of a header, RFC 2047 words decoded; undefined when absent. */
export function header(entity: MimeEntity, name: string): string | undefined {
  const value = entity.headers.get(name)?.[0];
  return value === undefined ? undefined : decodeWords(value);
}

/** The body's bytes with the transfer encoding undone. */
export function bodyBytes(entity: MimeEntity): Uint8Array {
  const encoding = (entity.headers.get("content-transfer-encoding")?.[0] ?? "").trim().toLowerCase();
  if (encoding === "base64") return decodeBase64(latin1(entity.raw));
  if (encoding === "quoted-printable") return decodeQuotedPrintable(latin1(entity.raw));
  return entity.raw;
}

/** The body as text, in its declared charset. */
export function bodyText(entity: MimeEntity): string {
  return decodeCharset(bodyBytes(entity), entity.params.charset);
}

/** The file name a part gives itself (Content-Disposition filename, else Content-Type name), decoded. */
export function fileName(entity: MimeEntity): string | null {
  const disposition = parseContentType(entity.headers.get("content-disposition")?.[0]);
  const name = disposition.params.filename ?? entity.params.name;
  return name ? decodeWords(name) : null;
}

/** Whether the part is an attachment rather than a part of the message's body. */
export function isAttachment(entity: MimeEntity): boolean {
  const disposition = parseContentType(entity.headers.get("content-disposition")?.[0]).type;
  return disposition === "attachment" || (disposition !== "inline" && fileName(entity) !== null);
}

/** Finds `--boundary` delimiter lines; returns the parts' byte ranges (preamble and epilogue left out). */
function splitMultipart(body: Uint8Array, boundary: string): Uint8Array[] {
  const text = latin1(body);
  const delimiter = `--${boundary}`;
  const parts: Uint8Array[] = [];
  let start = -1;
  let at = 0;
  while (at <= text.length) {
    const found = text.indexOf(delimiter, at);
    if (found < 0) break;
    const lineStart = found === 0 || text[found - 1] === "\n";
    if (!lineStart) {
      at = found + delimiter.length;
      continue;
    }
    const closing = text.startsWith("--", found + delimiter.length);
    if (start >= 0) {
      // The line break before the delimiter belongs to the delimiter.
      let end = found;
      if (text[end - 1] === "\n") end--;
      if (text[end - 1] === "\r") end--;
      parts.push(body.subarray(start, Math.max(start, end)));
    }
    if (closing) return parts;
    const eol = text.indexOf("\n", found);
    start = eol < 0 ? text.length : eol + 1;
    at = start;
  }
  // No closing delimiter: the last part runs to the end.
  if (start >= 0 && start < text.length) parts.push(body.subarray(start));
  return parts;
}

/** Reads a MIME entity (a whole message, or one part). `defaultType` is `message/rfc822` inside a digest. */
export function parseEntity(bytes: Uint8Array, defaultType = "text/plain", depth = 0): MimeEntity {
  const { end, body } = headerEnd(bytes);
  // No blank line: all headers when the text is only header lines, else all body.
  let headerBlock = "";
  let raw = bytes;
  if (end >= 0) {
    headerBlock = latin1(bytes.subarray(0, end));
    raw = bytes.subarray(body);
  } else if (/^[\w-]+:/.test(latin1(bytes.subarray(0, 200)))) {
    headerBlock = latin1(bytes);
    raw = new Uint8Array(0);
  }
  const headers = parseHeaders(headerBlock);
  const contentType = parseContentType(headers.get("content-type")?.[0]);
  const type = /^[\w.+-]+\/[\w.+-]+$/.test(contentType.type) ? contentType.type : defaultType;
  const entity: MimeEntity = { headers, type, params: contentType.params, raw, parts: [] };
  if (type.startsWith("multipart/") && contentType.params.boundary && depth < MAX_DEPTH) {
    const inner = type === "multipart/digest" ? "message/rfc822" : "text/plain";
    entity.parts = splitMultipart(raw, contentType.params.boundary).map((part) =>
      parseEntity(part, inner, depth + 1),
    );
  }
  return entity;
}
