import type { CpuBudget } from "./cpu-budget.ts";
import type { TsvPage } from "./tsv.ts";

/*
 * The interface between the page recognizer and an OCR program (tesseract.ts, tesseract-js.ts), with the
 * orientation answer it gives: shared by the recognizer, the language and orientation passes and the programs.
 */

export type Rotation = 0 | 90 | 180 | 270;

/** An orientation detector's answer: the clockwise turn that makes the page upright, and how sure it is. */
export interface OrientationGuess {
  rotation: Rotation;
  /** Tesseract OSD's orientation confidence: above about 2 it is rarely wrong. */
  confidence: number;
  /** The script OSD saw (`Latin`, `Han`, `Arabic`...), when it named one. */
  script?: string;
  scriptConfidence?: number;
}

/** What one OCR pass of a reader needs besides the image. */
export interface ReadContext {
  /** Tesseract language codes joined by `+`. */
  language: string;
  /** Aborted when the page runs out of time or the caller gives up; the reader stops its work then. */
  signal: AbortSignal;
  /**
   * The page's CPU-time budget (cpu-budget.ts): readers charge what their programs use to it, and `signal` aborts
   * when it is spent. Left out, only `signal` limits the pass.
   */
  budget?: CpuBudget;
  /**
   * Read what is left on a page whose words were painted out (missed-ink.ts) as one block of text (Tesseract page
   * segmentation 6), whose layout analysis does not drop small isolated words as the automatic one does.
   */
  sparse?: boolean;
  /** Read the image as one line of text (Tesseract page segmentation 7): a band cut out around one line. */
  line?: boolean;
}

/** An image of a batch, with the resolution it was rendered at. */
export interface BatchImage {
  png: Buffer;
  dpi: number;
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
  /**
   * Words of several images read in one run of the program (one start, one load of its models: most of the cost
   * of a small image), with the same language and segmentation: one page per image, in order, each as
   * `readWords` reads it alone. The run fails as a whole (an OcrError); the caller then reads the images one by
   * one. Readers without it (tesseract.js, vision models) read one image at a time.
   */
  readWordsBatch?(images: readonly BatchImage[], context: ReadContext): Promise<TsvPage[]>;
  /** The language codes it has data for; English only when left out. */
  languages?(): Promise<string[]>;
  /** Tesseract's orientation and script detection; null when it cannot tell. */
  detectOrientation?(png: Buffer, dpi: number, context: ReadContext): Promise<OrientationGuess | null>;
}
