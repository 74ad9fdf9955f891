/**
 * Currency signs set in a column of their own (a financial statement's `$` flush left of its right-aligned
 * figures, on the first row and the totals only): the sign belongs to the number beside it. A column whose every
 * cell is a currency sign alone joins the column to its right when that column holds a number on each of its rows,
 * so a row's label stands next to its figure, not next to an empty cell.
 */
import { cellText, isNumeric, type TextPiece } from "./cells.ts";

const SIGN = /^[$€£¥₩₹]$/u;

interface ColumnGrid {
  columns: { x1: number; x2: number }[];
  /** Per row, per column: the words. */
  rows: TextPiece[][][];
}

/** The grid with each column of currency signs alone joined to the column of numbers to its right. */
export function joinCurrencySigns<G extends ColumnGrid>(grid: G): G {
  let { columns, rows } = grid;
  for (let c = columns.length - 2; c >= 0; c--) {
    const signs = rows.filter((row) => row[c].length > 0);
    if (signs.length === 0 || !signs.every((row) => SIGN.test(cellText(row[c]).trim()))) continue;
    if (!signs.every((row) => isNumeric(cellText(row[c + 1])))) continue;
    columns = [...columns.slice(0, c), { x1: columns[c].x1, x2: columns[c + 1].x2 }, ...columns.slice(c + 2)];
    rows = rows.map((row) => [...row.slice(0, c), [...row[c], ...row[c + 1]], ...row.slice(c + 2)]);
  }
  return { ...grid, columns, rows };
}
