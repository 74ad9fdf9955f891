import type { TextPiece } from "./cells.ts";

/** What an aligned table is read as before its cells are made: its columns, and its rows' words in them. */

/** A stretch of the x axis: a column, a gap between columns. */
export interface Interval {
  x1: number;
  x2: number;
}

export interface Grid {
  columns: Interval[];
  /** Per row, per column: the words. */
  rows: TextPiece[][][];
  rowBoxes: { y1: number; y2: number }[];
}
