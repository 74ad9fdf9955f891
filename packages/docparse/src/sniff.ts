import { inflateRawSync } from "node:zlib";
import { detectDelimiter, splitRecords } from "./backends/csv.ts";
import { isBmp } from "./images/bmp.ts";
import { isHeic, isHeif } from "./images/heif.ts";
import { decodeAs, textEncoding } from "./text-decoding.ts";

/**
 * The media type a file's bytes announce (the engine reads a file as this, its declared type being a hint):
 * PDF, images, zip containers by their entries (DOCX, XLSX, PPTX and their macro-enabled variants, OpenDocument,
 * EPUB, Keynote, else a zip archive), OLE2 compound files by their streams (DOC, XLS, PPT, Outlook MSG), RTF,
 * PKCS#7 (DER, PEM, S/MIME), and text in any encoding textEncoding tells: email, HTML, XML, CSV, else plain
 * text. Null when nothing fits.
 */

export const OOXML = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xlsm: "application/vnd.ms-excel.sheet.macroEnabled.12",
} as const;

const ascii = (bytes: Uint8Array, start: number, end: number) =>
  Buffer.from(
    bytes.buffer,
    bytes.byteOffset + start,
    Math.max(0, Math.min(end, bytes.length) - start),
  ).toString("latin1");

export const EPUB = "application/epub+zip";
export const ZIP = "application/zip";
export const EMAIL = "message/rfc822";
export const OUTLOOK_MSG = "application/vnd.ms-outlook";

const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** The DER of the signedData content type, 1.2.840.113549.1.7.2. */
const SIGNED_DATA_OID = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, i) => bytes[at + i] === byte);
}

export interface ZipEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

/** The entries listed in a zip's central directory (at most `limit`), or null when it has none readable. */
export function zipEntries(bytes: Uint8Array, limit = 100_000): ZipEntry[] | null {
  if (bytes.length < 22) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end-of-central-directory record is in the last 64 KiB + 22 bytes.
  const floor = Math.max(0, bytes.length - 65_557);
  let eocd = -1;
  for (let at = bytes.length - 22; at >= floor; at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) return null;
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count && entries.length < limit; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) break;
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    const name = Buffer.from(
      bytes.buffer,
      bytes.byteOffset + at + 46,
      Math.max(0, Math.min(nameLength, bytes.length - at - 46)),
    ).toString("utf8");
    entries.push({
      name,
      compressedSize: view.getUint32(at + 20, true),
      uncompressedSize: view.getUint32(at + 24, true),
    });
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

/** Names of the entries in a zip's central directory, or null when it has none readable. */
export function zipEntryNames(bytes: Uint8Array): string[] | null {
  return zipEntries(bytes)?.map((entry) => entry.name) ?? null;
}

/**
 * Why a zip should not be unpacked (a zip bomb): more than `maxBytes` in all, or an entry above 16 MiB that
 * expands more than 200 times. Null when it looks like an ordinary archive.
 */
export function zipBombReason(bytes: Uint8Array, maxBytes = 1 << 30): string | null {
  const entries = zipEntries(bytes);
  if (!entries) return null;
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    if (
      entry.uncompressedSize > 16 << 20 &&
      entry.uncompressedSize > 200 * Math.max(1, entry.compressedSize)
    ) {
      return `its entry ${entry.name} would expand ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))} times, to ${Math.round(entry.uncompressedSize / 2 ** 20)} MiB`;
    }
  }
  return total > maxBytes ? `it would expand to ${Math.round(total / 2 ** 20)} MiB` : null;
}

/** The text of a small zip entry (stored or deflated), read from its local header; null when it cannot be. */
function zipEntryText(bytes: Uint8Array, name: string, maxBytes = 1 << 20): string | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const wanted = Buffer.from(name, "utf8");
  let at = 0;
  while (at + 30 <= bytes.length && view.getUint32(at, true) === 0x04034b50) {
    const method = view.getUint16(at + 8, true);
    const compressed = view.getUint32(at + 18, true);
    const nameLength = view.getUint16(at + 26, true);
    const extra = view.getUint16(at + 28, true);
    const start = at + 30 + nameLength + extra;
    const entryName = Buffer.from(bytes.buffer, bytes.byteOffset + at + 30, nameLength);
    if (entryName.equals(wanted)) {
      const data = bytes.subarray(start, Math.min(start + compressed, bytes.length));
      try {
        if (method === 0) return Buffer.from(data).toString("utf8");
        if (method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes }).toString("utf8");
      } catch {
        return null;
      }
      return null;
    }
    if (compressed === 0) return null; // sizes in a data descriptor: not walked
    at = start + compressed;
  }
  return null;
}

