import type { Box } from "../model.ts";
import type { Rule, TextRun } from "../paginated/geometry.ts";

/*
 * What OCR reads from a page and the options of one read: the types every OCR file shares, kept below the engine
 * and the readers so that none of them imports another for its types.
 */

/** An OCR word as a text run, with the line it was read in. */
export interface OcrRun extends TextRun {
  /** The id of its line in OcrPage.lines. */
  lineId: string;
}

/** A line as the OCR engine grouped it: words on one baseline, within a paragraph within a block. */
export interface OcrLine {
  /** `block.paragraph.line`, unique on the page. */
  id: string;
  /** `block.paragraph`. */
  paragraphId: string;
  box: Box;
  /** The line's words joined by spaces. */
  text: string;
  /** Indexes of the line's words in OcrPage.runs, in reading order. */
  runs: number[];
}

/** What OCR read on one page, in points with the origin at the top left of the upright page. */
export interface OcrPage {
  pageNumber: number;
  /** The upright page in points: a page turned by 90 or 270 degrees has its width and height swapped. */
  width: number;
  height: number;
  /** Words in the engine's reading order. */
  runs: OcrRun[];
  lines: OcrLine[];
  /** Ruling lines found in the raster (images/rules.ts), in the same points. */
  rules: Rule[];
  /** Degrees the page image was turned clockwise to read it upright: 0, 90, 180 or 270. */
  rotation: 0 | 90 | 180 | 270;
  /** The Tesseract languages the page was read in, joined by `+` (detected, or as asked). */
  language: string;
  /** Degrees of skew removed before reading (clockwise skew is positive); 0 when deskewing was off. */
  skewAngle: number;
  /** The engine that read the page, e.g. `tesseract 5.3.0` or `tesseract.js`. */
  engine: string;
}

export interface OcrOptions {
  /**
   * Tesseract language codes joined by `+` (parsing_options.ocr_languages). Left out, each page's script and
   * languages are detected (detect-language.ts).
   */
  language?: string;
  /** Turn pages read sideways or upside down. Default true. */
  detectOrientation?: boolean;
  /** Find and remove a small skew (parsing_options.skew_detection). Default false. */
  deskew?: boolean;
  /**
   * The page's skew in degrees when the caller measured it already (paginated/page-skew.ts): straightening then
   * turns by it instead of measuring the page a second time. Left out, the skew is measured when deskewing.
   */
  skewDegrees?: number;
  /**
   * CPU time one page's OCR programs may use from the start of its first pass; then it is stopped (OCR_TIMEOUT).
   * Default 120 s. A limit in wall time, WALL_LIMIT_FACTOR times longer, holds too (cpu-budget.ts).
   */
  cpuLimitMs?: number;
  /** Stops the page's OCR when aborted. */
  signal?: AbortSignal;
}
