import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import type { PageGeometry } from "../paginated/geometry.ts";
import { annotationTextRuns } from "./annotation-text.ts";
import { corkFonts } from "./cork-ligatures.ts";
import { DrawnSizes } from "./drawn-sizes.ts";
import { codeOnlyFonts, fallbackGlyphs } from "./fallback-glyphs.ts";
import { formFieldRuns } from "./form-fields.ts";
import { stackedFractions } from "./fractions.ts";
import { shortLigatures } from "./glyph-names.ts";
import { markStrikethrough, pageGraphics } from "./graphics.ts";
import { withoutHiddenText } from "./hidden-text.ts";
import { imageTextRegions } from "./image-text.ts";
import { rtlLigatureWords } from "./ligatures.ts";
import { dropUnmapped, pageTextRuns } from "./text.ts";
import { glyphSized, lightOnGround } from "./unread-text.ts";

/** A page's size in points after its rotation, and the transform from PDF user space to model coordinates. */
export interface PageFrame {
  width: number;
  height: number;
  transform: number[];
}

export async function pageFrame(doc: PDFDocumentProxy, pageNumber: number): Promise<PageFrame> {
  const page = await doc.getPage(pageNumber);
  const viewport = page.getViewport({ scale: 1 });
  return { width: viewport.width, height: viewport.height, transform: viewport.transform };
}

export interface ExtractOptions {
  /**
   * Keep glyphs that map to no character, as U+FFFD in runs marked `unmapped`, for the caller to OCR (and then
   * drop with `dropUnmapped`); by default they are dropped here.
   */
  keepUnmapped?: boolean;
  /** Look in the page's images for rows of text the text layer does not hold (`imageText`, for OCR). */
  findImageText?: boolean;
}

/**
 * The geometry of one page of an open PDF: text runs (struck ones marked), rules, rectangles and images. A page
 * whose text is drawn invisibly (an OCR layer over a scan) keeps its runs but says `textSource: "none"`, so the
 * caller OCRs it instead.
 */
export async function extractPdfPage(
  doc: PDFDocumentProxy,
  pageNumber: number,
  options: ExtractOptions = {},
): Promise<PageGeometry> {
  const page = await doc.getPage(pageNumber);
  try {
    let viewport = page.getViewport({ scale: 1 });
    const ops = await page.getOperatorList();
    // A page shown turned (its /Rotate, or content drawn sideways) is read in the frame its text is upright in.
    const { runs: read, acrossBlocks } = await pageTextRuns(
      page,
      viewport.transform,
      (quarterTurns) => {
        viewport = page.getViewport({ scale: 1, rotation: (page.rotate - quarterTurns * 90 + 360) % 360 });
        return viewport.transform;
      },
      {
        rtlLigatures: rtlLigatureWords(ops),
        fallbacks: fallbackGlyphs(ops),
        codeOnly: codeOnlyFonts(ops),
        ligatures: shortLigatures(page, ops),
        cork: corkFonts(page, ops),
        sizes: new DrawnSizes(ops),
      },
    );
    // A form's filled-in values and the text of annotations' appearances are text the reader sees.
    read.push(...(await formFieldRuns(page, viewport.transform)));
    read.push(...annotationTextRuns(ops, viewport.transform, read));
    const graphics = pageGraphics(ops, viewport.transform);
    // Text drawn white on nothing is not seen (a spacer line at a page's corner): not read either.
    const seen = withoutHiddenText(read, graphics.hiddenText);
    const mapped = dropUnmapped(seen);
    // Inline stacked fractions read `a/b` in their line; their bars are no rules.
    const { runs, rules } = stackedFractions(options.keepUnmapped ? seen : mapped, graphics.rules);
    markStrikethrough(runs, rules);
    // A text layer drawn invisibly over a scan (an earlier OCR's) is not what the reader sees: OCR the page.
    const invisible = graphics.invisibleGlyphs > 0 && graphics.visibleGlyphs < graphics.invisibleGlyphs * 0.1;
    const textLayer = mapped.length > 0 && !invisible;
    const size = { width: viewport.width, height: viewport.height };
    const imageText =
      options.findImageText && textLayer && graphics.images.length > 0
        ? await imageTextRegions(page, ops, graphics, mapped, size)
        : undefined;
    return {
      pageNumber,
      width: viewport.width,
      height: viewport.height,
      runs,
      rules,
      rects: graphics.rects,
      images: graphics.images,
      drawings: graphics.drawings,
      polylines: graphics.polylines,
      ...(acrossBlocks && acrossBlocks.length > 0 ? { acrossBlocks } : {}),
      outlines: [
        ...glyphSized(graphics.outlines),
        ...lightOnGround(graphics.lightOutlines, [
          ...graphics.rects,
          ...graphics.drawings,
          ...graphics.images.map((image) => image.box),
        ]),
      ],
      ...(imageText ? { imageText } : {}),
      textSource: textLayer ? "text-layer" : "none",
      warnings: [],
    };
  } finally {
    page.cleanup();
  }
}

/**
 * pdf.js keeps each font it translated, each glyph outline and each image shared between pages until the document
 * is cleaned up (about 1 MB a page on reports): a thread reading a long PDF cleans up after this many pages, so
 * memory stays bounded; the fonts of later pages are translated again.
 */
export const CLEANUP_EVERY_PAGES = 64;

/** How a whole document's pages are read for its parse: unmapped glyphs kept for OCR, text in images looked for. */
export const DOCUMENT_PAGE_OPTIONS: ExtractOptions = { keepUnmapped: true, findImageText: true };

/** extractPdfPage as a parse reads a page, with a cleanup of the document after every CLEANUP_EVERY_PAGES `read`. */
export async function extractCounted(
  doc: PDFDocumentProxy,
  pageNumber: number,
  read: { pages: number },
): Promise<PageGeometry> {
  const page = await extractPdfPage(doc, pageNumber, DOCUMENT_PAGE_OPTIONS);
  if (++read.pages % CLEANUP_EVERY_PAGES === 0) {
    // Memory only: a cleanup pdf.js refuses (a page still busy) leaves the caches for the next one.
    await doc.cleanup().catch(() => {});
  }
  return page;
}
