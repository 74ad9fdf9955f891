import { DocumentLoadError } from "../model.ts";

/**
 * Compressed RTF ([MS-OXRTFCP], "LZFu"), the form Outlook keeps a message body in when it has no plain or HTML
 * copy: a 16-byte header, then runs of a control byte and eight literals or back references into a 4 KiB
 * dictionary that starts filled with common RTF.
 */

const PREFILL =
  "{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript \\fdecor MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par \\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx";

const COMPRESSED = 0x75465a4c; // "LZFu"
const UNCOMPRESSED = 0x414c454d; // "MELA"
const MAX_OUTPUT = 64 << 20;

export function decompressRtf(data: Uint8Array): Uint8Array {
  if (data.length < 16) throw new DocumentLoadError("The compressed RTF is truncated");
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const rawSize = view.getUint32(4, true);
  const type = view.getUint32(8, true);
  if (type === UNCOMPRESSED) return data.subarray(16, 16 + rawSize);
  if (type !== COMPRESSED) throw new DocumentLoadError("The compressed RTF has an unknown compression type");
  if (rawSize > MAX_OUTPUT) throw new DocumentLoadError("The compressed RTF claims an implausible size");
  const dict = new Uint8Array(4096);
  for (let i = 0; i < PREFILL.length; i++) dict[i] = PREFILL.charCodeAt(i);
  let write = PREFILL.length;
  const out = new Uint8Array(rawSize);
  let n = 0;
  let at = 16;
  while (at < data.length && n < rawSize) {
    const control = data[at++];
    for (let bit = 0; bit < 8 && at < data.length && n < rawSize; bit++) {
      if ((control & (1 << bit)) === 0) {
        const byte = data[at++];
        out[n++] = byte;
        dict[write] = byte;
        write = (write + 1) & 4095;
        continue;
      }
      if (at + 1 >= data.length) return out.subarray(0, n);
      const token = (data[at] << 8) | data[at + 1];
      at += 2;
      const offset = token >> 4;
      const length = (token & 15) + 2;
      if (offset === write) return out.subarray(0, n);
      for (let i = 0; i < length && n < rawSize; i++) {
        const byte = dict[(offset + i) & 4095];
        out[n++] = byte;
        dict[write] = byte;
        write = (write + 1) & 4095;
      }
    }
  }
  return out.subarray(0, n);
}
