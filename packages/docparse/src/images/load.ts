import type { BackendInput } from "../backend.ts";
import { DocumentLoadError, type DocumentModel, type ModelPage } from "../model.ts";
import { requestedPages } from "../page-range.ts";
import { assembleDocument } from "../paginated/assemble.ts";
import { barcodesOf } from "../paginated/barcode-stage.ts";
import { layoutPage } from "../paginated/layout.ts";
import { mapLimited, OCR_PAGES_IN_FLIGHT, ocrPageGeometry } from "../paginated/ocr-stage.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { decodeImage, imagePageCount } from "./decode.ts";

/**
 * Images (PNG, JPEG, TIFF with every page, WebP, GIF, AVIF): each page is OCRed and its words go through the
 * same layout as a PDF's text. Pages are decoded a few at a time, so a long TIFF is never in memory whole.
 */
export async function loadImage(input: BackendInput): Promise<DocumentModel> {
  const bytes = input.bytes;
  if (!bytes) throw new DocumentLoadError("An image needs the file's bytes, not text");
  const total = await imagePageCount(bytes);
  const wanted = requestedPages(input.pageRange, total);
  // Pages are read a few at a time, each in an OCR slot (one per core): a multi-page TIFF keeps every core busy,
  // and no more than OCR_PAGES_IN_FLIGHT pages are decoded at once.
  const geometry = await mapLimited(wanted, OCR_PAGES_IN_FLIGHT, async (pageNumber) => {
    const [raster] = await decodeImage(bytes, { pageNumbers: [pageNumber] });
    const page = await ocrPageGeometry(
      raster,
      input.parsing,
      {
        pageNumber: raster.pageNumber,
        width: raster.widthPt,
        height: raster.heightPt,
        rules: [],
        rects: [],
        images: [],
      },
      // A photo of a page is rarely straight: every image is deskewed before OCR.
      { alwaysDeskew: true, vision: input.vision },
    );
    // Codes are looked for in the image as stored, so only on a page OCR did not turn.
    if (input.parsing.barcode_detection && page.width === raster.widthPt) {
      page.barcodes = await barcodesOf(raster.png, 72 / raster.ocrDpi);
    }
    return page;
  });
  const sizes = new Map(
    geometry.map((page) => [page.pageNumber, { width: page.width, height: page.height }]),
  );
  const pages: ModelPage[] = Array.from({ length: total }, (_, i) => ({
    pageNumber: i + 1,
    size: sizes.get(i + 1) ?? null,
  }));
  const stages = {
    detectTables: input.parsing.disable_layout_detection ? () => [] : tableStage,
    dropStruck: false,
  };
  return assembleDocument(
    geometry.map((page) => layoutPage(page, stages)),
    {
      mimeType: input.mimeType,
      backend: "image",
      pages,
      plain: input.parsing.disable_layout_detection,
      mergeTables: input.parsing.table_merging,
      warnings: [],
    },
  );
}
