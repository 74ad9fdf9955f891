import type { DetectedTable } from "../paginated/geometry.ts";

/** A letter of a right-to-left script: Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms. */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;
const LETTER = /\p{L}/gu;

interface Grid<C extends { col: number; colSpan: number; row: number }> {
  numCols: number;
  cells: readonly C[];
}

/** Whether most letters of the table's cells belong to a right-to-left script (digits and signs do not count). */
export function isRightToLeft(table: { cells: readonly { text: string }[] }): boolean {
  let rtl = 0;
  let letters = 0;
  for (const cell of table.cells) {
    rtl += cell.text.match(RTL_LETTER)?.length ?? 0;
    letters += cell.text.match(LETTER)?.length ?? 0;
  }
  return rtl * 2 > letters;
}

/**
 * The table's cells with its columns numbered from the other side: a cell spanning columns c..c+s-1 of n starts
 * at n-c-s. Cells come out sorted by row, then column.
 */
export function mirroredCells<C extends { col: number; colSpan: number; row: number }>(table: Grid<C>): C[] {
  return table.cells
    .map((cell) => ({ ...cell, col: table.numCols - cell.col - cell.colSpan }))
    .sort((a, b) => a.row - b.row || a.col - b.col);
}

/**
 * The table with its columns in reading order. Detection numbers columns left to right on the page; a table
 * written in a right-to-left script starts at its rightmost column (as an HTML table with `dir="rtl"` shows its
 * first cell on the right), so its columns are mirrored. Cells keep their boxes on the page.
 */
export function inReadingDirection(table: DetectedTable): DetectedTable {
  if (table.numCols < 2 || !isRightToLeft(table)) return table;
  return { ...table, cells: mirroredCells(table) };
}
