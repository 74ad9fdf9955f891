import sharp from "sharp";
import type { PageRaster } from "../images/decode.ts";
import { localTesseract } from "../ocr/engine.ts";
import { OcrError } from "../ocr/ocr-error.ts";

/**
 * The words inside a figure on a page that has no text layer (a scan, a picture-only page): the layout keeps no
 * OCR words inside figures, so the figure's picture is read on its own. Offline, with the local Tesseract.
 */

/** Words OCR is less sure of than this are left out: a figure's texture reads as stray letters. */
const MIN_CONFIDENCE = 0.6;
/** One figure's OCR may use this much CPU time; then it has no text. */
const FIGURE_OCR_CPU_LIMIT_MS = 30_000;

/**
 * The lines of text OCR reads in a figure's picture (`png`, showing `widthPt` points across), in reading order;
 * empty when it reads none or fails.
 *
 * @example
 * await figureOcrLines(await pdfCrop(doc, 1, figureBox, 300), figureBox.x2 - figureBox.x1); // ["Sales 2024"]
 */
export async function figureOcrLines(png: Uint8Array, widthPt: number): Promise<string[]> {
  const { data, info } = await sharp(png).greyscale().png().toBuffer({ resolveWithObject: true });
  const dpi = (info.width * 72) / widthPt;
  const raster: PageRaster = {
    pageNumber: 1,
    widthPx: info.width,
    heightPx: info.height,
    dpi,
    widthPt,
    heightPt: (info.height * 72) / dpi,
    png: data,
    scale: 1,
    ocrDpi: dpi,
  };
  try {
    const page = await localTesseract.recognize(raster, {
      detectOrientation: false,
      cpuLimitMs: FIGURE_OCR_CPU_LIMIT_MS,
    });
    return page.lines
      .map((line) =>
        line.runs
          .map((index) => page.runs[index])
          .filter((run) => run.confidence >= MIN_CONFIDENCE)
          .map((run) => run.text)
          .join(" ")
          .trim(),
      )
      .filter((text) => /[\p{L}\p{N}]/u.test(text));
  } catch (error) {
    if (error instanceof OcrError) return [];
    throw error;
  }
}
