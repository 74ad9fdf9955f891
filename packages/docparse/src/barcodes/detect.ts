import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  prepareZXingModule,
  type ReaderOptions,
  type ReadInputBarcodeFormat,
  readBarcodes,
} from "zxing-wasm/reader";
import type { Box } from "../model.ts";

/** A page image as raw 8-bit pixels, row by row: gray, RGB or RGBA. */
export interface Raster {
  data: Uint8ClampedArray | Buffer;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
}

/** A barcode found on a page: its format, its decoded value and where it is. */
export interface DetectedBarcode {
  /** zxing-cpp's canonical format name: `QRCode`, `DataMatrix`, `PDF417`, `Aztec`, `Code128`, `EAN13`, `UPCA`… */
  format: string;
  /** The decoded value (its human-readable interpretation: GS1 data with `(AI)` prefixes). */
  text: string;
  /** Points, origin at the page's top left: the upright box around the symbol's four corners. */
  box: Box;
}

/**
 * The symbologies searched for, each with its variants (EAN-13/8, UPC-A/E; Micro QR, rMQR; Compact and Micro
 * PDF417…): every one zxing-cpp reads but Telepen and DX film edge, which documents do not carry; each
 * symbology searched is one more chance of reading noise or text as a code.
 */
export const BARCODE_SYMBOLOGIES = [
  "QRCode",
  "DataMatrix",
  "PDF417",
  "Aztec",
  "MaxiCode",
  "Code128",
  "Code39",
  "Code93",
  "Codabar",
  "ITF",
  "EANUPC",
  "DataBar",
] as const satisfies readonly ReadInputBarcodeFormat[];

/**
 * Rasters above this many pixels are box-filtered down by an integer factor first, which bounds the memory
 * (4 bytes a pixel in JS, 1 in the WASM heap) and the time of one call. 40 MP is an A4 page at 600 dpi.
 */
export const MAX_BARCODE_RASTER_PIXELS = 40_000_000;

const READER_OPTIONS: ReaderOptions = {
  formats: [...BARCODE_SYMBOLOGIES],
  tryHarder: true,
  tryRotate: true,
  tryInvert: true,
  tryDownscale: true,
  maxNumberOfSymbols: 255,
  returnErrors: false,
  textMode: "HRI",
};

let readerReady: Promise<void> | undefined;

/**
 * Instantiates zxing-cpp's reader from the `.wasm` file inside the zxing-wasm package. Left to itself the package
 * fetches that file from a CDN; handing it the bytes as `wasmBinary` keeps it offline.
 */
function loadReader(): Promise<void> {
  readerReady ??= (async () => {
    const path = fileURLToPath(import.meta.resolve("zxing-wasm/reader/zxing_reader.wasm"));
    const bytes = await readFile(path);
    const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    await prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
  })().catch((error: unknown) => {
    readerReady = undefined;
    throw error;
  });
  return readerReady;
}

/**
 * Finds and decodes the barcodes and 2D codes on a page image: QR (and Micro QR, rMQR), Data Matrix, PDF417,
 * Aztec, MaxiCode, Code 128, Code 39, Code 93, Codabar, ITF, EAN-13/8, UPC-A/E and GS1 DataBar, upright or
 * turned by 90°, 180° or 270° (2D codes at any angle), dark on light or inverted. `scale` is the page's points
 * per pixel, so the boxes come out in points. Rasters over {@link MAX_BARCODE_RASTER_PIXELS} are scanned
 * downscaled. The decoding runs synchronously in WebAssembly and holds the event loop while it does: about
 * 0.2–0.3 s for a 2500×3500 page on one core.
 *
 * @example
 * const { data, info } = await sharp("page.png").raw().toBuffer({ resolveWithObject: true });
 * const raster = { data, width: info.width, height: info.height, channels: info.channels as 1 | 3 | 4 };
 * const barcodes = await detectBarcodes(raster, 72 / 300); // a page rendered at 300 dpi
 * // [{ format: "QRCode", text: "SPC\n0200\n1\n…", box: { x1: 206.9, y1: 601.9, x2: 337.4, y2: 733 } }]
 */
