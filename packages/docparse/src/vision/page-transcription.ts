import sharp from "sharp";
import type { PageRaster } from "../images/decode.ts";
import type { OcrPage } from "../ocr/engine.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { type ModelProvider, ProviderError } from "../providers/provider.ts";
import { transcriptionRuns } from "./word-boxes.ts";

/**
 * Pages read from their image (scans, photos, PDF pages without a text layer) transcribed by a vision model when
 * one is configured: handwriting and very poor scans that Tesseract cannot read. The model's text replaces the
 * OCR words of the page, with boxes from those words where they match (word-boxes.ts), and goes through the same
 * layout as OCR words. Without a configured model nothing here runs.
 */

/** How a parse uses a vision model. */
export interface VisionTranscription {
  provider: ModelProvider;
  /**
   * `low-confidence`: only pages OCR read with a mean word confidence below `minConfidence` (or read no word);
   * `every-page`: every page read from its image (the request's ocr_model names the model).
   */
  pages: "low-confidence" | "every-page";
  /**
   * True when the request asked for the model (ocr_model): a failed call fails the parse (TranscriptionError).
   * Otherwise the page keeps its OCR words and gets a warning.
   */
  required: boolean;
  /** Default LOW_OCR_CONFIDENCE. */
  minConfidence?: number;
  signal?: AbortSignal;
}

/**
 * Mean OCR word confidence (by characters) under which a page goes to the model. Tesseract reads clean print at
 * 0.9 and above; handwriting and damaged scans come out as fragments well under 0.7.
 */
export const LOW_OCR_CONFIDENCE = 0.7;
/** The longest side of the image sent: enough for small print on a letter page, within every provider's limits. */
export const MAX_IMAGE_SIDE_PX = 2000;

export const TRANSCRIPTION_PROMPT = [
  "Transcribe all the text on this page image exactly as it is written, printed or handwritten, in reading order.",
  "Write one line of output for each line of text on the page. Keep the words, numbers and punctuation as written;",
  "do not correct, translate, summarize or explain. Write only the text: no markdown, no code fences, no comments.",
  "If the page has no text, write nothing.",
].join(" ");

/** The model could not transcribe a page it was required for. */
export class TranscriptionError extends Error {
  override name = "TranscriptionError";
}

/** Mean word confidence of a page's OCR, weighted by word length; null when it read no word. */
export function ocrConfidence(runs: readonly Pick<TextRun, "text" | "confidence">[]): number | null {
  let chars = 0;
  let sum = 0;
  for (const run of runs) {
    const length = [...run.text].length;
    chars += length;
    sum += run.confidence * length;
  }
  return chars === 0 ? null : sum / chars;
}

/** Whether the page goes to the model. */
export function needsTranscription(page: Pick<OcrPage, "runs">, vision: VisionTranscription): boolean {
  if (vision.pages === "every-page") return true;
  const confidence = ocrConfidence(page.runs);
  return confidence === null || confidence < (vision.minConfidence ?? LOW_OCR_CONFIDENCE);
}

/** The lines of a model's answer: code fences and blank lines dropped, each line trimmed. */
export function transcribedLines(answer: string): string[] {
  return answer
    .split(/\r?\n/)
    .filter((line) => !/^\s*```/.test(line))
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** The page image as the model sees it: upright, and at most MAX_IMAGE_SIDE_PX on its longest side. */
async function pageImage(raster: PageRaster, rotation: OcrPage["rotation"]): Promise<Uint8Array> {
  return sharp(raster.png)
    .rotate(rotation)
    .resize({
      width: MAX_IMAGE_SIDE_PX,
      height: MAX_IMAGE_SIDE_PX,
      fit: "inside",
      withoutEnlargement: true,
    })
    .png()
    .toBuffer();
}

/**
 * The runs of the page as the model transcribes it, or null when the page does not go to the model. A failed
 * call gives null and a warning, or throws TranscriptionError when the model was required.
 *
 * @example
 * const read = await transcribePage(raster, ocrPage, { provider, pages: "low-confidence", required: false });
 * const runs = read?.runs ?? ocrPage.runs;
 */
export async function transcribePage(
  raster: PageRaster,
  page: OcrPage,
  vision: VisionTranscription,
): Promise<{ runs: TextRun[] | null; warning: string | null } | null> {
  if (!needsTranscription(page, vision)) return null;
  let answer: string;
  try {
    const completion = await vision.provider.complete(
      {
        prompt: TRANSCRIPTION_PROMPT,
        images: [{ mimeType: "image/png", data: await pageImage(raster, page.rotation) }],
      },
      vision.signal,
    );
    answer = completion.text;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    const message = `page ${page.pageNumber}: the vision model could not transcribe the page (${error.message})`;
    if (vision.required) throw new TranscriptionError(message);
    return { runs: null, warning: `${message}; the page keeps its OCR text` };
  }
  const words = page.runs.map((run) => ({ text: run.text, box: run.box }));
  return {
    runs: transcriptionRuns(transcribedLines(answer), words, page.width, page.height),
    warning: null,
  };
}
