import { DocumentLoadError } from "../model.ts";

/**
 * Windows bitmaps (BMP), which sharp does not read: uncompressed 1, 4, 8 (with a palette), 16, 24 and 32 bits per
 * pixel, with bit-field masks, bottom-up or top-down, and RLE4/RLE8 compression. The pixels come out as RGB.
 */

export interface DecodedBitmap {
  width: number;
  height: number;
  /** RGB, 3 bytes a pixel, rows top to bottom. */
  rgb: Uint8Array;
  /** Pixels per inch from the header; null when it has none. */
  dpi: number | null;
}

/** True for a file that starts like a BMP (`BM` and a header size BMP has). */
export function isBmp(bytes: Uint8Array): boolean {
  if (bytes.length < 26 || bytes[0] !== 0x42 || bytes[1] !== 0x4d) return false;
  const headerSize = new DataView(bytes.buffer, bytes.byteOffset, bytes.length).getUint32(14, true);
  return [12, 40, 52, 56, 64, 108, 124].includes(headerSize);
}

const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
const BI_ALPHA_BITFIELDS = 6;

/**
 * Decodes a BMP. Damaged or unsupported files are a DocumentLoadError with code INVALID_FILE; a bitmap with more
 * than `maxPixels` pixels is refused before its pixels are read.
 *
 * @example
 * const { width, height, rgb } = decodeBmp(bytes, 120_000_000);
 */
export function decodeBmp(bytes: Uint8Array, maxPixels: number): DecodedBitmap {
  const fail = (why: string): never => {
    throw new DocumentLoadError(`The image could not be read: ${why}`, "INVALID_FILE");
  };
  if (!isBmp(bytes)) fail("not a BMP file");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const need = (end: number) => {
    if (end > bytes.length) fail("the BMP file is truncated");
  };
  const pixelOffset = view.getUint32(10, true);
  const headerSize = view.getUint32(14, true);
  need(14 + headerSize);
  const core = headerSize === 12;
  const width = core ? view.getUint16(18, true) : view.getInt32(18, true);
  const rawHeight = core ? view.getInt16(20, true) : view.getInt32(22, true);
  const bits = core ? view.getUint16(24, true) : view.getUint16(28, true);
  const compression = core ? BI_RGB : view.getUint32(30, true);
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  if (width <= 0 || height <= 0) fail("the BMP has no pixels");
  if (width * height > maxPixels) {
    throw new DocumentLoadError("The image has too many pixels to be read", "INVALID_FILE");
  }
  if (![1, 4, 8, 16, 24, 32].includes(bits)) fail(`BMP with ${bits} bits per pixel`);
  const ppm = core ? 0 : view.getInt32(38, true);
  const dpi = ppm > 0 ? Math.round((ppm * 254) / 10000) : null;

  // The palette: after the header (and the three masks of a 40-byte BITFIELDS header).
  let colours = 0;
  if (bits <= 8) colours = core ? 1 << bits : view.getUint32(46, true) || 1 << bits;
  const paletteStart = 14 + headerSize + (headerSize === 40 && compression === BI_BITFIELDS ? 12 : 0);
  const entry = core ? 3 : 4;
  const palette = new Uint8Array(256 * 3);
  for (let i = 0; i < Math.min(colours, 256); i++) {
    const at = paletteStart + i * entry;
    if (at + 3 > bytes.length) break;
    palette[i * 3] = bytes[at + 2];
    palette[i * 3 + 1] = bytes[at + 1];
    palette[i * 3 + 2] = bytes[at];
  }

  const rgb = new Uint8Array(width * height * 3);
  const rowOf = (y: number) => (topDown ? y : height - 1 - y);
  const setIndex = (x: number, fileRow: number, index: number) => {
    if (x >= width || fileRow >= height) return;
    const o = (rowOf(fileRow) * width + x) * 3;
    rgb[o] = palette[index * 3];
    rgb[o + 1] = palette[index * 3 + 1];
    rgb[o + 2] = palette[index * 3 + 2];
  };

  if (compression === BI_RLE8 || compression === BI_RLE4) {
    if (topDown) fail("a top-down BMP cannot be compressed");
    decodeRle(bytes, pixelOffset, compression === BI_RLE4 ? 4 : 8, setIndex, fail);
    return { width, height, rgb, dpi };
  }
  if (compression !== BI_RGB && compression !== BI_BITFIELDS && compression !== BI_ALPHA_BITFIELDS) {
    fail(`BMP compression ${compression} (JPEG or PNG inside a BMP) is not read`);
  }

  const stride = Math.ceil((width * bits) / 32) * 4;
  need(pixelOffset + stride * height);
  if (bits <= 8) {
    for (let y = 0; y < height; y++) {
      const row = pixelOffset + y * stride;
      for (let x = 0; x < width; x++) {
        const bit = x * bits;
        const byte = bytes[row + (bit >> 3)];
        setIndex(x, y, (byte >> (8 - bits - (bit & 7))) & ((1 << bits) - 1));
      }
    }
    return { width, height, rgb, dpi };
  }
  // Masks of 16 and 32 bits per pixel: from the header, else 5-5-5 and 8-8-8.
  let masks: [number, number, number];
  if (compression !== BI_RGB && headerSize >= 40) {
    need(14 + 40 + 12);
    masks = [view.getUint32(54, true), view.getUint32(58, true), view.getUint32(62, true)];
  } else if (bits === 16) masks = [0x7c00, 0x03e0, 0x001f];
  else masks = [0xff0000, 0x00ff00, 0x0000ff];
  const channels = masks.map(maskShape);
  for (let y = 0; y < height; y++) {
    const row = pixelOffset + y * stride;
    const out = rowOf(y) * width * 3;
    for (let x = 0; x < width; x++) {
      const o = out + x * 3;
      if (bits === 24) {
        const at = row + x * 3;
        rgb[o] = bytes[at + 2];
        rgb[o + 1] = bytes[at + 1];
        rgb[o + 2] = bytes[at];
        continue;
      }
      const value = bits === 16 ? view.getUint16(row + x * 2, true) : view.getUint32(row + x * 4, true);
      for (let c = 0; c < 3; c++) {
        const { mask, shift, max } = channels[c];
        rgb[o + c] = max === 0 ? 0 : Math.round((((value & mask) >>> shift) * 255) / max);
      }
    }
  }
  return { width, height, rgb, dpi };
}

