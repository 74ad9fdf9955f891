import sharp, { type Sharp } from "sharp";
import { DocumentLoadError } from "../model.ts";
import { decodeBmp, isBmp } from "./bmp.ts";
import { heicToPng, isHeic } from "./heif.ts";
import { estimateTextHeight } from "./text-height.ts";

/** One page of an image file, decoded and prepared for OCR. */
export interface PageRaster {
  /** 1-based: the page of a multi-page TIFF, else 1. */
  pageNumber: number;
  /** The page as stored (after its EXIF orientation), in pixels. */
  widthPx: number;
  heightPx: number;
  /** The file's resolution in pixels per inch; 72 when it has none (or an implausible one). */
  dpi: number;
  /** The page size in points: pixels × 72 / dpi. */
  widthPt: number;
  heightPt: number;
  /** The page as an 8-bit grayscale PNG for OCR, scaled by `scale`. */
  png: Buffer;
  /**
   * Pixels of `png` per pixel of the page: above 1 where the text was too small for OCR to read well, below 1 where
   * it was larger than OCR needs.
   */
  scale: number;
  /** The resolution of `png` (dpi × scale): a pixel of `png` is 72 / ocrDpi points. */
  ocrDpi: number;
}

export interface DecodeImageOptions {
  /** A page with more pixels than this is refused before it is decoded. Default MAX_IMAGE_PIXELS. */
  maxPixels?: number;
  /** A file with more pages than this is refused. Default MAX_IMAGE_PAGES. */
  maxPages?: number;
  /** Decode only these pages (1-based); every page when left out. */
  pageNumbers?: readonly number[];
}

/** Pixels of one page at most (an A3 page scanned at 600 dpi has 70 million): a guard against decompression bombs. */
export const MAX_IMAGE_PIXELS = 120_000_000;
/** Pages of one file at most. */
export const MAX_IMAGE_PAGES = 1000;
/** The x-height in pixels OCR is given at least: Tesseract misreads text much smaller than this. */
export const MIN_OCR_TEXT_HEIGHT_PX = 14;
/**
 * Text taller than this is scaled down for OCR, to OCR_TEXT_HEIGHT_PX. Tesseract's LSTM reads every line scaled to
 * 36 pixels from ascender to descender, so taller text gives it no more detail, only more pixels to segment: 12 pt
 * type scanned at 300 dpi (26 px) reads as well at 18 px (about 200 dpi), and about 15% faster.
 */
const MAX_OCR_TEXT_HEIGHT_PX = 24;
const OCR_TEXT_HEIGHT_PX = 18;
/** The OCR raster is never scaled up past this many pixels nor by more than MAX_OCR_UPSCALE, nor below a quarter. */
const MAX_OCR_PIXELS = 40_000_000;
const MAX_OCR_UPSCALE = 4;
const MIN_OCR_DOWNSCALE = 0.25;
/** Text height is estimated on a half-size copy of pages larger than this, to bound its cost. */
const TEXT_HEIGHT_SAMPLE_PIXELS = 12_000_000;

/** sharp's names of the formats read here; SVG and the rest are refused. */
const RASTER_FORMATS = new Set(["png", "jpeg", "tiff", "webp", "gif", "heif"]);
/** Formats whose extra pages are pages of the document; in GIF and WebP they are frames of an animation. */
const PAGED_FORMATS = new Set(["tiff"]);

/**
 * Decodes an image file (PNG, JPEG with its EXIF orientation, TIFF with every page, WebP, GIF, AVIF, HEIC/HEIF,
 * BMP) into page rasters ready for OCR.
 * Unreadable, unsupported or oversized input is a DocumentLoadError with code INVALID_FILE.
 *
 * @example
 * const pages = await decodeImage(await readFile("scan.tif"));
 * console.log(pages.length, pages[0].widthPt, pages[0].heightPt);
 */