function sniffZip(bytes: Uint8Array): string | null {
  const names = zipEntryNames(bytes);
  if (!names) return null;
  const has = (prefix: string) => names.some((name) => name.startsWith(prefix));
  if (names[0] === "mimetype" || names.includes("mimetype")) {
    const type = zipEntryText(bytes, "mimetype")?.trim();
    if (type?.startsWith("application/vnd.oasis.opendocument.")) return type;
  }
  if (names.includes("[Content_Types].xml")) {
    const types = zipEntryText(bytes, "[Content_Types].xml") ?? "";
    if (has("word/")) return OOXML.docx;
    if (has("ppt/")) return OOXML.pptx;
    if (has("xl/")) return /macroEnabled/i.test(types) || has("xl/vbaProject") ? OOXML.xlsm : OOXML.xlsx;
  }
  if (has("Index/") || names.includes("index.apxl") || names.includes("Index.zip"))
    return "application/vnd.apple.keynote";
  if (names.includes("mimetype") && zipEntryText(bytes, "mimetype")?.trim() === EPUB) return EPUB;
  if (names.includes("META-INF/container.xml") && names.some((name) => /\.opf$/i.test(name))) return EPUB;
  // Any other zip is an archive of files, each read on its own.
  return names.length > 0 ? ZIP : null;
}

/** The kind of an OLE2 compound file by the names of its directory entries (UTF-16 at 128-byte steps). */
function sniffOle2(bytes: Uint8Array): string | null {
  const names: Record<string, string> = {
    WordDocument: "application/msword",
    Workbook: "application/vnd.ms-excel",
    Book: "application/vnd.ms-excel",
    "PowerPoint Document": "application/vnd.ms-powerpoint",
    "__properties_version1.0": OUTLOOK_MSG,
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found = new Set<string>();
  for (let at = 512; at + 128 <= bytes.length; at += 128) {
    const length = view.getUint16(at + 64, true);
    const type = bytes[at + 66];
    if (length < 4 || length > 64 || length % 2 !== 0 || type !== 2) continue;
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + at, length - 2).toString("utf16le");
    if (name in names) found.add(name);
  }
  // An Outlook message keeps its properties in __properties_version1.0 and __substg1.0_* streams.
  if (found.has("__properties_version1.0")) return OUTLOOK_MSG;
  for (const name of ["WordDocument", "PowerPoint Document", "Workbook", "Book"]) {
    if (found.has(name)) return names[name];
  }
  return null;
}

/** Plain text at the start of a file (in any encoding textEncoding tells), or null when its first bytes are binary. */
function headText(bytes: Uint8Array): string | null {
  const head = bytes.subarray(0, 8192);
  const encoding = textEncoding(head);
  if (encoding.encoding !== "utf-8" && !encoding.guessed) {
    return decodeAs(encoding.encoding, head.subarray(encoding.bomLength));
  }
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return null;
    if (byte < 9 || (byte > 13 && byte < 32)) control++;
  }
  if (control > head.length / 100) return null;
  return Buffer.from(head.subarray(encoding.bomLength)).toString("utf8");
}

/** Media types by file extension: hints for embedded files whose bytes do not tell (text formats). */
const EXTENSIONS: Record<string, string> = {
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  rst: "text/x-rst",
  org: "text/org",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  htm: "text/html",
  html: "text/html",
  xhtml: "application/xhtml+xml",
  xml: "application/xml",
  eml: EMAIL,
  msg: OUTLOOK_MSG,
  epub: EPUB,
  zip: ZIP,
  rtf: "application/rtf",
  pdf: "application/pdf",
  json: "application/json",
};

/** The media type a file name's extension suggests, else null. */
export function mimeTypeOfName(name: string): string | null {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return ext ? (EXTENSIONS[ext] ?? null) : null;
}

