import type { TextRun } from "./geometry.ts";

/**
 * Pieces of one stretch of text that pdf.js split where the font changes (a formula's `n∈A`: `n` and `A` in the
 * math italic, `∈` in the symbol font), which row grouping put in different rows: each run's height is its own
 * font's, and a row's band follows the runs it took first, so one piece can meet the band and the next miss it.
 * Runs of one size on one baseline, touching end to start, are one line's: a run is moved into the row of a run it
 * touches so, when that row holds more runs than its own. Nothing else sets two runs of one size touching on one
 * baseline, so no other rows change.
 */

/** How far apart two pieces may be, in ems, and still touch; how far apart their baselines may be. */
const TOUCH = 0.05;
/** Sizes within this ratio are one size. */
const SAME_SIZE = 0.05;

function pieces(a: TextRun, b: TextRun): boolean {
  const size = Math.max(a.fontSize, b.fontSize);
  if (Math.abs(a.fontSize - b.fontSize) > SAME_SIZE * size) return false;
  if (Math.abs(a.box.y2 - b.box.y2) > TOUCH * size) return false;
  return Math.abs(b.box.x1 - a.box.x2) <= TOUCH * size || Math.abs(a.box.x1 - b.box.x2) <= TOUCH * size;
}

/** Rows (lists of runs, sorted by their middles) with such pieces moved together; rows left empty are dropped. */
export function joinFontPieces(rows: TextRun[][]): TextRun[][] {
  const moves = new Map<TextRun, number>();
  for (const [index, row] of rows.entries()) {
    for (const run of row) {
      // Only the rows next to this one in middle order can hold a piece that shares its baseline.
      for (const other of [index - 1, index + 1]) {
        const target = rows[other];
        if (!target || target.length <= row.length) continue;
        if (target.some((piece) => pieces(run, piece))) {
          moves.set(run, other);
          break;
        }
      }
    }
  }
  if (moves.size === 0) return rows;
  const out = rows.map((row) => row.filter((run) => !moves.has(run)));
  for (const [run, index] of moves) out[index].push(run);
  return out.filter((row) => row.length > 0);
}
