/**
 * The last row of a ruled table left under its grid: rules drawn between rows only (an HTML table's row borders,
 * a slide's table), the last row has no rule under it, so the grid ends at the rule above it and the row is read
 * as loose lines after the table. The row is taken back into the table when it stands where the next row would:
 * one line of text just under the grid, its baseline one row pitch under the last row's, each of its words
 * inside one of the grid's columns, and most columns filled (a caption or a note under a table runs across the
 * columns or fills one).
 */
import type { DetectedTable, TextRun } from "../paginated/geometry.ts";
import { cellText, runPiece } from "./cells.ts";
import { runsIn } from "./ruled-frame.ts";

/** The row's baseline stands within this share of a row pitch of where the next row's would. */
const PITCH_SLACK = 0.2;

/** `table` with the row under its grid taken in, or `table` itself when the text under it is no such row. */
export function withRowUnder(table: DetectedTable, runs: readonly TextRun[]): DetectedTable {
  if (table.numRows < 3 || table.numCols < 2) return table;
  // Columns from the cells that span one column, rows from those that span one row: a plain grid.
  if (table.cells.some((cell) => cell.colSpan !== 1 || cell.rowSpan !== 1)) return table;
  const columns = Array.from({ length: table.numCols }, (_, col) => {
    const cells = table.cells.filter((cell) => cell.col === col);
    return { x1: Math.min(...cells.map((c) => c.box.x1)), x2: Math.max(...cells.map((c) => c.box.x2)) };
  });
  // Each row's text bottom, to measure the pitch the rows keep.
  const bottoms: number[] = [];
  for (let row = 0; row < table.numRows; row++) {
    const cells = table.cells.filter((cell) => cell.row === row);
    const inRow = cells.flatMap((cell) => runsIn(runs, cell.box));
    if (inRow.length === 0) return table;
    bottoms.push(Math.max(...inRow.map((r) => r.box.y2)));
  }
  const steps = bottoms.slice(1).map((b, k) => b - bottoms[k]);
  const pitch = [...steps].sort((a, b) => a - b)[Math.floor(steps.length / 2)];
  if (!(pitch > 0) || steps.some((step) => Math.abs(step - pitch) > pitch * PITCH_SLACK)) return table;
  const last = bottoms[bottoms.length - 1];
  const below = runsIn(runs, {
    x1: table.box.x1,
    y1: table.box.y2,
    x2: table.box.x2,
    y2: last + pitch * (1 + PITCH_SLACK),
  });
  if (below.length === 0) return table;
  // One line: every run overlaps the others' height, its bottom one pitch under the last row's.
  const bottom = Math.max(...below.map((r) => r.box.y2));
  if (below.some((r) => r.box.y1 > Math.min(...below.map((o) => o.box.y2)))) return table;
  if (Math.abs(bottom - last - pitch) > pitch * PITCH_SLACK) return table;
  // Each word inside one column, most columns filled.
  const byColumn = columns.map((c) => below.filter((r) => r.box.x1 >= c.x1 - 1 && r.box.x2 <= c.x2 + 1));
  if (byColumn.reduce((sum, list) => sum + list.length, 0) !== below.length) return table;
  const filled = byColumn.filter((list) => list.length > 0).length;
  if (filled < 2 || filled * 4 < table.numCols * 3) return table;
  const y1 = table.box.y2;
  const y2 = bottom + 1;
  const cells = columns.map((c, col) => ({
    row: table.numRows,
    col,
    rowSpan: 1,
    colSpan: 1,
    text: byColumn[col].length > 0 ? cellText(byColumn[col].map(runPiece)) : "",
    box: { x1: c.x1, y1, x2: c.x2, y2 },
    columnHeader: false,
    rowHeader: table.cells.some((cell) => cell.col === col && cell.row > 0 && cell.rowHeader),
  }));
  return {
    ...table,
    box: { ...table.box, y2 },
    numRows: table.numRows + 1,
    cells: [...table.cells, ...cells],
  };
}
