/**
 * Vertical writing (tategaki): a font whose CMap writes down the page (`Identity-V`, a `-V` CMap) sets its glyphs
 * one under the other, columns read from right to left. pdf.js gives such an item the matrix of upright text, its
 * `width` one em across the column and its `height` the glyphs' advance down it. A run of it spans that advance
 * (not one em along a baseline) and counts as text running downwards: a page set mostly so is read in the frame
 * that turns it a quarter (`pageTextRuns`), where each column is a line and the right-hand column the first.
 */

type Point = [number, number];

/**
 * The corners of a run set in vertical writing, through `apply` (text space to the page): pdf.js puts its origin
 * at the first glyph's lower left, one em under the column's top; the glyphs are `width` ems across and run
 * `height` ems down from that top.
 */
export function columnCorners(
  apply: (x: number, y: number) => Point,
  width: number,
  height: number,
): Point[] {
  return [apply(0, 1), apply(width, 1), apply(0, 1 - height), apply(width, 1 - height)];
}

/** The way a vertical writing run's glyphs advance on the page for its matrix `m`: down its text space's y. */
export function columnAdvance(m: readonly number[]): Point {
  return [-m[2], -m[3]];
}
