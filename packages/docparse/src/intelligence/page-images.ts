import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import sharp from "sharp";
import { MAX_IMAGE_PIXELS } from "../images/decode.ts";
import type { Box, PageImage } from "../model.ts";
import { renderPage } from "../pdf/render.ts";

/**
 * Pictures of pages and of boxes on them, for include_full_page_image and for the figure crops a vision model is
 * shown. PDF pages are rendered by the engine's renderer; an image file's pages are the image itself, scaled down
 * when large. Sizes are bounded so a page's PNG stays well under a few megabytes.
 */

/** Resolution of a full-page image: enough to read body text, small enough to ship in a JSON result. */
export const PAGE_IMAGE_DPI = 100;
/** Pixels of a page image at most (about 2000 × 2000); a larger page is rendered at a lower resolution. */
export const PAGE_IMAGE_MAX_PIXELS = 4_000_000;
/** A page image whose PNG is larger than this is made again at half the pixels. */
export const PAGE_IMAGE_MAX_BYTES = 3_000_000;
/** Resolution of a figure crop shown to a vision model. */
const FIGURE_DPI = 150;
const FIGURE_MAX_PIXELS = 4_000_000;
/** The image backend's own bound on a page's pixels (a guard against decompression bombs). */
const MAX_INPUT_PIXELS = MAX_IMAGE_PIXELS;

/** Renders a PDF page as a PageImage within the size bounds. */
export async function pdfPageImage(doc: PDFDocumentProxy, pageNumber: number): Promise<PageImage> {
  let maxPixels = PAGE_IMAGE_MAX_PIXELS;
  for (;;) {
    const rendered = await renderPage(doc, pageNumber, { dpi: PAGE_IMAGE_DPI, maxPixels, annotations: true });
    if (rendered.png.byteLength <= PAGE_IMAGE_MAX_BYTES || maxPixels < 250_000) {
      return {
        pngBase64: rendered.png.toString("base64"),
        widthPx: rendered.widthPx,
        heightPx: rendered.heightPx,
        dpi: rendered.dpi,
      };
    }
    maxPixels /= 2;
  }
}

/** A box of a PDF page as PNG: at 150 dpi for a vision model, at 300 for OCR. */
export async function pdfCrop(
  doc: PDFDocumentProxy,
  pageNumber: number,
  crop: Box,
  dpi = FIGURE_DPI,
): Promise<Uint8Array> {
  const rendered = await renderPage(doc, pageNumber, { dpi, crop, maxPixels: FIGURE_MAX_PIXELS });
  return rendered.png;
}

/** One page of an image file (its EXIF orientation applied) as a PageImage, scaled down within the bounds. */
export async function rasterPageImage(
  bytes: Uint8Array,
  pageNumber: number,
  pageWidthPt: number,
): Promise<PageImage> {
  let maxPixels = PAGE_IMAGE_MAX_PIXELS;
  for (;;) {
    const { png, widthPx, heightPx } = await rasterPng(bytes, pageNumber, maxPixels);
    if (png.byteLength <= PAGE_IMAGE_MAX_BYTES || maxPixels < 250_000) {
      return { pngBase64: png.toString("base64"), widthPx, heightPx, dpi: (widthPx * 72) / pageWidthPt };
    }
    maxPixels /= 2;
  }
}

async function rasterPng(
  bytes: Uint8Array,
  pageNumber: number,
  maxPixels: number,
): Promise<{ png: Buffer; widthPx: number; heightPx: number }> {
  const upright = await sharp(bytes, { page: pageNumber - 1, limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels } = upright.info;
  const scale = Math.min(1, Math.sqrt(maxPixels / (width * height)));
  let image = sharp(upright.data, { raw: { width, height, channels } });
  if (scale < 1)
    image = image.resize(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)));
  const { data, info } = await image.png({ compressionLevel: 6 }).toBuffer({ resolveWithObject: true });
  return { png: data, widthPx: info.width, heightPx: info.height };
}

/** A box of an image file's page (in points, the page `pageWidthPt` wide) as PNG. */
export async function rasterCrop(
  bytes: Uint8Array,
  pageNumber: number,
  pageWidthPt: number,
  crop: Box,
): Promise<Uint8Array> {
  const page = await sharp(bytes, { page: pageNumber - 1, limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .png()
    .toBuffer();
  return cropPng(page, pageWidthPt, crop);
}

/** A box (in points) of a page's picture (the page `pageWidthPt` wide) as PNG. */
export async function cropPng(page: Uint8Array, pageWidthPt: number, crop: Box): Promise<Uint8Array> {
  const image = sharp(page);
  const { width: widthPx = 0, height: heightPx = 0 } = await image.metadata();
  const perPt = widthPx / pageWidthPt;
  const left = Math.max(0, Math.floor(crop.x1 * perPt));
  const top = Math.max(0, Math.floor(crop.y1 * perPt));
  const width = Math.min(widthPx - left, Math.ceil((crop.x2 - crop.x1) * perPt));
  const height = Math.min(heightPx - top, Math.ceil((crop.y2 - crop.y1) * perPt));
  if (width < 1 || height < 1) throw new RangeError("The crop box does not overlap the page");
  return image.extract({ left, top, width, height }).png().toBuffer();
}

/** A page's picture at low resolution (50 dpi, at most a megapixel), for statistics over parts of it. */
export async function lowResolutionPage(
  source: { pdf: PDFDocumentProxy | null; raster: Uint8Array | null },
  pageNumber: number,
): Promise<Uint8Array | null> {
  if (source.pdf) return (await renderPage(source.pdf, pageNumber, { dpi: 50, maxPixels: 1_000_000 })).png;
  if (source.raster) return (await rasterPng(source.raster, pageNumber, 1_000_000)).png;
  return null;
}

/** The bytes of a `data:` URI (a figure's image with include_images), or null for any other source. */
export function dataUriBytes(source: string | null): Uint8Array | null {
  const match = source ? /^data:image\/[a-z0-9.+-]+;base64,(.*)$/is.exec(source) : null;
  return match ? Buffer.from(match[1], "base64") : null;
}