export async function decodeImage(
  bytes: Uint8Array,
  options: DecodeImageOptions = {},
): Promise<PageRaster[]> {
  const pages: PageRaster[] = [];
  for await (const page of decodeImagePages(bytes, options)) pages.push(page);
  return pages;
}

/** The number of pages decodeImage would return, read from the header only. */
export async function imagePageCount(bytes: Uint8Array, options: DecodeImageOptions = {}): Promise<number> {
  return (await probe(bytes, options)).pageCount;
}

/**
 * Decodes an image file page by page, so a long TIFF is never held in memory whole. Same input and errors as
 * decodeImage.
 *
 * @example
 * for await (const page of decodeImagePages(bytes)) await ocr(page);
 */
export async function* decodeImagePages(
  bytes: Uint8Array,
  options: DecodeImageOptions = {},
): AsyncGenerator<PageRaster> {
  const { pageCount } = await probe(bytes, options);
  const wanted = options.pageNumbers ?? Array.from({ length: pageCount }, (_, i) => i + 1);
  for (const pageNumber of wanted) {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > pageCount) {
      throw new DocumentLoadError(`The image has no page ${pageNumber}: it has ${pageCount}`, "INVALID_FILE");
    }
    yield await decodePage(bytes, pageNumber, options);
  }
}

/**
 * The factor an OCR raster is scaled by, from the page's size and its text height (null when unknown): up to
 * MIN_OCR_TEXT_HEIGHT_PX, down to OCR_TEXT_HEIGHT_PX from above MAX_OCR_TEXT_HEIGHT_PX, never past MAX_OCR_PIXELS.
 * Without a text height, small images are brought to about 2000 pixels on the long side (a page at 200 dpi).
 */
export function ocrScale(widthPx: number, heightPx: number, textHeightPx: number | null): number {
  let scale: number;
  if (textHeightPx === null) scale = Math.max(1, 2000 / Math.max(widthPx, heightPx));
  else if (textHeightPx > MAX_OCR_TEXT_HEIGHT_PX)
    scale = Math.max(MIN_OCR_DOWNSCALE, OCR_TEXT_HEIGHT_PX / textHeightPx);
  else scale = Math.max(1, MIN_OCR_TEXT_HEIGHT_PX / textHeightPx);
  scale = Math.min(scale, MAX_OCR_UPSCALE, Math.max(1, Math.sqrt(MAX_OCR_PIXELS / (widthPx * heightPx))));
  // Resampling by a few percent costs time and gains nothing.
  if (scale < 1 ? scale > 0.85 : scale < 1.15) return 1;
  return Math.round(scale * 100) / 100;
}

/** Files sharp cannot read, converted once per input (a document's bytes are probed, then decoded). */
const converted = new WeakMap<Uint8Array, Promise<Uint8Array>>();

/**
 * The bytes sharp reads for a file: BMP decoded here (bmp.ts) and HEIC converted by heif-convert (heif.ts) into a
 * PNG; every other format as it is.
 */
function readable(bytes: Uint8Array, options: DecodeImageOptions): Promise<Uint8Array> {
  if (!isBmp(bytes) && !isHeic(bytes)) return Promise.resolve(bytes);
  let done = converted.get(bytes);
  if (!done) {
    done = isBmp(bytes) ? bmpToPng(bytes, options) : heicToPng(bytes);
    converted.set(bytes, done);
  }
  return done;
}

async function bmpToPng(bytes: Uint8Array, options: DecodeImageOptions): Promise<Uint8Array> {
  const bitmap = decodeBmp(bytes, options.maxPixels ?? MAX_IMAGE_PIXELS);
  let image = sharp(bitmap.rgb, { raw: { width: bitmap.width, height: bitmap.height, channels: 3 } });
  if (bitmap.dpi !== null) image = image.withDensity(bitmap.dpi);
  return image.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}

