import assert from "node:assert/strict";
import type { Box } from "../model.ts";
import type { DetectedTable, PageGeometry, Rule, TextRun } from "../paginated/geometry.ts";
import { hRule, pageGeometry, textRun, vRule } from "../paginated/test-geometry.ts";

/** What the table tests lay text out with, and read tables back as. */

/** Half an em per character: the width of a run of `n` characters at size `s` is `n * CHAR * s`. */
export const CHAR = 0.5;

/** A run of `text` from (x, y): half an em per character, 1.2 × its font size tall (10 pt by default). */
export function run(text: string, x: number, y: number, options: Partial<TextRun> = {}): TextRun {
  const size = options.fontSize ?? 10;
  return textRun(text, { x1: x, y1: y, x2: x + text.length * CHAR * size, y2: y + 1.2 * size }, options);
}

/** The table as rows of cell texts, a spanning cell's text in its first slot. */
export function grid(table: DetectedTable): string[][] {
  const rows = Array.from({ length: table.numRows }, () => Array<string>(table.numCols).fill(""));
  for (const cell of table.cells) rows[cell.row][cell.col] = cell.text;
  return rows;
}

/** A page of the given runs, rules and filled rectangles, as the ruled-table tests lay them out. */
export function ruledPage(runs: TextRun[], rules: Rule[], rects: Box[] = []): PageGeometry {
  return pageGeometry({ runs, rules, rects });
}

/** The cell of a table at a row and column; fails the test when there is none. */
export function cellAt(table: DetectedTable, row: number, col: number): DetectedTable["cells"][number] {
  const cell = table.cells.find((c) => c.row === row && c.col === col);
  assert.ok(cell, `no cell at ${row},${col}`);
  return cell;
}

/** A grid with columns at `xs` and rows at `ys`, every line drawn in full. */
export function fullGrid(xs: number[], ys: number[]): Rule[] {
  return [
    ...ys.map((y) => hRule(y, xs[0], xs[xs.length - 1])),
    ...xs.map((x) => vRule(x, ys[0], ys[ys.length - 1])),
  ];
}
