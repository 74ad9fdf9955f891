import type { Box } from "../model.ts";
import { box } from "./geometry.ts";

/**
 * Whether a strip too narrow to be a column holds lines of its own: on two lines or more, a small mark and a
 * piece of text after it along the line (a bulleted list in a narrow text box: `• I1`, `• I2`), drawn within the
 * strip. A strip of another column's pieces (bullets, line numbers, a table of contents' page numbers) has one
 * piece to a line, its text standing across the gutter; a strip with its marks and items together is a column,
 * and merging it into a neighbour would read its items across, one line of each box after the other.
 */
export function narrowList(strip: readonly Box[]): boolean {
  if (strip.length < 4) return false;
  let marked = 0;
  for (const mark of strip) {
    const height = mark.y2 - mark.y1;
    // A mark is about as wide as it is high, or narrower.
    if (height <= 0 || mark.x2 - mark.x1 > height * 1.2) continue;
    const item = strip.some((other) => {
      if (other === mark || other.x1 < mark.x2 - 0.5) return false;
      const overlap = box.overlapY(mark, other);
      return overlap > 0.5 * Math.min(height, other.y2 - other.y1) && other.x1 - mark.x2 <= height * 1.5;
    });
    if (item) marked++;
  }
  return marked >= 2;
}
