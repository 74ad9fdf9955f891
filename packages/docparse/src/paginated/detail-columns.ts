import type { Box } from "../model.ts";
import { box } from "./geometry.ts";
import { type OptionText, onBaseline } from "./option-columns.ts";

/**
 * A column of details set at the right of entries: a CV's school on the left and, on its baseline at the
 * right, the degree (`北京师范大学珠海分校` … `计算机科学与技术 本科`), a course and its provider, a role and its
 * dates. The gutter between them runs down the whole section, so column by column every detail would be read
 * after the last entry, away from its own. They are read along the rows instead when the right column is only
 * such details: each a single line on the baseline of a left line, no two of them lines of one paragraph (a
 * margin note of several lines is a column of its own), each pair with a left line between them, and each
 * facing a left line that stands apart from the lines above and below it (another size, or more than a line's
 * height away): an entry's name, not a line inside a paragraph, which a margin note level with it must not cut.
 */

/** Heights differing by more than this share are lines of different sizes. */
const OTHER_SIZE = 0.12;

interface Row {
  box: Box;
}

/** Elements grouped into rows standing on one baseline, top to bottom, each as the union of its boxes. */
function rowsOf(elements: readonly OptionText[]): Row[] {
  const rows: Box[][] = [];
  for (const e of [...elements].sort((a, b) => a.box.y2 - b.box.y2)) {
    const last = rows.at(-1);
    if (last && onBaseline(last[0], e.box)) last.push(e.box);
    else rows.push([e.box]);
  }
  return rows.map((boxes) => ({ box: box.union(boxes) }));
}

const height = (row: Row) => row.box.y2 - row.box.y1;

/** Whether `row` stands apart from `other` (the left line above or below it): another size, or a line away. */
function apart(row: Row, other: Row | undefined): boolean {
  if (!other) return true;
  const gap = Math.max(other.box.y1 - row.box.y2, row.box.y1 - other.box.y2);
  return (
    Math.abs(height(row) - height(other)) > Math.max(height(row), height(other)) * OTHER_SIZE ||
    gap > height(row)
  );
}

/** Whether two columns (the text of each, in reading order) are entries and the details on their baselines. */
export function detailColumns(parts: readonly (readonly OptionText[])[]): boolean {
  if (parts.length !== 2 || parts.some((part) => part.length === 0)) return false;
  const left = rowsOf(parts[0]);
  const right = rowsOf(parts[1]);
  if (right.length < 2) return false;
  for (let i = 0; i < right.length; i++) {
    const row = right[i];
    const facing = left.findIndex((l) => onBaseline(l.box, row.box));
    if (facing < 0 || !apart(left[facing], left[facing - 1]) || !apart(left[facing], left[facing + 1]))
      return false;
    const next = right[i + 1];
    if (!next) continue;
    // Not two lines of one paragraph, and an entry of the left column between the two.
    if (next.box.y1 - row.box.y2 < height(row)) return false;
    if (!left.some((l) => l.box.y1 >= row.box.y2 && l.box.y2 <= next.box.y1)) return false;
  }
  return true;
}
