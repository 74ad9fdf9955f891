import type { Line } from "./lines.ts";

/**
 * The gap between two lines read one after the other when they stand one under the other in one column, in one
 * size: the second starts below the first's middle (not beside it on its row) and under its text. Lines whose
 * boxes are taller than their pitch (a font's full height on TeX's 10/12 leading) overlap: their gap is negative.
 */
function columnGap(upper: Line, lower: Line): number | undefined {
  const size = Math.max(upper.fontSize, lower.fontSize);
  if (Math.abs(upper.fontSize - lower.fontSize) > 0.5) return undefined;
  if (upper.vertical || lower.vertical) return undefined;
  if (lower.box.x1 > upper.box.x2 || lower.box.x2 < upper.box.x1) return undefined;
  if (lower.box.y1 <= (upper.box.y1 + upper.box.y2) / 2) return undefined;
  const gap = lower.box.y1 - upper.box.y2;
  return gap < size * 1.2 ? gap : undefined;
}

/**
 * True when the gap before `next` is clearly wider than the gaps its neighbours keep: the one between the block's
 * last two lines and the one between `next` and the line after it, whichever is tighter, plus 0.45 of the type
 * size (the margin the page's own line gap is given). A letter sets its paragraphs single-spaced a blank line
 * apart, and on a page of few lines, its address and sidebar set on wider pitches, the page's median gap can fall
 * on those blank lines: the paragraphs' own spacing still tells a break. A double-spaced page keeps one wide gap
 * inside its paragraphs as between them, so nothing here parts it; its paragraphs part by indent or a wider gap.
 */
export function widerThanNeighbours(block: readonly Line[], next: Line, after: Line | undefined): boolean {
  const last = block[block.length - 1];
  const gap = columnGap(last, next);
  if (gap === undefined) return false;
  const neighbours: number[] = [];
  const inside = block.length >= 2 ? columnGap(block[block.length - 2], last) : undefined;
  if (inside !== undefined) neighbours.push(inside);
  const below = after ? columnGap(next, after) : undefined;
  if (below !== undefined) neighbours.push(below);
  if (neighbours.length === 0) return false;
  const size = Math.max(last.fontSize, next.fontSize);
  return gap > Math.max(Math.min(...neighbours), 0) + size * 0.45;
}
