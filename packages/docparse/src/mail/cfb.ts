import { DocumentLoadError } from "../model.ts";

/**
 * A reader of Compound File Binary files (OLE2, [MS-CFB]): the directory tree of storages and streams, and a
 * stream's bytes through the FAT or, for small streams, the mini FAT. Every chain is bounded by the file's size
 * and checked for loops, so a damaged file ends with a DocumentLoadError, never a hang.
 */

const SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const END_OF_CHAIN = 0xfffffffe;
const FREE = 0xffffffff;
const NO_STREAM = 0xffffffff;

export interface CfbEntry {
  name: string;
  /** 1 storage, 2 stream, 5 root. */
  type: number;
  start: number;
  size: number;
  children: CfbEntry[];
}

export class CompoundFile {
  readonly root: CfbEntry;
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #sectorSize: number;
  readonly #fat: Uint32Array;
  readonly #miniFat: Uint32Array;
  readonly #miniCutoff: number;
  readonly #miniStream: Uint8Array;
  readonly #what: string;

  constructor(bytes: Uint8Array, what: string) {
    this.#what = what;
    if (bytes.length < 512 || !SIGNATURE.every((b, i) => bytes[i] === b)) {
      throw new DocumentLoadError(`The ${what} is not a compound (OLE2) file`);
    }
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const shift = this.#view.getUint16(0x1e, true);
    if (shift !== 9 && shift !== 12) throw new DocumentLoadError(`The ${what} has an invalid sector size`);
    this.#sectorSize = 1 << shift;
    this.#miniCutoff = this.#view.getUint32(0x38, true);
    // The FAT's sectors: 109 listed in the header, the rest in the DIFAT chain.
    const fatSectors: number[] = [];
    for (let i = 0; i < 109; i++) {
      const sector = this.#view.getUint32(0x4c + i * 4, true);
      if (sector !== FREE) fatSectors.push(sector);
    }
    let difat = this.#view.getUint32(0x44, true);
    const seen = new Set<number>();
    while (difat !== END_OF_CHAIN && difat !== FREE && !seen.has(difat)) {
      seen.add(difat);
      const at = this.#offset(difat);
      const per = this.#sectorSize / 4 - 1;
      for (let i = 0; i < per; i++) {
        const sector = this.#view.getUint32(at + i * 4, true);
        if (sector !== FREE) fatSectors.push(sector);
      }
      difat = this.#view.getUint32(at + per * 4, true);
    }
    this.#fat = this.#table(fatSectors);
    this.#miniFat = this.#table(this.#chain(this.#view.getUint32(0x3c, true)));
    const entries = this.#directory(this.#view.getUint32(0x30, true));
    const root = entries[0];
    if (root?.entry.type !== 5) throw new DocumentLoadError(`The ${what} has no root directory entry`);
    this.#miniStream = this.#streamFromFat(root.entry.start, root.entry.size);
    this.root = root.entry;
    this.#link(entries, 0, new Set());
  }

  /** The file offset of a sector; a sector beyond the file is a DocumentLoadError. */
  #offset(sector: number): number {
    const at = (sector + 1) * this.#sectorSize;
    if (at + this.#sectorSize > this.#bytes.length) {
      throw new DocumentLoadError(
        `The ${this.#what} is damaged or truncated: sector ${sector} is beyond its end`,
      );
    }
    return at;
  }

  /** The sectors of a FAT chain, in order; a loop or a chain longer than the file is a DocumentLoadError. */
  #chain(start: number, fat: Uint32Array | null = this.#fat ?? null): number[] {
    const out: number[] = [];
    const limit = Math.ceil(this.#bytes.length / (fat === this.#miniFat ? 64 : this.#sectorSize)) + 1;
    let sector = start;
    while (sector !== END_OF_CHAIN && sector !== FREE) {
      if (out.length > limit || !fat || sector >= fat.length) {
        if (!fat) break;
        throw new DocumentLoadError(`The ${this.#what} is damaged: a sector chain is broken or loops`);
      }
      out.push(sector);
      sector = fat[sector];
    }
    return out;
  }

  #table(sectors: number[]): Uint32Array {
    const table = new Uint32Array((sectors.length * this.#sectorSize) / 4);
    sectors.forEach((sector, i) => {
      const at = this.#offset(sector);
      for (let j = 0; j < this.#sectorSize / 4; j++) {
        table[(i * this.#sectorSize) / 4 + j] = this.#view.getUint32(at + j * 4, true);
      }
    });
    return table;
  }

  #streamFromFat(start: number, size: number): Uint8Array {
    const sectors = this.#chain(start, this.#fat);
    const out = new Uint8Array(Math.min(size, sectors.length * this.#sectorSize));
    sectors.forEach((sector, i) => {
      const at = this.#offset(sector);
      const n = Math.min(this.#sectorSize, out.length - i * this.#sectorSize);
      if (n > 0) out.set(this.#bytes.subarray(at, at + n), i * this.#sectorSize);
    });
    return out;
  }

  #directory(start: number): { entry: CfbEntry; left: number; right: number; child: number }[] {
    const data = this.#streamFromFat(start, Number.MAX_SAFE_INTEGER);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const out: { entry: CfbEntry; left: number; right: number; child: number }[] = [];
    for (let at = 0; at + 128 <= data.length; at += 128) {
      const length = Math.min(64, view.getUint16(at + 64, true));
      const name = Buffer.from(data.subarray(at, at + Math.max(0, length - 2))).toString("utf16le");
      out.push({
        entry: {
          name,
          type: data[at + 66],
          start: view.getUint32(at + 116, true),
          size: view.getUint32(at + 120, true),
          children: [],
        },
        left: view.getUint32(at + 68, true),
        right: view.getUint32(at + 72, true),
        child: view.getUint32(at + 76, true),
      });
    }
    return out;
  }

  /** Fills each storage's children from the red-black tree of siblings under its child entry. */
  #link(
    entries: { entry: CfbEntry; left: number; right: number; child: number }[],
    index: number,
    seen: Set<number>,
  ): void {
    const storage = entries[index];
    const stack = [storage.child];
    while (stack.length > 0) {
      const i = stack.pop() as number;
      if (i === NO_STREAM || i >= entries.length || seen.has(i)) continue;
      seen.add(i);
      const node = entries[i];
      storage.entry.children.push(node.entry);
      stack.push(node.left, node.right);
      if (node.entry.type === 1) this.#link(entries, i, seen);
    }
  }

  /** A stream's bytes. */
  read(entry: CfbEntry): Uint8Array {
    if (entry.type !== 2) return new Uint8Array(0);
    if (entry.size < this.#miniCutoff) {
      const sectors = this.#chain(entry.start, this.#miniFat);
      const out = new Uint8Array(Math.min(entry.size, sectors.length * 64));
      sectors.forEach((sector, i) => {
        const n = Math.min(64, out.length - i * 64);
        if (n > 0) out.set(this.#miniStream.subarray(sector * 64, sector * 64 + n), i * 64);
      });
      return out;
    }
    return this.#streamFromFat(entry.start, entry.size);
  }
}
