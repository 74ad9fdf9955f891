import type { Box } from "../model.ts";
import { box } from "./geometry.ts";

/** Bottoms this close (a share of the smaller height) stand on one baseline. */
const BASELINE_TOLERANCE = 0.2;

/**
 * Whether a strip too narrow to be a column, set after a column along the line, is a column of labels of its
 * own rather than part of that column's lines. A strip of a column's own pieces (page numbers of a table of
 * contents, amounts, bullets) stands on the baselines of the column's lines; labels beside a text (the words
 * drawn on the pictures next to numbered steps) stand off them, placed by the pictures, not by the lines, and
 * merging them into the column would set each label inside the paragraph it happens to face. Two labels at
 * least, and none on a baseline of the column.
 */
export function labelStrip(strip: readonly Box[], column: readonly Box[]): boolean {
  if (strip.length < 2 || column.length === 0) return false;
  return strip.every(
    (label) =>
      !column.some((line) => {
        const overlap = box.overlapY(label, line);
        const smaller = Math.min(label.y2 - label.y1, line.y2 - line.y1);
        return overlap > 0 && Math.abs(label.y2 - line.y2) <= smaller * BASELINE_TOLERANCE;
      }),
  );
}
