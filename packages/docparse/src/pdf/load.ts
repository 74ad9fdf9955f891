import { promisify } from "node:util";
import zlib from "node:zlib";
import type { PDFDocument } from "pdf-lib";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import sharp from "sharp";
import type { BackendInput } from "../backend.ts";
import { MAX_IMAGE_PIXELS, type PageRaster } from "../images/decode.ts";
import { DocumentLoadError, type DocumentModel, type ModelPage } from "../model.ts";
import { cropLanguage } from "../ocr/crop-language.ts";
import { CropQueue } from "../ocr/crop-queue.ts";
import { OcrError, type OcrPage, ocrEngineFor } from "../ocr/engine.ts";
import { requestedPages } from "../page-range.ts";
import { assembleDocument } from "../paginated/assemble.ts";
import { barcodesOf } from "../paginated/barcode-stage.ts";
import { box, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import { layoutPage, type PageLayout } from "../paginated/layout.ts";
import { mapLimited, OCR_PAGES_IN_FLIGHT, ocrPageGeometry } from "../paginated/ocr-stage.ts";
import { layoutRequestOf, layoutStages, withoutUnmapped } from "./arrival-layout.ts";
import { pageFrame } from "./extract.ts";
import { extractPages } from "./extract-pages.ts";
import { withoutJunkWords } from "./junk-words.ts";
import { closePdf, openPdf } from "./open.ts";
import { releasePage, renderPage } from "./render.ts";
import { embeddedScan, openScanSource } from "./scan-image.ts";
import { ocrCrops, type UnreadText, unreadText, withOcrWords } from "./unread-text.ts";

/** Resolution pages are rendered at to look for barcodes, and figures are cropped at (include_images). */
const BARCODE_DPI = 200;
const FIGURE_DPI = 150;

/**
 * A scanned page's raster taken from its embedded JPEG (decoded shrunk to OCR_DPI, gray), when the page is one
 * image covering it with the page's proportions; else null and the page is rendered.
 */
async function scanRaster(
  page: PageGeometry,
  source: () => Promise<PDFDocument | null>,
): Promise<{ png: Buffer; widthPx: number; heightPx: number; dpi: number } | null> {
  const pageArea = page.width * page.height;
  const covering = page.images.filter((image) => box.area(image.box) >= pageArea * 0.9);
  if (covering.length !== 1 || page.images.length > 3) return null;
  const doc = await source();
  const scan = doc ? embeddedScan(doc, page.pageNumber - 1) : null;
  if (!scan || Math.abs(scan.width / scan.height - page.width / page.height) > 0.03) return null;
  const widthPx = Math.round((page.width / 72) * OCR_DPI);
  try {
    if (scan.width * scan.height > MAX_IMAGE_PIXELS) return null;
    const input =
      scan.kind === "jpeg"
        ? sharp(scan.data, { limitInputPixels: MAX_IMAGE_PIXELS })
        : sharp(await inflated(scan.data), {
            raw: { width: scan.width, height: scan.height, channels: scan.channels },
          });
    const { data, info } = await input
      .greyscale()
      .resize({ width: Math.min(widthPx, scan.width) })
      .png({ compressionLevel: 1 })
      .toBuffer({ resolveWithObject: true });
    return { png: data, widthPx: info.width, heightPx: info.height, dpi: (info.width / page.width) * 72 };
  } catch {
    return null;
  }
}

const inflate = promisify(zlib.inflate);

/** zlib-compressed pixels, inflated off the main thread. */
async function inflated(data: Uint8Array): Promise<Buffer> {
  return inflate(data);
}

/** Each figure's image, cropped from the rendered page, as a PNG data: URI on its entry. */
async function attachFigureImages(doc: PDFDocumentProxy, layouts: readonly PageLayout[]): Promise<void> {
  for (const layout of layouts) {
    for (const entry of layout.entries) {
      if (entry.kind !== "figure") continue;
      const crop = await renderPage(doc, layout.page.pageNumber, { dpi: FIGURE_DPI, crop: entry.box });
      entry.image = `data:image/png;base64,${crop.png.toString("base64")}`;
    }
  }
}

/**
 * Resolution scanned pages are rendered at for OCR. Tesseract reads each line scaled to 36 pixels high, so 200 dpi
 * (9 pt type 12 px high) reads as well as 300 dpi on the corpus's pages, and about 15% faster; at 150 dpi small
 * type starts to be misread.
 */
const OCR_DPI = 200;

/**
 * A page with no text layer and nothing that could hold text (no image, almost no vector paths) is blank:
 * OCR would only burn a second on it. Text converted to outlines shows up as many paths, and is read.
 */
function blank(page: PageGeometry): boolean {
  return page.runs.length === 0 && page.images.length === 0 && (page.drawings?.length ?? 0) < 10;
}

/**
 * A text-layer page with the text its layer does not hold (outlined glyphs, unmapped glyphs, rows of text in its
 * images) read by OCR and merged in; the page as it was when there is none, or when OCR fails (a warning). The
 * crops are rendered here and read with the document's other crops, in chunks (ocr/crop-queue.ts); the queue is
 * held from the first (synchronous) step of this call until the page's crops are queued, each rendered once the
 * queue has room for it.
 */
async function withUnreadText(
  doc: PDFDocumentProxy,
  page: PageGeometry,
  queue: CropQueue,
  found: UnreadText | null,
): Promise<PageGeometry> {
  // Found already when the thread that read the page looked for it to decide its layout (arrival-layout.ts).
  const unread = found ?? unreadText(page);
  if (unread.regions.length === 0) return page;
  const release = queue.hold();
  const crops = ocrCrops(unread, page);
  const shown = crops.length > 0 ? box.union(crops) : undefined;
  const reads: Promise<OcrPage>[] = [];
  try {
    for (const crop of crops) {
      // Crops waiting for OCR are bounded in bytes: the next is rendered once there is room for it.
      await queue.room();
      // The page's crops are drawn from one reading of it (its operator list, fonts and images), freed after.
      const rendered = await renderPage(doc, page.pageNumber, {
        dpi: OCR_DPI,
        grayscale: true,
        crop,
        keepPage: crops.length > 1,
        // The text layer's glyphs are drawn only where OCR reads garbled runs in place of theirs.
        text: unread.garbled.size > 0,
        // What lies outside every crop of the page is not read for them (render-region.ts).
        region: shown,
      });
      // A crop of garbled runs with no image under it reads lines of the page's own text.
      const lines =
        [...unread.garbled].some((run) => box.containsCenter(crop, run.box)) &&
        !page.images.some((image) => box.intersection(image.box, crop) > 0);
      const read = queue.read(
        {
          pageNumber: page.pageNumber,
          widthPx: rendered.widthPx,
          heightPx: rendered.heightPx,
          dpi: rendered.dpi,
          widthPt: box.width(crop),
          heightPt: box.height(crop),
          png: rendered.png,
          scale: 1,
          ocrDpi: rendered.dpi,
        },
        lines,
      );
      // Settled below; a render failing meanwhile leaves the crops queued before it unawaited.
      read.catch(() => {});
      reads.push(read);
    }
  } finally {
    release();
    if (crops.length > 1) await releasePage(doc, page.pageNumber);
  }
  const words: TextRun[] = [];
  const settled = await Promise.allSettled(reads);
  for (const [i, read] of settled.entries()) {
    if (read.status === "rejected") {
      const error: unknown = read.reason;
      if (!(error instanceof OcrError)) throw error;
      const warning = `page ${page.pageNumber}: text outside the text layer not read (${error.message})`;
      return { ...page, warnings: [...page.warnings, warning] };
    }
    const crop = crops[i];
    // Junk read from a logo's artwork goes before the crop's words join the page (junk-words.ts).
    for (const { lineId: _, ...run } of withoutJunkWords(read.value.runs)) {
      const b = run.box;
      words.push({
        ...run,
        box: { x1: b.x1 + crop.x1, y1: b.y1 + crop.y1, x2: b.x2 + crop.x1, y2: b.y2 + crop.y1 },
      });
    }
  }
  return withOcrWords(page, unread, words);
}

/**
 * PDF: geometry from pdf.js (text runs, ruling lines, images), then the paginated layout. Only the requested
 * pages are read; the model lists every page with its size.
 */
export async function loadPdf(input: BackendInput): Promise<DocumentModel> {
  if (!input.bytes) throw new DocumentLoadError("A PDF needs the file's bytes, not text");
  const doc = await openPdf(input.bytes);
  // Stops the OCR of crops still queued when the parse ends early (an error).
  const stop = new AbortController();
  try {
    const wanted = new Set(requestedPages(input.pageRange, doc.numPages));
    const numbers = Array.from({ length: doc.numPages }, (_, i) => i + 1);
    // Text outside the text layer is read while later pages are still being read: each page, as it comes, has
    // its crops rendered and queued; the queue reads them in chunks as they gather, and the rest once all are in.
    const queue = new CropQueue(ocrEngineFor(input.parsing.ocr_model), {
      language: () => cropLanguage(doc, input.parsing.ocr_languages),
      signal: stop.signal,
    });
    const withText = new Map<number, Promise<PageGeometry>>();
    // Pages laid out as they came (arrival-layout.ts): by the thread that read them, or here once their unread
    // text is in. The others (scans, every page with barcode_detection) are laid out below.
    const request = layoutRequestOf(input.parsing);
    const stages = layoutStages(request);
    // With barcode_detection every page is rendered and searched before its layout.
    const arrival = input.parsing.barcode_detection ? null : request;
    const laidOut = new Map<number, PageLayout | Promise<PageLayout>>();
    let geometry: PageGeometry[];
    try {
      geometry = await extractPages(
        doc,
        input.bytes,
        numbers.filter((n) => wanted.has(n)),
        (page, { layout, unread }) => {
          if (layout) laidOut.set(page.pageNumber, layout);
          if (layout || page.textSource !== "text-layer") return;
          const read = withUnreadText(doc, page, queue, unread);
          read.catch(() => {});
          withText.set(page.pageNumber, read);
          if (!arrival) return;
          const layoutAfter = read.then((read) => layoutPage(withoutUnmapped(read), stages));
          layoutAfter.catch(() => {});
          laidOut.set(page.pageNumber, layoutAfter);
        },
        arrival,
      );
    } finally {
      queue.close();
    }
    const extracted = new Map(geometry.map((page) => [page.pageNumber, page]));
    const pages: ModelPage[] = [];
    for (const n of numbers) {
      const { width, height } = extracted.get(n) ?? (await pageFrame(doc, n));
      pages.push({ pageNumber: n, size: { width, height } });
    }
    // Pages without a usable text layer (scans, or an invisible OCR layer) are rendered and read by OCR; with
    // barcode_detection every page is rendered and searched for codes.
    const barcodes = input.parsing.barcode_detection;
    let scans: Promise<PDFDocument | null> | undefined;
    geometry = await mapLimited(geometry, OCR_PAGES_IN_FLIGHT, async (extracted) => {
      const layout = laidOut.get(extracted.pageNumber);
      if (layout) return (await layout).page;
      // Glyphs that map to no character are kept for withUnreadText to OCR; whatever OCR does not replace goes.
      const page = withoutUnmapped((await withText.get(extracted.pageNumber)) ?? extracted);
      if (page.textSource === "text-layer" || blank(page)) {
        if (!barcodes) return page;
        const rendered = await renderPage(doc, page.pageNumber, { dpi: BARCODE_DPI, grayscale: true });
        return { ...page, barcodes: await barcodesOf(rendered.png, 72 / rendered.dpi) };
      }
      const rendered =
        (await scanRaster(page, () => (scans ??= openScanSource(input.bytes as Uint8Array)))) ??
        (await renderPage(doc, page.pageNumber, { dpi: OCR_DPI, grayscale: true }));
      const raster: PageRaster = {
        pageNumber: page.pageNumber,
        widthPx: rendered.widthPx,
        heightPx: rendered.heightPx,
        dpi: rendered.dpi,
        widthPt: page.width,
        heightPt: page.height,
        png: rendered.png,
        scale: 1,
        ocrDpi: rendered.dpi,
      };
      const read = await ocrPageGeometry(raster, input.parsing, page, { vision: input.vision });
      // Codes are looked for in the page as rendered, so only on a page OCR did not turn.
      if (barcodes && read.width === page.width)
        read.barcodes = await barcodesOf(rendered.png, 72 / rendered.dpi);
      return read;
    });
    for (const page of geometry) pages[page.pageNumber - 1].size = { width: page.width, height: page.height };
    const layouts = await Promise.all(
      geometry.map((page) => laidOut.get(page.pageNumber) ?? layoutPage(page, stages)),
    );
    if (input.parsing.include_images) await attachFigureImages(doc, layouts);
    return assembleDocument(layouts, {
      mimeType: "application/pdf",
      backend: "pdf",
      pages,
      plain: input.parsing.disable_layout_detection,
      mergeTables: input.parsing.table_merging,
      warnings: [],
    });
  } finally {
    stop.abort();
    await closePdf(doc);
  }
}