function maskShape(mask: number): { mask: number; shift: number; max: number } {
  if (mask === 0) return { mask, shift: 0, max: 0 };
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  return { mask, shift, max: mask >>> shift };
}

/** Run-length encoded pixels (RLE8, RLE4): runs, absolute stretches, end of line, delta and end of bitmap. */
function decodeRle(
  bytes: Uint8Array,
  start: number,
  bits: 4 | 8,
  set: (x: number, fileRow: number, index: number) => void,
  fail: (why: string) => never,
): void {
  let at = start;
  let x = 0;
  let y = 0;
  const byte = () => {
    if (at >= bytes.length) fail("the BMP file is truncated");
    return bytes[at++];
  };
  for (;;) {
    const count = byte();
    const value = byte();
    if (count > 0) {
      for (let i = 0; i < count; i++) {
        set(x++, y, bits === 8 ? value : i % 2 === 0 ? value >> 4 : value & 15);
      }
      continue;
    }
    if (value === 0) {
      x = 0;
      y++;
    } else if (value === 1) {
      return;
    } else if (value === 2) {
      x += byte();
      y += byte();
    } else {
      for (let i = 0; i < value; i++) {
        if (bits === 8) set(x++, y, byte());
        else {
          const pair = i % 2 === 0 ? byte() : bytes[at - 1];
          set(x++, y, i % 2 === 0 ? pair >> 4 : pair & 15);
        }
      }
      // Absolute stretches are padded to a 16-bit boundary.
      const used = bits === 8 ? value : Math.ceil(value / 2);
      if (used % 2 === 1) at++;
    }
  }
}
