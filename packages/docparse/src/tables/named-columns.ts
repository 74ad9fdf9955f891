import { groupLines, type Region, type TextPiece } from "./cells.ts";

/**
 * Whether a ruled grid's first row names each of its columns: one cell per column, every one holding a short
 * bold label on one line (`Do's` over `Don'ts`, `Before` over `After`). Such a header is table evidence: the
 * paragraphs or lists under it are the columns' entries, however long, not boxes laid out side by side.
 */
export function namedColumns(
  regions: readonly Region[],
  contents: readonly TextPiece[][],
  cols: number,
): boolean {
  if (cols < 2) return false;
  const head = regions.flatMap((region, i) => (region.row === 0 ? [{ region, pieces: contents[i] }] : []));
  if (head.length !== cols || regions.length <= cols) return false;
  return head.every(({ region, pieces }) => {
    if (region.rowSpan !== 1 || region.colSpan !== 1 || pieces.length === 0) return false;
    if (!pieces.every((p) => p.bold)) return false;
    const words = pieces.reduce((n, p) => n + p.text.trim().split(/\s+/).length, 0);
    return words <= 4 && groupLines(pieces).length === 1;
  });
}