export async function detectBarcodes(raster: Raster, scale: number): Promise<DetectedBarcode[]> {
  checkRaster(raster);
  if (!(scale > 0 && Number.isFinite(scale))) {
    throw new RangeError(`scale must be a positive number, not ${scale}`);
  }
  if (raster.width === 0 || raster.height === 0) return [];
  const factor = Math.ceil(Math.sqrt((raster.width * raster.height) / MAX_BARCODE_RASTER_PIXELS));
  const image = toRgba(raster, factor);
  await loadReader();
  const results = await readBarcodes(image, READER_OPTIONS);
  const pointsPerPixel = scale * factor;
  return results
    .filter((result) => result.isValid)
    .map((result) => {
      const { topLeft, topRight, bottomRight, bottomLeft } = result.position;
      const xs = [topLeft.x, topRight.x, bottomRight.x, bottomLeft.x];
      const ys = [topLeft.y, topRight.y, bottomRight.y, bottomLeft.y];
      // A UPC-A symbol is an EAN-13 whose first digit, 0, is not drawn: zxing-cpp reads it as the EAN-13.
      const upcA = result.format === "EAN13" && result.text.length === 13 && result.text.startsWith("0");
      return {
        format: upcA ? "UPCA" : result.format,
        text: upcA ? result.text.slice(1) : result.text,
        box: {
          x1: Math.max(0, Math.min(...xs)) * pointsPerPixel,
          y1: Math.max(0, Math.min(...ys)) * pointsPerPixel,
          x2: Math.min(image.width, Math.max(...xs)) * pointsPerPixel,
          y2: Math.min(image.height, Math.max(...ys)) * pointsPerPixel,
        },
      };
    });
}

function checkRaster({ data, width, height, channels }: Raster): void {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) {
    throw new RangeError(`raster size must be whole pixels, not ${width}×${height}`);
  }
  if (channels !== 1 && channels !== 3 && channels !== 4) {
    throw new RangeError(`raster must have 1, 3 or 4 channels, not ${channels}`);
  }
  if (data.length !== width * height * channels) {
    throw new RangeError(`raster data has ${data.length} bytes, ${width}×${height}×${channels} expected`);
  }
}

/** The RGBA image zxing-wasm reads, shrunk by `factor` (averaging factor×factor blocks of gray) when above 1. */
function toRgba(
  { data, width, height, channels }: Raster,
  factor: number,
): { data: Uint8ClampedArray; width: number; height: number } {
  if (factor === 1) {
    if (channels === 4) {
      return { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width, height };
    }
    // Gray repeats its one byte in R, G and B; the alpha byte is left at 255 (zxing-wasm ignores it).
    const green = channels === 3 ? 1 : 0;
    const blue = channels === 3 ? 2 : 0;
    const out = new Uint8ClampedArray(width * height * 4).fill(255);
    for (let i = 0, o = 0; i < data.length; i += channels, o += 4) {
      out[o] = data[i];
      out[o + 1] = data[i + green];
      out[o + 2] = data[i + blue];
    }
    return { data: out, width, height };
  }
  const outWidth = Math.floor(width / factor) || 1;
  const outHeight = Math.floor(height / factor) || 1;
  const out = new Uint8ClampedArray(outWidth * outHeight * 4);
  for (let oy = 0; oy < outHeight; oy++) {
    const yEnd = Math.min(height, (oy + 1) * factor);
    for (let ox = 0; ox < outWidth; ox++) {
      const xEnd = Math.min(width, (ox + 1) * factor);
      let sum = 0;
      let count = 0;
      for (let y = oy * factor; y < yEnd; y++) {
        for (let x = ox * factor; x < xEnd; x++) {
          sum += luminance(data, (y * width + x) * channels, channels);
          count++;
        }
      }
      const gray = Math.round(sum / count);
      const o = (oy * outWidth + ox) * 4;
      out[o] = gray;
      out[o + 1] = gray;
      out[o + 2] = gray;
      out[o + 3] = 255;
    }
  }
  return { data: out, width: outWidth, height: outHeight };
}

/** The gray level of one pixel, weighted as zxing-wasm weighs RGB (so a gray raster reaches it unchanged). */
function luminance(data: Uint8ClampedArray | Buffer, i: number, channels: 1 | 3 | 4): number {
  if (channels === 1) return data[i];
  return (306 * data[i] + 601 * data[i + 1] + 117 * data[i + 2] + 512) >> 10;
}
