import type { Canvas, SKRSContext2D } from "@napi-rs/canvas";
import { AnnotationMode } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFDocumentProxy, RenderParameters } from "pdfjs-dist/types/src/display/api.js";
import type { PageViewport } from "pdfjs-dist/types/src/display/display_utils.js";
import sharp from "sharp";
import type { Box } from "../model.ts";
import { documentPort } from "./open.ts";

/** Renders larger than this many pixels are made at a lower resolution (the result says which). */
export const MAX_RENDER_PIXELS = 64_000_000;

export interface RenderOptions {
  /** Dots per inch: 200–300 for OCR, ~150 for figure crops. */
  dpi: number;
  /** Only this part of the page, in points with the origin at the page's top left (the model's boxes). */
  crop?: Box;
  /** Most pixels of the result; above it the resolution is lowered. Default MAX_RENDER_PIXELS. */
  maxPixels?: number;
  /** One gray channel instead of RGB: smaller, and all OCR needs. */
  grayscale?: boolean;
  /**
   * Draw the annotations that print (filled-in form fields, stamps, and often link borders) over the page, as a
   * printout shows it. Off by default: the page's own content, as the text layer and pageGraphics see it.
   */
  annotations?: boolean;
  /**
   * Leave the page's operator list and decoded resources for another render of it (the caller ends with
   * `releasePage`): several crops of one page are then drawn from one reading of its content, fonts and images,
   * not one each. By default a render frees them.
   */
  keepPage?: boolean;
  /**
   * Draw the text layer's glyphs (the default). Off for crops that OCR reads for what the text layer lacks (text in
   * images, glyphs drawn as outlines): the layer's own text would only be read again, and drawing it is most of a
   * render's cost (each glyph compiled to an outline). Type3 glyphs and text that clips are drawn either way. Only
   * with `annotations` off; pdf.js as published (SVC_PDFJS_UNPATCHED) draws the text regardless.
   */
  text?: boolean;
  /**
   * With `text` off: the part of the page (the model's boxes) that this render and the renders sharing its reading
   * (`keepPage`) show; images and forms wholly outside it are not read (render-region.ts). It must hold `crop`.
   * Default: the crop, unless `keepPage` is set (then the whole page, as other crops may follow).
   */
  region?: Box;
}

export interface RenderedPage {
  png: Buffer;
  widthPx: number;
  heightPx: number;
  /** The resolution rendered at: the one asked for, or lower when that would exceed `maxPixels`. */
  dpi: number;
}

/** pdf.js's canvas factory: in Node it makes @napi-rs/canvas canvases, from the copy pdf.js itself loads. */
interface CanvasFactory {
  create(width: number, height: number): { canvas: Canvas; context: SKRSContext2D };
  destroy(entry: { canvas: Canvas; context: SKRSContext2D }): void;
}

/**
 * Renders a page (or a box of it) to PNG with pdf.js on @napi-rs/canvas, on white. The canvas comes from the
 * document's own canvas factory, so it is the @napi-rs/canvas that pdf.js loaded and whose Path2D, DOMMatrix and
 * ImageData it installed as globals; a canvas from another copy of the package cannot take those.
 * Frees the page's decoded resources afterwards.
 *
 * @example
 * const { png, dpi } = await renderPage(doc, 1, { dpi: 300, grayscale: true });
 * const figure = await renderPage(doc, 2, { dpi: 150, crop: { x1: 72, y1: 100, x2: 300, y2: 260 } });
 */