async function probe(source: Uint8Array, options: DecodeImageOptions): Promise<{ pageCount: number }> {
  const maxPages = options.maxPages ?? MAX_IMAGE_PAGES;
  const bytes = await readable(source, options);
  const metadata = await readOrThrow(() => open(bytes, options).metadata());
  if (!metadata.format || !RASTER_FORMATS.has(metadata.format)) {
    throw new DocumentLoadError(
      `Images of format ${metadata.format ?? "unknown"} are not read`,
      "INVALID_FILE",
    );
  }
  const pageCount = PAGED_FORMATS.has(metadata.format) ? (metadata.pages ?? 1) : 1;
  if (pageCount > maxPages) {
    throw new DocumentLoadError(
      `The image has ${pageCount} pages: at most ${maxPages} are read`,
      "INVALID_FILE",
    );
  }
  return { pageCount };
}

async function decodePage(
  source: Uint8Array,
  pageNumber: number,
  options: DecodeImageOptions,
): Promise<PageRaster> {
  const bytes = await readable(source, options);
  return readOrThrow(async () => {
    const page = open(bytes, options, pageNumber - 1);
    const dpi = plausibleDpi((await page.metadata()).density);
    const { data, info } = await page
      .flatten({ background: "#ffffff" })
      .toColourspace("b-w")
      .raw({ depth: "uchar" })
      .toBuffer({ resolveWithObject: true });
    const { width, height } = info;
    if (info.channels !== 1) throw new Error(`expected one gray channel, got ${info.channels}`);
    const gray = new Uint8Array(data.buffer, data.byteOffset, width * height);
    const scale = ocrScale(width, height, await textHeight(gray, width, height));
    const outWidth = Math.max(1, Math.round(width * scale));
    const outHeight = Math.max(1, Math.round(height * scale));
    let raster = sharp(data, { raw: { width, height, channels: 1 } });
    if (scale !== 1)
      raster = raster.resize(outWidth, outHeight, { kernel: scale > 1 ? "cubic" : "lanczos3" });
    const ocrDpi = dpi * (outWidth / width);
    const png = await raster
      .toColourspace("b-w")
      .withDensity(ocrDpi)
      .png({ compressionLevel: 1, adaptiveFiltering: false })
      .toBuffer();
    return {
      pageNumber,
      widthPx: width,
      heightPx: height,
      dpi,
      widthPt: (width * 72) / dpi,
      heightPt: (height * 72) / dpi,
      png,
      scale: outWidth / width,
      ocrDpi,
    };
  });
}

async function textHeight(gray: Uint8Array, width: number, height: number): Promise<number | null> {
  if (width * height <= TEXT_HEIGHT_SAMPLE_PIXELS) return estimateTextHeight(gray, width, height);
  const w = Math.max(1, Math.round(width / 2));
  const h = Math.max(1, Math.round(height / 2));
  const half = await sharp(gray, { raw: { width, height, channels: 1 } })
    .resize(w, h)
    .toColourspace("b-w")
    .raw({ depth: "uchar" })
    .toBuffer();
  const estimate = estimateTextHeight(new Uint8Array(half.buffer, half.byteOffset, w * h), w, h);
  return estimate === null ? null : estimate * (height / h);
}

function open(bytes: Uint8Array, options: DecodeImageOptions, page = 0): Sharp {
  return sharp(bytes, {
    page,
    pages: 1,
    limitInputPixels: options.maxPixels ?? MAX_IMAGE_PIXELS,
    autoOrient: true,
    failOn: "error",
  });
}

/** A density under 50 or over 2400 dpi is a default or a mistake (libvips writes 1 pixel/mm), not a scan's. */
function plausibleDpi(density: number | undefined): number {
  return density !== undefined && density >= 50 && density <= 2400 ? density : 72;
}

async function readOrThrow<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DocumentLoadError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) {
      throw new DocumentLoadError("The image has too many pixels to be read", "INVALID_FILE");
    }
    throw new DocumentLoadError(`The image could not be read: ${message.split("\n")[0]}`, "INVALID_FILE");
  }
}
