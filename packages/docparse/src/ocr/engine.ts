import type { OcrModel } from "@svc/contract";
import type { PageRaster } from "../images/decode.ts";
import type { OcrError } from "./ocr-error.ts";
import type { OcrOptions, OcrPage } from "./ocr-page.ts";
import { type ReadContext, recognizeCrops, recognizePage } from "./recognize-page.ts";
import { tesseractAvailable, tesseractCli } from "./tesseract.ts";
import { tesseractJs } from "./tesseract-js.ts";

export { OcrError } from "./ocr-error.ts";
export type { OcrLine, OcrOptions, OcrPage, OcrRun } from "./ocr-page.ts";

/**
 * Reads the text of one page raster. Throws OcrError when the engine fails or runs out of time; the page is then
 * a page without text and a warning, not a failed document.
 */
export interface OcrEngine {
  name: string;
  recognize(raster: PageRaster, options?: OcrOptions): Promise<OcrPage>;
  /**
   * Crops read as they are (upright, in `language`, not straightened), together where the engine can, in the OCR
   * slot the caller holds (crop-queue.ts): each crop's page, or the OcrError that stopped that crop.
   */
  recognizeCrops(rasters: readonly PageRaster[], context: ReadContext): Promise<(OcrPage | OcrError)[]>;
}

/**
 * Tesseract on this machine: the `tesseract` program (Debian's tesseract-ocr) when it is installed, else
 * tesseract.js with the English data of @tesseract.js-data/eng, both offline.
 */
export const localTesseract: OcrEngine = {
  name: "tesseract",
  async recognize(raster, options = {}) {
    const reader = (await tesseractAvailable()) ? tesseractCli : tesseractJs;
    return recognizePage(raster, reader, options);
  },
  async recognizeCrops(rasters, context) {
    const reader = (await tesseractAvailable()) ? tesseractCli : tesseractJs;
    return recognizeCrops(rasters, reader, context);
  },
};

/**
 * The engine behind an API `ocr_model` (default `model03`). Every name maps to the local Tesseract today, because
 * the server has no other OCR engine: `model01`, `model02`, `model03` and `gemini3` all read with it. A name gets
 * an engine of its own here when one is added (e.g. `gemini3` a vision model through a provider).
 *
 * @example
 * const page = await ocrEngineFor("model03").recognize(raster, { deskew: true });
 */
export function ocrEngineFor(ocrModel: OcrModel): OcrEngine {
  switch (ocrModel) {
    case "model01":
    case "model02":
    case "model03":
    case "gemini3":
      return localTesseract;
  }
}
