import type { Box } from "../model.ts";
import { box, type TextRun } from "../paginated/geometry.ts";
import { median } from "../statistics.ts";

/** A vertical gap of this share of the line height between two lines is a blank line: a new block. */
const BLANK = 0.8;

/** A column's lines, top to bottom, its blank gaps (between blocks of lines), its block sizes and line height. */
interface ColumnBlocks {
  lines: Box[];
  gaps: { y1: number; y2: number }[];
  sizes: number[];
  height: number;
}

function columnBlocks(runs: readonly TextRun[]): ColumnBlocks {
  const sorted = [...runs].sort((a, b) => a.box.y1 - b.box.y1);
  const lines: Box[] = [];
  for (const run of sorted) {
    const last = lines[lines.length - 1];
    const overlap = last ? box.overlapY(last, run.box) : 0;
    if (last && overlap > 0.5 * Math.min(box.height(last), box.height(run.box)))
      lines[lines.length - 1] = box.union([last, run.box]);
    else lines.push({ ...run.box });
  }
  const height = median(lines.map((line) => box.height(line)));
  const gaps: { y1: number; y2: number }[] = [];
  const sizes = lines.length > 0 ? [1] : [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].y1 - lines[i - 1].y2 > BLANK * height) {
      gaps.push({ y1: lines[i - 1].y2, y2: lines[i].y1 });
      sizes.push(0);
    }
    sizes[sizes.length - 1]++;
  }
  return { lines, gaps, sizes, height };
}

/** The share of `a`'s blank gaps that `b` leaves blank too (no line of `b` reaches well into the gap). */
function sharedBlanks(a: ColumnBlocks, b: ColumnBlocks): number {
  if (a.gaps.length === 0) return 1;
  const margin = 0.25 * Math.max(a.height, b.height);
  const blank = a.gaps.filter(
    (gap) => !b.lines.some((line) => line.y1 < gap.y2 - margin && line.y2 > gap.y1 + margin),
  );
  return blank.length / a.gaps.length;
}

/**
 * Whether the columns of a ruled band are lists of their own rather than the columns of one table: every column
 * falls into three blocks or more of several lines each (a title and its entries), set apart by blank lines, and
 * two neighbouring columns mostly have text where the other leaves a blank line, either way round (an election
 * bulletin's contests, four columns of them in one frame, each contest as long as its candidates). A table's
 * blank lines run across its columns: a group's blank line is blank in every column, and a row label's column
 * that runs on through its group headings still leaves the blank lines of the groups blank.
 * `columns` holds the runs of each ruled column of the band.
 */
export function listColumns(columns: readonly (readonly TextRun[])[]): boolean {
  if (columns.length < 2) return false;
  const blocks = columns.map(columnBlocks);
  if (blocks.some((b) => b.sizes.length < 3 || median(b.sizes) < 2)) return false;
  for (let c = 1; c < blocks.length; c++) {
    const [a, b] = [blocks[c - 1], blocks[c]];
    if (sharedBlanks(a, b) < 0.5 && sharedBlanks(b, a) < 0.5) return true;
  }
  return false;
}
