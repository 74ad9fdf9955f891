import { MimeType } from "@svc/contract";

const KNOWN = new Set<string>(MimeType.enum as readonly string[]);

/** File name extensions of the accepted media types. */
const BY_EXTENSION: Record<string, MimeType> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  doc: "application/msword",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ppt: "application/vnd.ms-powerpoint",
  key: "application/vnd.apple.keynote",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  tif: "image/tiff",
  tiff: "image/tiff",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  avif: "image/avif",
  heic: "image/heic",
  heif: "image/heif",
  bmp: "image/bmp",
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  eml: "message/rfc822",
  msg: "application/vnd.ms-outlook",
  epub: "application/epub+zip",
  zip: "application/zip",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  rst: "text/x-rst",
  org: "text/org",
  html: "text/html",
  htm: "text/html",
  md: "text/markdown",
  markdown: "text/markdown",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xlsm: "application/vnd.ms-excel.sheet.macroenabled.12",
  xls: "application/vnd.ms-excel",
  xml: "text/xml",
  csv: "text/csv",
  rtf: "text/rtf",
  p7m: "application/pkcs7-mime",
  p7s: "application/pkcs7-signature",
};

/** Declared types that say less than a file name's extension does. */
const VAGUE = new Set(["application/octet-stream", "text/plain", "binary/octet-stream", ""]);

/**
 * The media type of a file: the declared Content-Type when it is one of the accepted types and says more than
 * `application/octet-stream` or `text/plain`, else the type of the name's extension, else the declared type if
 * accepted, else `application/octet-stream`.
 */
export function mimeTypeOf(fileName: string | null, declared: string | null): MimeType {
  const type = (declared ?? "").split(";")[0].trim().toLowerCase();
  if (KNOWN.has(type) && !VAGUE.has(type)) return type as MimeType;
  const extension = fileName?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (extension && Object.hasOwn(BY_EXTENSION, extension)) return BY_EXTENSION[extension];
  if (KNOWN.has(type)) return type as MimeType;
  return "application/octet-stream";
}
