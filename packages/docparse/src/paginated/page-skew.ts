import { measureSkew } from "../ocr/deskew.ts";

/**
 * The skew from which a scan is straightened even without skew_detection: at one degree, a line across a letter
 * page drifts by about a line's height from one end to the other, so OCR's words of one line fall among the next
 * one's and the page reads as scraps. Below it, lines still read whole and the page is read as it lies.
 */
export const NOTICEABLE_SKEW_DEGREES = 1;

/**
 * A page image's skew in degrees (ocr/deskew.ts measureSkew) and whether it is enough to read as scraps unless
 * straightened. The angle is handed on to the OCR (OcrOptions.skewDegrees), which then does not measure it again.
 */
export async function pageSkew(png: Buffer): Promise<{ degrees: number; noticeable: boolean }> {
  const degrees = await measureSkew(png);
  return { degrees, noticeable: Math.abs(degrees) >= NOTICEABLE_SKEW_DEGREES };
}
