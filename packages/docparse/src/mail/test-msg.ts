/**
 * Builds Outlook messages for tests: a compound file (512-byte sectors, a mini stream for streams under 4 KiB)
 * holding MAPI property streams, attachments and attached messages, as Outlook lays them out.
 */

const END = 0xfffffffe;
const FREE = 0xffffffff;
const FAT_SECTOR = 0xfffffffd;

export interface TestNode {
  name: string;
  /** Bytes for a stream; children for a storage. */
  data?: Uint8Array;
  children?: TestNode[];
}

interface Flat {
  node: TestNode;
  type: number;
  child: number;
  right: number;
  start: number;
  size: number;
}

/** A compound file of the given root children. */
export function compoundFile(children: TestNode[]): Uint8Array {
  const flat: Flat[] = [];
  const add = (node: TestNode, type: number): number => {
    const index = flat.length;
    flat.push({ node, type, child: FREE, right: FREE, start: END, size: 0 });
    const kids = node.children ?? [];
    // Siblings as a right-leaning chain (a valid, if unbalanced, tree).
    let previous = -1;
    for (const kid of kids) {
      const at = add(kid, kid.children ? 1 : 2);
      if (previous < 0) flat[index].child = at;
      else flat[previous].right = at;
      previous = at;
    }
    return index;
  };
  add({ name: "Root Entry", children }, 5);
  // Small streams go in the mini stream, large ones in sectors of their own.
  const mini: number[] = [];
  const miniData: Uint8Array[] = [];
  const big: { entry: Flat; data: Uint8Array }[] = [];
  let miniSectors = 0;
  for (const entry of flat) {
    const data = entry.node.data;
    if (entry.type !== 2 || !data) continue;
    entry.size = data.length;
    if (data.length === 0) continue;
    if (data.length < 4096) {
      const count = Math.ceil(data.length / 64);
      entry.start = miniSectors;
      for (let i = 0; i < count; i++) mini.push(i === count - 1 ? END : miniSectors + i + 1);
      const padded = new Uint8Array(count * 64);
      padded.set(data);
      miniData.push(padded);
      miniSectors += count;
    } else big.push({ entry, data });
  }
  const ministream = concat(miniData);
  const sectorsOf = (n: number) => Math.ceil(n / 512);
  const dirSectors = sectorsOf(flat.length * 128);
  const miniFatSectors = sectorsOf(mini.length * 4);
  const miniStreamSectors = sectorsOf(ministream.length);
  const bigSectors = big.reduce((n, b) => n + sectorsOf(b.data.length), 0);
  const content = dirSectors + miniFatSectors + miniStreamSectors + bigSectors;
  let fatSectors = 1;
  while (fatSectors * 128 < content + fatSectors) fatSectors++;
  const total = fatSectors + content;
  const fat = new Uint32Array(fatSectors * 128).fill(FREE);
  for (let i = 0; i < fatSectors; i++) fat[i] = FAT_SECTOR;
  let next = fatSectors;
  const chain = (count: number): number => {
    if (count === 0) return END;
    const start = next;
    for (let i = 0; i < count; i++) fat[next + i] = i === count - 1 ? END : next + i + 1;
    next += count;
    return start;
  };
  const dirStart = chain(dirSectors);
  const miniFatStart = chain(miniFatSectors);
  const miniStreamStart = chain(miniStreamSectors);
  flat[0].start = miniStreamStart;
  flat[0].size = ministream.length;
  for (const b of big) b.entry.start = chain(sectorsOf(b.data.length));
  const out = new Uint8Array(512 * (1 + total));
  const view = new DataView(out.buffer);
  out.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  view.setUint16(0x18, 0x3e, true);
  view.setUint16(0x1a, 3, true);
  view.setUint16(0x1c, 0xfffe, true);
  view.setUint16(0x1e, 9, true);
  view.setUint16(0x20, 6, true);
  view.setUint32(0x2c, fatSectors, true);
  view.setUint32(0x30, dirStart, true);
  view.setUint32(0x38, 4096, true);
  view.setUint32(0x3c, miniFatSectors ? miniFatStart : END, true);
  view.setUint32(0x40, miniFatSectors, true);
  view.setUint32(0x44, END, true);
  for (let i = 0; i < 109; i++) view.setUint32(0x4c + i * 4, i < fatSectors ? i : FREE, true);
  const sector = (n: number) => 512 * (n + 1);
  for (let i = 0; i < fat.length; i++) view.setUint32(sector(0) + i * 4, fat[i], true);
  flat.forEach((entry, i) => {
    const at = sector(dirStart) + i * 128;
    const name = Buffer.from(`${entry.node.name}\0`, "utf16le");
    out.set(name.subarray(0, 64), at);
    view.setUint16(at + 64, Math.min(64, name.length), true);
    out[at + 66] = entry.type;
    out[at + 67] = 1;
    view.setUint32(at + 68, FREE, true);
    view.setUint32(at + 72, entry.right, true);
    view.setUint32(at + 76, entry.child, true);
    view.setUint32(at + 116, entry.start, true);
    view.setUint32(at + 120, entry.size, true);
  });
  for (let i = flat.length; i < dirSectors * 4; i++) {
    const at = sector(dirStart) + i * 128;
    view.setUint32(at + 68, FREE, true);
    view.setUint32(at + 72, FREE, true);
    view.setUint32(at + 76, FREE, true);
  }
  const miniFat = new Uint32Array(miniFatSectors * 128).fill(FREE);
  miniFat.set(mini);
  for (let i = 0; i < miniFat.length; i++) view.setUint32(sector(miniFatStart) + i * 4, miniFat[i], true);
  out.set(ministream, sector(miniStreamStart));
  for (const b of big) out.set(b.data, sector(b.entry.start));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A Unicode string property stream (`__substg1.0_XXXX001F`). */
export function stringProp(id: number, value: string): TestNode {
  return { name: `__substg1.0_${hex(id)}001F`, data: new Uint8Array(Buffer.from(value, "utf16le")) };
}

/** A binary property stream (`__substg1.0_XXXX0102`). */
export function binaryProp(id: number, data: Uint8Array): TestNode {
  return { name: `__substg1.0_${hex(id)}0102`, data };
}

/** The fixed-size property stream; `time` sets PR_CLIENT_SUBMIT_TIME. `header` is 32 (message), 24 (attached message), 8 (attachment). */
export function propertiesStream(header: number, time?: Date): TestNode {
  const data = new Uint8Array(header + (time ? 16 : 0));
  if (time) {
    const view = new DataView(data.buffer);
    view.setUint32(header, (0x0039 << 16) | 0x0040, true);
    view.setBigUint64(header + 8, BigInt(time.getTime() + 11_644_473_600_000) * 10_000n, true);
  }
  return { name: "__properties_version1.0", data };
}

function hex(id: number): string {
  return id.toString(16).toUpperCase().padStart(4, "0");
}
