import { inflateRawSync } from "node:zlib";
import { DocumentLoadError } from "../model.ts";

/**
 * A zip archive read for its members under hard limits, so that a zip bomb, a huge archive or a damaged one ends
 * with a DocumentLoadError or a warning and bounded memory. Nothing is written to disk: member names are labels,
 * never paths.
 */

export const ARCHIVE_LIMITS = {
  /** More entries than this: the archive is refused. */
  maxEntries: 2_000,
  /** A member larger than this (uncompressed) is skipped with a warning. */
  maxMemberBytes: 64 << 20,
  /** All members together larger than this: the archive is refused. */
  maxTotalBytes: 512 << 20,
  /** A member over 1 MiB that expands more than this many times is a bomb: the archive is refused. */
  maxRatio: 200,
};

export interface ZipMember {
  name: string;
  method: number;
  encrypted: boolean;
  compressedSize: number;
  size: number;
  localOffset: number;
  directory: boolean;
}

export class ZipArchive {
  readonly members: ZipMember[] = [];
  readonly #bytes: Uint8Array;
  readonly #what: string;

  /** Reads the central directory; `what` (`archive`, `EPUB`) names the file in messages. */
  constructor(bytes: Uint8Array, what: string) {
    this.#bytes = bytes;
    this.#what = what;
    if (bytes.length < 22 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
      throw new DocumentLoadError(`The ${what} is not a zip archive`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let eocd = -1;
    for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 65_557); at--) {
      if (view.getUint32(at, true) === 0x06054b50) {
        eocd = at;
        break;
      }
    }
    if (eocd < 0)
      throw new DocumentLoadError(`The ${what} is damaged or truncated: its zip directory is missing`);
    const count = view.getUint16(eocd + 10, true);
    if (count > ARCHIVE_LIMITS.maxEntries) {
      throw new DocumentLoadError(
        `The ${what} has ${count} entries, more than the ${ARCHIVE_LIMITS.maxEntries} read`,
      );
    }
    let at = view.getUint32(eocd + 16, true);
    let total = 0;
    for (let i = 0; i < count; i++) {
      if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) {
        throw new DocumentLoadError(
          `The ${what} is damaged: its zip directory breaks off at entry ${i + 1} of ${count}`,
        );
      }
      const flags = view.getUint16(at + 8, true);
      const nameLength = view.getUint16(at + 28, true);
      // Names are UTF-8 (flag 0x800) or, in old archives, CP437; read as UTF-8 either way (ASCII agrees).
      const name = new TextDecoder("utf-8").decode(
        bytes.subarray(at + 46, Math.min(bytes.length, at + 46 + nameLength)),
      );
      const member: ZipMember = {
        name,
        method: view.getUint16(at + 10, true),
        encrypted: (flags & 1) === 1,
        compressedSize: view.getUint32(at + 20, true),
        size: view.getUint32(at + 24, true),
        localOffset: view.getUint32(at + 42, true),
        directory: name.endsWith("/"),
      };
      total += member.size;
      if (
        member.size > 1 << 20 &&
        member.size > ARCHIVE_LIMITS.maxRatio * Math.max(1, member.compressedSize)
      ) {
        throw new DocumentLoadError(
          `The ${what} looks like a zip bomb: its member ${name} would expand ${Math.round(member.size / Math.max(1, member.compressedSize))} times, to ${Math.round(member.size / 2 ** 20)} MiB`,
        );
      }
      if (total > ARCHIVE_LIMITS.maxTotalBytes) {
        throw new DocumentLoadError(
          `The ${what} would expand to more than ${ARCHIVE_LIMITS.maxTotalBytes >> 20} MiB, above the limit`,
        );
      }
      this.members.push(member);
      at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    }
  }

  /** The member of that name (exact, else case-insensitive), or undefined. */
  find(name: string): ZipMember | undefined {
    return (
      this.members.find((m) => m.name === name) ??
      this.members.find((m) => m.name.toLowerCase() === name.toLowerCase())
    );
  }

  /** A member's bytes; a DocumentLoadError says why it cannot be read (encrypted, too large, damaged). */
  read(member: ZipMember): Uint8Array {
    const label = `${this.#what} member ${member.name}`;
    if (member.encrypted) throw new DocumentLoadError(`The ${label} is encrypted (password-protected)`);
    if (member.size > ARCHIVE_LIMITS.maxMemberBytes) {
      throw new DocumentLoadError(
        `The ${label} is ${Math.round(member.size / 2 ** 20)} MiB, above the ${ARCHIVE_LIMITS.maxMemberBytes >> 20} MiB read per member`,
      );
    }
    const bytes = this.#bytes;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = member.localOffset;
    if (at + 30 > bytes.length || view.getUint32(at, true) !== 0x04034b50) {
      throw new DocumentLoadError(`The ${label} is damaged: its local header is missing`);
    }
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const data = bytes.subarray(start, Math.min(bytes.length, start + member.compressedSize));
    if (member.method === 0) return data;
    if (member.method !== 8) {
      throw new DocumentLoadError(
        `The ${label} uses zip compression method ${member.method}, which is not supported`,
      );
    }
    try {
      // The declared size bounds the output: a member that lies about it stops there.
      return new Uint8Array(inflateRawSync(data, { maxOutputLength: Math.max(1, member.size) }));
    } catch (error) {
      throw new DocumentLoadError(
        `The ${label} cannot be inflated (damaged, or larger than it declares): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
