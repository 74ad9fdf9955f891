import type { Box } from "../model.ts";
import type { Gap } from "./geometry.ts";

/**
 * A region whose columns do not start together: text across the top of one column only (a letterhead beside
 * the sender's photo or logo), a wide band of whitespace under it across the whole region, and only then the
 * text of the other column (the recipient's address block), level with the first line the first column has
 * under the band (the letter's date). Read column by column, the block that starts lower
 * on the left would come before the letterhead above it on the right; the region is cut across that band
 * first, so the top is read before what stands under it. A column that starts lower on the right (a sidebar
 * beside an article) reads the same either way.
 */

/** The band must be this many times the page's text size: wider than a paragraph's or a heading's spacing. */
const MIN_BAND = 2.5;
/** Tops this close (in text sizes) start together. */
const LEVEL = 1.5;

/**
 * The horizontal gap to cut at before the columns `parts` (their text boxes, in reading order), or null: the
 * topmost gap of at least `MIN_BAND` text sizes with text above it in some column and none in another.
 */
export function bandBeforeColumns(
  parts: readonly (readonly Box[])[],
  gaps: readonly Gap[],
  textSize: number,
): Gap | null {
  const texts = parts.filter((part) => part.length > 0);
  if (texts.length < 2) return null;
  for (const gap of [...gaps].sort((a, b) => a.start - b.start)) {
    if (gap.end - gap.start < textSize * MIN_BAND) continue;
    const above = texts.map((part) => part.some((b) => b.y2 <= gap.start));
    if (!above.some(Boolean) || above.every(Boolean)) continue;
    // Under the band the columns start together, level (the recipient's address beside the letter's date).
    if (startLevelUnder(texts, gap, textSize)) return gap;
  }
  return null;
}

/** Whether every column has text under `gap` and their first boxes there start level with each other. */
export function startLevelUnder(texts: readonly (readonly Box[])[], gap: Gap, textSize: number): boolean {
  const tops = texts.map((part) => Math.min(...part.filter((b) => b.y1 >= gap.end).map((b) => b.y1)));
  return tops.every(Number.isFinite) && Math.max(...tops) - Math.min(...tops) <= textSize * LEVEL;
}
