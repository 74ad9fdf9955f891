import { median } from "../statistics.ts";
import { cellText, isNumeric } from "./cells.ts";
import type { Grid } from "./grid.ts";

/**
 * The lines of an aligned table's header labels wrapped under one another (`Area` over `(cm²)`, `BMD` over
 * `(g/cm²)`) are one header row. Read from alignment alone, each line is a row. A line joins the header's first
 * line when both hold words and no number, each of its cells stands under a label of the first line, and it is
 * set solid under the line above (a gap under half the body's usual gap between rows): lines of one label,
 * where the rows under them stand apart. The body under them holds a column of figures, as a header's table
 * does: blocks of words set side by side (authors' names over their affiliations) are no header over rows. At
 * most MAX_LINES lines are joined.
 */

/** The most lines a wrapped header label runs to. */
const MAX_LINES = 3;

/** The grid with its header's wrapped lines (see above) joined into its first row. */
export function joinHeaderLines(grid: Grid): Grid {
  const { rows, rowBoxes } = grid;
  const gaps: number[] = [];
  for (let r = 1; r < rows.length; r++) gaps.push(rowBoxes[r].y1 - rowBoxes[r - 1].y2);
  const filled = (r: number) => rows[r].flatMap((cell, c) => (cell.length > 0 ? [c] : []));
  const wordsOnly = (r: number) => rows[r].every((cell) => cell.length === 0 || !isNumeric(cellText(cell)));
  const labelled = new Set(filled(0));
  if (labelled.size < 2 || !wordsOnly(0)) return grid;
  let joined = 1;
  while (joined < MAX_LINES && joined + 2 < rows.length) {
    // The body's usual gap: between the rows under the lines looked at.
    const body = median(gaps.slice(joined + 1));
    const gap = gaps[joined - 1];
    const under = filled(joined);
    if (!(body > 0 && gap < 0.5 * body && under.length > 0 && under.every((c) => labelled.has(c)))) break;
    if (!wordsOnly(joined)) break;
    joined++;
  }
  if (joined === 1) return grid;
  const figures = grid.columns.some((_, c) => {
    const cells = rows
      .slice(joined)
      .map((row) => row[c])
      .filter((cell) => cell.length > 0);
    return (
      cells.length >= 2 && cells.filter((cell) => isNumeric(cellText(cell))).length >= 0.5 * cells.length
    );
  });
  if (!figures) return grid;
  const header = rows[0].map((_, c) => rows.slice(0, joined).flatMap((row) => row[c]));
  return {
    columns: grid.columns,
    rows: [header, ...rows.slice(joined)],
    rowBoxes: [{ y1: rowBoxes[0].y1, y2: rowBoxes[joined - 1].y2 }, ...rowBoxes.slice(joined)],
  };
}