export async function renderPage(
  doc: PDFDocumentProxy,
  pageNumber: number,
  options: RenderOptions,
): Promise<RenderedPage> {
  if (!(options.dpi > 0) || !Number.isFinite(options.dpi))
    throw new RangeError(`dpi must be positive, not ${options.dpi}`);
  if (options.text === false && options.annotations)
    throw new RangeError("a render without text draws no annotations");
  const page = await doc.getPage(pageNumber);
  try {
    const frame = page.getViewport({ scale: 1 });
    const area = clampCrop(
      options.crop ?? { x1: 0, y1: 0, x2: frame.width, y2: frame.height },
      frame.width,
      frame.height,
    );
    const widthPt = area.x2 - area.x1;
    const heightPt = area.y2 - area.y1;
    let dpi = options.dpi;
    const pixels = ((widthPt * dpi) / 72) * ((heightPt * dpi) / 72);
    const maxPixels = options.maxPixels ?? MAX_RENDER_PIXELS;
    if (pixels > maxPixels) dpi *= Math.sqrt(maxPixels / pixels);
    const scale = dpi / 72;
    const widthPx = Math.max(1, Math.round(widthPt * scale));
    const heightPx = Math.max(1, Math.round(heightPt * scale));
    const viewport = page.getViewport({ scale, offsetX: -area.x1 * scale, offsetY: -area.y1 * scale });
    const port = documentPort(doc);
    const shown =
      options.text === false ? (options.region ?? (options.keepPage ? undefined : area)) : undefined;
    if (shown && !contains(shown, area)) throw new RangeError("a render's region must hold its crop");
    if (shown) port?.renderRegions.set(pageNumber - 1, pdfBox(frame, shown));
    else port?.renderRegions.delete(pageNumber - 1);
    const factory = doc.canvasFactory as CanvasFactory;
    const entry = factory.create(widthPx, heightPx);
    try {
      const params = {
        canvas: entry.canvas,
        canvasContext: entry.context,
        viewport,
        intent: options.annotations ? "print" : "display",
        annotationMode: options.annotations ? AnnotationMode.ENABLE_STORAGE : AnnotationMode.DISABLE,
        // The patched worker's sign for a render without the text layer's glyphs (worker-patch.ts).
        isEditing: options.text === false,
      } as unknown as RenderParameters;
      await page.render(params).promise;
      const rgba = entry.context.getImageData(0, 0, widthPx, heightPx).data;
      const image = sharp(Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength), {
        raw: { width: widthPx, height: heightPx, channels: 4 },
      });
      // The page is painted on white, so the alpha channel carries nothing.
      const opaque = image.removeAlpha();
      const png = await (options.grayscale ? opaque.toColourspace("b-w") : opaque)
        .png({ compressionLevel: 3 })
        .toBuffer();
      return { png, widthPx, heightPx, dpi };
    } finally {
      factory.destroy(entry);
      port?.renderRegions.delete(pageNumber - 1);
    }
  } finally {
    if (!options.keepPage) page.cleanup();
  }
}

/** Frees what the renders of a page with `keepPage` left (pdf.js refuses while one is still drawing it). */
export async function releasePage(doc: PDFDocumentProxy, pageNumber: number): Promise<void> {
  (await doc.getPage(pageNumber)).cleanup();
}

/** A box of the page (origin at its top left, as the model's) in the page's PDF space: [x1, y1, x2, y2]. */
function pdfBox(frame: PageViewport, b: Box): number[] {
  const corners = [
    frame.convertToPdfPoint(b.x1, b.y1),
    frame.convertToPdfPoint(b.x2, b.y1),
    frame.convertToPdfPoint(b.x1, b.y2),
    frame.convertToPdfPoint(b.x2, b.y2),
  ];
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

function contains(outer: Box, inner: Box): boolean {
  return outer.x1 <= inner.x1 && outer.y1 <= inner.y1 && outer.x2 >= inner.x2 && outer.y2 >= inner.y2;
}

/** The part of `crop` on the page; an empty one is the caller's mistake. */
function clampCrop(crop: Box, width: number, height: number): Box {
  const b = {
    x1: Math.max(0, Math.min(crop.x1, crop.x2)),
    y1: Math.max(0, Math.min(crop.y1, crop.y2)),
    x2: Math.min(width, Math.max(crop.x1, crop.x2)),
    y2: Math.min(height, Math.max(crop.y1, crop.y2)),
  };
  if (!(b.x2 - b.x1 > 0 && b.y2 - b.y1 > 0)) {
    throw new RangeError(
      `The crop box ${JSON.stringify(crop)} does not overlap the ${width}×${height} pt page`,
    );
  }
  return b;
}
