import { inflateSync, unzipSync } from "fflate";
import { DocumentLoadError } from "../model.ts";
import { childrenNamed, parseXml, type XmlElement } from "./xml.ts";

/**
 * An OOXML package (a zip of XML parts) read under hard limits, so a zip bomb or a huge archive ends with a
 * DocumentLoadError and bounded memory: at most MAX_ENTRIES entries, MAX_ENTRY_BYTES uncompressed per entry and
 * MAX_TOTAL_BYTES in all. Only XML parts (`.xml`, `.rels`) are inflated; media stay compressed and unread.
 */
export const ZIP_LIMITS = {
  maxEntries: 10_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
};

interface EntryInfo {
  compressed: number;
  declared: number;
  compression: number;
}

const decoder = new TextDecoder("utf-8");

export class OoxmlPackage {
  readonly #raw = new Map<string, Uint8Array>();
  readonly #entries = new Map<string, EntryInfo>();
  readonly #xml = new Map<string, XmlElement>();
  readonly #rels = new Map<string, Map<string, Relationship>>();
  readonly format: string;

  /** Opens the zip; `format` (e.g. `DOCX`) names the document kind in error messages. */
  constructor(bytes: Uint8Array, format: string) {
    this.format = format;
    // Password-protected OOXML files, and legacy binary Office files, are OLE compound documents.
    if (
      bytes.length >= 8 &&
      bytes[0] === 0xd0 &&
      bytes[1] === 0xcf &&
      bytes[2] === 0x11 &&
      bytes[3] === 0xe0
    ) {
      throw new DocumentLoadError(
        `The file is not a readable ${format} document: it is an OLE compound file (a password-protected document, or a legacy binary Office file)`,
      );
    }
    if (bytes.length < 22 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
      throw new DocumentLoadError(`The file is not a ${format} document: it is not a zip archive`);
    }
    let total = 0;
    let count = 0;
    try {
      // The central directory is listed first; entries that break a limit stop the read before any inflation.
      const stored = unzipSync(bytes, {
        filter: (file) => {
          count++;
          if (count > ZIP_LIMITS.maxEntries) {
            throw new DocumentLoadError(
              `The ${format} archive has more than ${ZIP_LIMITS.maxEntries} entries`,
            );
          }
          const name = file.name.replace(/^\/+/, "");
          this.#entries.set(name, {
            compressed: file.size,
            declared: file.originalSize,
            compression: file.compression,
          });
          if (!/\.(xml|rels)$/i.test(name)) return false;
          if (file.originalSize > ZIP_LIMITS.maxEntryBytes) {
            throw new DocumentLoadError(
              `The ${format} part ${name} would inflate to ${file.originalSize} bytes, above the limit of ${ZIP_LIMITS.maxEntryBytes}`,
            );
          }
          total += file.originalSize;
          if (total > ZIP_LIMITS.maxTotalBytes) {
            throw new DocumentLoadError(
              `The ${format} archive would inflate to more than ${ZIP_LIMITS.maxTotalBytes} bytes`,
            );
          }
          // Stored (0) entries are taken as they are; deflated (8) ones are inflated below, into a buffer of the
          // declared size so a lying size cannot grow memory.
          return file.compression === 0;
        },
      });
      for (const [name, data] of Object.entries(stored)) this.#raw.set(name.replace(/^\/+/, ""), data);
    } catch (error) {
      if (error instanceof DocumentLoadError) throw error;
      throw new DocumentLoadError(
        `The ${format} archive cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.#bytes = bytes;
  }

  readonly #bytes: Uint8Array;

  /** Whether the package has a part of that name. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Names of every part. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** The bytes of an XML part, inflated on first use; undefined when absent. */
  #partBytes(name: string): Uint8Array | undefined {
    const cached = this.#raw.get(name);
    if (cached) return cached;
    const info = this.#entries.get(name);
    if (!info) return undefined;
    if (info.compression !== 8) {
      throw new DocumentLoadError(
        `The ${this.format} part ${name} uses zip compression method ${info.compression}, which is not supported`,
      );
    }
    let data: Uint8Array;
    try {
      data = this.#inflate(name, info);
    } catch (error) {
      if (error instanceof DocumentLoadError) throw error;
      throw new DocumentLoadError(
        `The ${this.format} part ${name} cannot be inflated: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.#raw.set(name, data);
    return data;
  }

  /** Inflates a deflated entry into a buffer of its declared size: output beyond it is a DocumentLoadError. */
  #inflate(name: string, info: EntryInfo): Uint8Array {
    const offset = findLocalHeader(this.#bytes, name);
    if (offset < 0) throw new DocumentLoadError(`The ${this.format} part ${name} has no local header`);
    const view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
    const start = offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true);
    const compressed = this.#bytes.subarray(start, start + info.compressed);
    // One byte of slack tells an entry that inflates beyond its declared size.
    const out = new Uint8Array(info.declared + 1);
    const inflated = inflateSync(compressed, { out });
    if (inflated.length > info.declared) {
      throw new DocumentLoadError(
        `The ${this.format} part ${name} inflates beyond its declared size of ${info.declared} bytes`,
      );
    }
    return inflated;
  }

  /** The text of a part, or undefined when absent. */
  text(name: string): string | undefined {
    const data = this.#partBytes(name);
    return data === undefined ? undefined : decoder.decode(data);
  }

  /** A part parsed as XML (cached), or undefined when absent. */
  xml(name: string): XmlElement | undefined {
    const cached = this.#xml.get(name);
    if (cached) return cached;
    const text = this.text(name);
    if (text === undefined) return undefined;
    const root = parseXml(text, name);
    this.#xml.set(name, root);
    return root;
  }

  /** A part that must be there: its absence is a DocumentLoadError. */
  requireXml(name: string): XmlElement {
    const root = this.xml(name);
    if (!root) throw new DocumentLoadError(`The ${this.format} document has no ${name} part`);
    return root;
  }

  /** The relationships of a part (from its `_rels/<name>.rels`), by id; targets resolved to part names. */
  rels(part: string): Map<string, Relationship> {
    const cached = this.#rels.get(part);
    if (cached) return cached;
    const slash = part.lastIndexOf("/");
    const dir = slash === -1 ? "" : part.slice(0, slash);
    const relsName = `${dir ? `${dir}/` : ""}_rels/${part.slice(slash + 1)}.rels`;
    const map = new Map<string, Relationship>();
    const root = this.xml(relsName);
    for (const rel of childrenNamed(root, "Relationship")) {
      const external = rel.attrs.TargetMode === "External";
      const target = rel.attrs.Target ?? "";
      map.set(rel.attrs.Id ?? "", {
        type: (rel.attrs.Type ?? "").replace(/^.*\//, ""),
        target: external ? target : resolvePart(dir, target),
        external,
      });
    }
    this.#rels.set(part, map);
    return map;
  }

  /** The part a relationship of the package root points to, by relationship type (`officeDocument`). */
  mainPart(): string | undefined {
    for (const rel of this.rels("").values()) if (rel.type === "officeDocument") return rel.target;
    return undefined;
  }
}

export interface Relationship {
  /** The last segment of the type URI, e.g. `image`, `hyperlink`, `slide`. */
  type: string;
  /** A part name (no leading slash) or, when external, the URL as written. */
  target: string;
  external: boolean;
}

/** `word` + `../media/a.png` → `media/a.png`; absolute targets drop their leading slash. */
export function resolvePart(dir: string, target: string): string {
  const segments = target.startsWith("/") ? [] : dir.split("/").filter(Boolean);
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return segments.join("/");
}

/** The offset of the local file header of an entry, found through the central directory. */
function findLocalHeader(bytes: Uint8Array, name: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return -1;
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  for (let i = 0; i < count && at + 46 <= bytes.length; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) return -1;
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    const entryName = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)).replace(/^\/+/, "");
    if (entryName === name) return view.getUint32(at + 42, true);
    at += 46 + nameLength + extra + comment;
  }
  return -1;
}
