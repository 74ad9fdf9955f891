import { measureSkew } from "../ocr/deskew.ts";

/**
 * The skew from which a scan is straightened even without skew_detection: at one degree, a line across a letter
 * page drifts by about a line's height from one end to the other, so OCR's words of one line fall among the next
 * one's and the page reads as scraps. Below it, lines still read whole and the page is read as it lies.
 */
export const NOTICEABLE_SKEW_DEGREES = 1;

/** Whether a page image is skewed enough to read as scraps unless straightened. */
export async function noticeablySkewed(png: Buffer): Promise<boolean> {
  return Math.abs(await measureSkew(png)) >= NOTICEABLE_SKEW_DEGREES;
}
