import type { Box } from "../model.ts";
import { box, type Gap } from "./geometry.ts";

/**
 * Columns set closer than a gutter's usual width (a newsletter's frames 3 pt apart, one line of the left column
 * running nearly into the right one). Gap width alone cannot tell such a gutter from a word space; the column's
 * edge tells it: a vertical strip of whitespace through the whole region, with the lines of the right column
 * starting on it at one x (to a fraction of a point) and the lines of the left one ending close before it, row
 * after row. Justified text of one column has no such strip: a river of word spaces does not run through every
 * line, and the words after it do not start at one x.
 */

/** Lines (rows) that must start on the edge. */
const MIN_ROWS = 5;
/** Points: how far a line's start may stray from the edge. */
const START_TOLERANCE = 0.15;
/** Share of the right column's rows whose left neighbour ends close before the strip. */
const CLOSE_SHARE = 0.6;

/** Boxes on distinct rows: a box whose vertical middle lies inside a kept one's height is the same row. */
function distinctRows(boxes: readonly Box[]): Box[] {
  const rows: Box[] = [];
  for (const b of [...boxes].sort((p, q) => p.y1 - q.y1)) {
    const middle = box.centerY(b);
    if (!rows.some((row) => middle > row.y1 && middle < row.y2)) rows.push(b);
  }
  return rows;
}

/**
 * The gaps of `narrow` (vertical whitespace through the region, too narrow for a gutter) that are the edge of a
 * close column: at least five rows of text start on the gap's right side, at one x, and for most of them the
 * text of their row left of the gap ends close before it. `text` are the region's text
 * boxes, `size` the page's usual text size.
 */
export function closeColumnGutters(narrow: readonly Gap[], text: readonly Box[], size: number): Gap[] {
  return narrow.filter((gap) => {
    const starts = distinctRows(text.filter((b) => Math.abs(b.x1 - gap.end) <= START_TOLERANCE));
    if (starts.length < MIN_ROWS) return false;
    const left = text.filter((b) => b.x2 <= gap.start + 0.01);
    if (left.length === 0) return false;
    // What narrows the strip is a line of the left column running up to the right one, on a row of it; a page
    // number centred under the gutter, on a row of its own, is no column's edge (the region is cut above it).
    const edge = left.filter((b) => b.x2 >= gap.start - 0.5);
    if (!edge.every((b) => starts.some((start) => box.overlapY(b, start) > 0))) return false;
    // Justified lines end on the strip, ragged ones within a word or two of it (a quarter of the column's
    // width); a form's labels, short beside their aligned values, end far from it.
    const reach = Math.max(size * 2, (gap.start - Math.min(...left.map((b) => b.x1))) * 0.25);
    const close = starts.filter((start) => {
      const ends = left.filter((b) => box.overlapY(b, start) > 0);
      return ends.length > 0 && gap.start - Math.max(...ends.map((b) => b.x2)) <= reach;
    });
    return close.length >= starts.length * CLOSE_SHARE;
  });
}
