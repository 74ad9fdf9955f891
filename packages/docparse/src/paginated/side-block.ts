import type { Box } from "../model.ts";

/**
 * A block of three lines or more in one size sharing an edge (a sender's address set flush right at a letter's top)
 * beside a single line (the sender's name on the left) that stands level with one of the block's later lines, not
 * its first. One line is otherwise no column, and the region would be cut across under the block's first line and
 * read row by row, the name between the address's first line and the rest (`Street 15`, `Philipp Maier`, `1234AB
 * G-Town`). Read as two columns, the line and the block each stay whole.
 */

/** Edges this close, in the block's line heights, are one edge. */
const EDGE = 0.25;
/** The least gap, in the block's line heights, between the single line and a line of the block level with it. */
const GUTTER = 2;

/** Whether the two parts side by side (their text boxes, left to right) are a single line beside such a block. */
export function blockBesideLine(parts: readonly (readonly Box[])[]): boolean {
  if (parts.length !== 2) return false;
  const rows = parts.map(rowsOf);
  const single = rows.findIndex((r) => r.length === 1);
  const block = 1 - single;
  if (single < 0 || rows[block].length < 3) return false;
  const line = rows[single][0];
  const [first, ...later] = rows[block];
  // Level with a later line of the block, wholly under its first: a cut across would part the first line.
  const level = later.filter((row) => Math.min(row.y2, line.y2) > Math.max(row.y1, line.y1));
  if (first.y2 > line.y1 || level.length === 0) return false;
  // Apart from the lines level with it by a gutter, not a word space: the rest of a line of the block (`…, Fax. :
  // 052-237-3311` after a list item's comma) is no column.
  const apart = (row: Box) =>
    (single === 0 ? row.x1 - line.x2 : line.x1 - row.x2) >= (row.y2 - row.y1) * GUTTER;
  return level.every(apart) && oneSize(rows[block]) && sharedEdge(rows[block]);
}

/** The lines are set in one size: none a third taller than another (a title under a letterhead's lines is not). */
function oneSize(rows: readonly Box[]): boolean {
  const heights = rows.map((r) => r.y2 - r.y1);
  return Math.max(...heights) <= Math.min(...heights) * 1.3;
}

/** The lines of a part: its boxes merged where their heights overlap, top to bottom. */
function rowsOf(boxes: readonly Box[]): Box[] {
  const rows: Box[] = [];
  for (const b of [...boxes].sort((p, q) => p.y1 - q.y1)) {
    const last = rows.at(-1);
    const height = Math.min(b.y2 - b.y1, last ? last.y2 - last.y1 : 0);
    if (last && Math.min(last.y2, b.y2) - Math.max(last.y1, b.y1) > height * 0.5)
      rows[rows.length - 1] = {
        x1: Math.min(last.x1, b.x1),
        y1: Math.min(last.y1, b.y1),
        x2: Math.max(last.x2, b.x2),
        y2: Math.max(last.y2, b.y2),
      };
    else rows.push({ ...b });
  }
  return rows;
}

/** The lines start at one x, or end at one x (set flush left or flush right). */
function sharedEdge(rows: readonly Box[]): boolean {
  const height = Math.min(...rows.map((r) => r.y2 - r.y1));
  const within = (values: number[]) => Math.max(...values) - Math.min(...values) <= height * EDGE;
  return within(rows.map((r) => r.x1)) || within(rows.map((r) => r.x2));
}
