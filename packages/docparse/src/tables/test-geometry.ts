import type { DetectedTable, TextRun } from "../paginated/geometry.ts";
import { textRun } from "../paginated/test-geometry.ts";

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