function sniffText(text: string): string {
  const start = text.trimStart();
  const lower = start.slice(0, 2048).toLowerCase();
  if (/^-----begin (pkcs7|cms)-----/.test(lower)) return "application/pkcs7-mime";
  // A signed or encrypted email is an email first: its backend reads the signature or says it is encrypted.
  if (looksLikeEmail(start, true)) return EMAIL;
  if (/^(mime-version:|content-type:)[\s\S]*application\/(x-)?pkcs7-(mime|signature)/.test(lower)) {
    return "application/pkcs7-mime";
  }
  if (lower.startsWith("{\\rtf")) return "application/rtf";
  if (looksLikeEmail(start)) return EMAIL;
  if (start.startsWith("<")) {
    if (/<!doctype html|<html[\s>]/.test(lower)) return "text/html";
    if (lower.startsWith("<?xml") || /^<!doctype [\w:-]+/.test(lower) || /^<[\w:-]+[\s>]/.test(lower)) {
      return /^<(head|body|div|p|table|h[1-6]|ul|section|article)[\s>]/.test(lower)
        ? "text/html"
        : "application/xml";
    }
    if (/^<!--/.test(lower))
      return /<(html|body|div|p|table)[\s>]/.test(lower) ? "text/html" : "application/xml";
  }
  if (looksLikeCsv(text)) return "text/csv";
  return "text/plain";
}

/** Header fields that an email has and other text does not begin with. */
const MAIL_FIELDS =
  /^(from|to|cc|subject|date|message-id|received|return-path|mime-version|delivered-to|x-[\w-]+|reply-to|sender|in-reply-to|references|content-type|dkim-signature|authentication-results|thread-topic|x-mailer)$/;

/**
 * An RFC 822 message: it starts with header fields (an mbox `From ` line allowed), up to a blank line, and has
 * at least two of the fields a message has, one of them From, Date, Received, Message-ID or MIME-Version.
 * `addressed` asks for a field only a message has (From, To, Subject, Date, Message-ID, Received), so that a bare
 * MIME entity (an S/MIME blob) is not taken for an email.
 */
function looksLikeEmail(text: string, addressed = false): boolean {
  const lines = text.replace(/^From [^\n]*\n/, "").split(/\r?\n/);
  const names = new Set<string>();
  for (const line of lines.slice(0, 200)) {
    if (line === "") break;
    if (/^[ \t]/.test(line)) continue;
    const match = /^([\x21-\x39\x3b-\x7e]+):/.exec(line);
    if (!match) return false;
    names.add(match[1].toLowerCase());
  }
  const known = [...names].filter((name) => MAIL_FIELDS.test(name));
  if (addressed && !known.some((name) => /^(from|to|subject|date|message-id|received)$/.test(name)))
    return false;
  return (
    known.length >= 2 && known.some((name) => /^(from|date|received|message-id|mime-version)$/.test(name))
  );
}

/** At least three lines, nearly all of which one delimiter splits into the same number (two or more) of fields. */
function looksLikeCsv(text: string): boolean {
  const sample = text.slice(0, 4096);
  const cut = sample.length === text.length ? sample : sample.slice(0, Math.max(0, sample.lastIndexOf("\n")));
  const delimiter = detectDelimiter(cut);
  const records = splitRecords(cut, delimiter).filter((r) => !(r.length === 1 && r[0].trim() === ""));
  if (records.length < 3) return false;
  const widths = new Map<number, number>();
  for (const record of records) widths.set(record.length, (widths.get(record.length) ?? 0) + 1);
  const [width, count] = [...widths].sort((a, b) => b[1] - a[1])[0];
  return width >= 2 && count >= 0.8 * records.length && records.every((record) => record.length >= 2);
}

/** The media type a file's first bytes announce, else null. */
export function sniffMimeType(bytes: Uint8Array | undefined): string | null {
  if (!bytes || bytes.length < 4) return null;
  if (ascii(bytes, 0, 1024).includes("%PDF-")) return "application/pdf";
  if (bytes[0] === 0x89 && ascii(bytes, 1, 4) === "PNG") return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii(bytes, 0, 4) === "II*\0" || ascii(bytes, 0, 4) === "MM\0*") return "image/tiff";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "image/webp";
  if (ascii(bytes, 0, 4) === "GIF8") return "image/gif";
  if (isBmp(bytes)) return "image/bmp";
  if (isHeif(bytes)) return isHeic(bytes) ? "image/heic" : "image/avif";
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return sniffZip(bytes);
  if (startsWith(bytes, OLE2)) return sniffOle2(bytes);
  // PKCS#7 / CMS in DER: a SEQUENCE whose first element is the signedData content type.
  if (bytes[0] === 0x30) {
    const lengthBytes = bytes[1] & 0x80 ? bytes[1] & 0x7f : 0;
    if (startsWith(bytes, SIGNED_DATA_OID, 2 + lengthBytes)) return "application/pkcs7-mime";
  }
  const text = headText(bytes);
  return text === null ? null : sniffText(text);
}
