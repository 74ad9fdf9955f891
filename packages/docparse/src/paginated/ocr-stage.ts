import type { ParsingOptions } from "@svc/contract";
import type { PageRaster } from "../images/decode.ts";
import { ocrEngineFor } from "../ocr/engine.ts";
import { withLayerWords } from "../ocr/layer-words.ts";
import { OcrError } from "../ocr/ocr-error.ts";
import { withUnitLetters } from "../ocr/unit-letters.ts";
import { transcribePage, type VisionTranscription } from "../vision/page-transcription.ts";
import type { PageGeometry } from "./geometry.ts";
import { pageSkew } from "./page-skew.ts";

/** How many pages are prepared ahead of the OCR slots: enough to keep every core busy, few enough to bound memory. */
export const OCR_PAGES_IN_FLIGHT = 3;

/**
 * The geometry of a page read by OCR, in the upright page's points. A page the engine cannot read (a timeout, a
 * crash of the OCR program) becomes a page without text and a warning: one bad page does not fail the document.
 * Without skew_detection a page that reads almost empty is read again straightened, since Tesseract reads
 * nothing at all on text skewed by a few degrees, and a page skewed by a degree or more is straightened first
 * (paginated/page-skew.ts); `alwaysDeskew` straightens every page first (image files: photos of pages are rarely
 * straight). With `vision`, a page OCR reads poorly (or every page) is transcribed by
 * the vision model instead (vision/page-transcription.ts). `base.runs`, when given, is the page's own invisible text
 * layer (an earlier OCR under a scan): a second reading that corrects ours word by word (ocr/layer-words.ts).
 */
export async function ocrPageGeometry(
  raster: PageRaster,
  parsing: Required<ParsingOptions>,
  base: Pick<PageGeometry, "pageNumber" | "width" | "height" | "rules" | "rects" | "images"> & {
    runs?: PageGeometry["runs"];
  },
  options: { alwaysDeskew?: boolean; vision?: VisionTranscription } = {},
): Promise<PageGeometry> {
  const engine = ocrEngineFor(parsing.ocr_model);
  try {
    const language = parsing.ocr_languages.length > 0 ? parsing.ocr_languages.join("+") : undefined;
    // Without a request to straighten, the page's skew is measured here and handed on, measured once.
    const asked = parsing.skew_detection || options.alwaysDeskew === true;
    const skew = asked ? null : await pageSkew(raster.png);
    const deskew = asked || skew?.noticeable === true;
    const skewDegrees = skew?.degrees;
    let page = await engine.recognize(raster, { deskew, language, skewDegrees });
    if (!deskew && page.runs.length < 3) {
      const straightened = await engine.recognize(raster, { deskew: true, language, skewDegrees });
      if (straightened.runs.length > page.runs.length) page = straightened;
    }
    // A page turned upright has its own frame: the PDF's rules and images are in the old one, so they go. A page
    // without drawn rules (a scan, an image) has the ruling lines found in its raster.
    const transcribed = options.vision ? await transcribePage(raster, page, options.vision) : null;
    const turned = page.rotation !== 0;
    // A scan's own invisible text layer is a second reading of the words ours read in the same place.
    // Only a page read as it lies shares the layer's frame.
    const layered = !turned && page.skewAngle === 0 && base.runs !== undefined && base.runs.length > 0;
    // `Ib` after a figure is the unit `lb` (see unit-letters.ts).
    const words = withUnitLetters(page.runs, page.language);
    const runs = layered ? withLayerWords(words, base.runs ?? []).runs : words;
    const rules = turned || base.rules.length === 0 ? page.rules : base.rules;
    return {
      pageNumber: base.pageNumber,
      width: page.width,
      height: page.height,
      runs: transcribed?.runs ?? runs,
      rules,
      rects: turned ? [] : base.rects,
      images: turned ? [] : base.images,
      textSource: "ocr",
      warnings: transcribed?.warning ? [transcribed.warning] : [],
    };
  } catch (error) {
    if (!(error instanceof OcrError)) throw error;
    return {
      ...base,
      runs: [],
      textSource: "none",
      warnings: [`page ${base.pageNumber}: OCR failed (${error.message}); the page has no text`],
    };
  }
}

/** Runs `work` over `items` with at most `limit` at once, keeping the results in order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
