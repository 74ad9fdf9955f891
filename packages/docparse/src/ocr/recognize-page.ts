import type { PageRaster } from "../images/decode.ts";
import { deskew } from "./deskew.ts";
import { readDetectingLanguage } from "./detect-language.ts";
import type { OcrOptions, OcrPage } from "./engine.ts";
import { OcrError } from "./ocr-error.ts";
import { type OrientationGuess, type Rotation, readUpright } from "./orientation.ts";
import { ocrSlots } from "./slots.ts";
import { type TsvPage, toRunsAndLines } from "./tsv.ts";

/** What one OCR pass of a reader needs besides the image. */
export interface ReadContext {
  /** Tesseract language codes joined by `+`. */
  language: string;
  /** Aborted when the page runs out of time or the caller gives up; the reader stops its work then. */
  signal: AbortSignal;
}

/**
 * One OCR program as the page recognizer drives it: read the words of a grayscale PNG, and (when it can) guess
 * the page's orientation. Errors are OcrErrors.
 */
export interface WordReader {
  /** The engine's name and version, recorded on the page. */
  name(): Promise<string>;
  /** Words and lines of the image (Tesseract page segmentation 3: fully automatic), in its pixels. */
  readWords(png: Buffer, dpi: number, context: ReadContext): Promise<TsvPage>;
  /** The language codes it has data for; English only when left out. */
  languages?(): Promise<string[]>;
  /** Tesseract's orientation and script detection; null when it cannot tell. */
  detectOrientation?(png: Buffer, dpi: number, context: ReadContext): Promise<OrientationGuess | null>;
}

export const DEFAULT_OCR_TIMEOUT_MS = 120_000;

/**
 * Reads one page with a reader: in an OCR slot, straightened when asked, turned upright, and converted to runs and
 * lines in points. The time limit runs from when the page gets its slot.
 */
export async function recognizePage(
  raster: PageRaster,
  reader: WordReader,
  options: OcrOptions = {},
): Promise<OcrPage> {
  const language = options.language;
  if (language !== undefined && !/^[A-Za-z_]+(\+[A-Za-z_]+)*$/.test(language)) {
    throw new OcrError(`Not a Tesseract language: ${language}`, "OCR_FAILED");
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_OCR_TIMEOUT_MS;
  try {
    return await ocrSlots.run(async () => {
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      let png = raster.png;
      let skewAngle = 0;
      if (options.deskew) ({ png, angle: skewAngle } = await deskew(png));
      signal.throwIfAborted();
      const upright = await readPage(png, raster.ocrDpi, reader, { language, signal }, options);
      const { runs, lines } = toRunsAndLines(upright.page, 72 / raster.ocrDpi);
      const sideways = upright.rotation === 90 || upright.rotation === 270;
      return {
        pageNumber: raster.pageNumber,
        width: sideways ? raster.heightPt : raster.widthPt,
        height: sideways ? raster.widthPt : raster.heightPt,
        runs,
        lines,
        rotation: upright.rotation,
        skewAngle,
        language: upright.language,
        engine: await reader.name(),
      };
    }, options.signal);
  } catch (error) {
    throw asOcrError(error);
  }
}

/**
 * One page image read upright: in the languages asked for, or else in those detected on the page (see
 * detect-language.ts); turned upright unless orientation detection is off.
 */
async function readPage(
  png: Buffer,
  dpi: number,
  reader: WordReader,
  context: { language: string | undefined; signal: AbortSignal },
  options: OcrOptions,
): Promise<{ page: TsvPage; rotation: Rotation; language: string }> {
  const { signal } = context;
  if (context.language === undefined && options.detectOrientation !== false) {
    return readDetectingLanguage(png, dpi, reader, { signal });
  }
  const language = context.language ?? "eng";
  if (options.detectOrientation === false) {
    return { page: await reader.readWords(png, dpi, { language, signal }), rotation: 0, language };
  }
  return { ...(await readUpright(png, dpi, reader, { language, signal })), language };
}

/** Errors of a page's OCR as OcrErrors: an abort by the time limit is OCR_TIMEOUT, by the caller OCR_ABORTED. */
export function asOcrError(error: unknown): OcrError {
  if (error instanceof OcrError) return error;
  if (error instanceof Error && error.name === "TimeoutError") {
    return new OcrError("OCR of the page took too long and was stopped", "OCR_TIMEOUT");
  }
  if (error instanceof Error && error.name === "AbortError") {
    return new OcrError("OCR of the page was cancelled", "OCR_ABORTED");
  }
  return new OcrError(`OCR failed: ${error instanceof Error ? error.message : String(error)}`, "OCR_FAILED");
}

/** The error a reader throws when its context's signal aborted: OCR_TIMEOUT for the time limit, else OCR_ABORTED. */
export function abortedError(signal: AbortSignal): OcrError {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === "TimeoutError") return asOcrError(reason);
  return new OcrError("OCR of the page was cancelled", "OCR_ABORTED");
}
