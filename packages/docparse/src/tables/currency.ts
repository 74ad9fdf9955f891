/**
 * Currency signs set in a column of their own (a financial statement's `$` flush left of its right-aligned
 * figures, on the first row and the totals only): the sign belongs to the number beside it. A column whose every
 * cell is a currency sign alone joins the column to its right when that column holds a number on each of its rows,
 * so a row's label stands next to its figure, not next to an empty cell.
 */
import { box, type TextRun } from "../paginated/geometry.ts";
import { cellText, isNumeric, runWords, type TextPiece } from "./cells.ts";

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

/**
 * The same for a ruled table (a statement whose rows are set apart by rules, its columns by text alignment): the
 * boundary that sets a column holding currency signs alone apart from the column to its right goes, when each
 * sign has a number beside it on its line. Also where that boundary is drawn: the edge of a shaded column (the
 * current year's figures set on a tint, their signs left of it) is no cell boundary to a sign.
 */
export function joinFrameSigns<F extends { xs: number[]; xRules: unknown[]; ys: number[] }>(
  frame: F,
  runs: readonly TextRun[],
): F {
  let { xs, xRules } = frame;
  const [top, bottom] = [frame.ys[0], frame.ys[frame.ys.length - 1]];
  const words = runs
    .filter((run) => !run.vertical)
    .flatMap(runWords)
    .filter((w) => box.centerY(w.box) > top && box.centerY(w.box) < bottom);
  for (let c = xs.length - 3; c >= 0; c--) {
    const inColumn = (k: number) =>
      words.filter((w) => box.centerX(w.box) > xs[k] && box.centerX(w.box) < xs[k + 1]);
    const signs = inColumn(c);
    if (signs.length === 0 || !signs.every((w) => SIGN.test(w.text.trim()))) continue;
    const right = inColumn(c + 1);
    const beside = (sign: TextPiece) =>
      right.filter(
        (w) => box.overlapY(w.box, sign.box) > 0.5 * Math.min(box.height(w.box), box.height(sign.box)),
      );
    if (!signs.every((sign) => isNumeric(cellText(beside(sign))))) continue;
    xs = [...xs.slice(0, c + 1), ...xs.slice(c + 2)];
    xRules = [...xRules.slice(0, c + 1), ...xRules.slice(c + 2)];
  }
  return xs === frame.xs ? frame : { ...frame, xs, xRules };
}
