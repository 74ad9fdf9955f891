import { BULLET, BULLETED } from "./bullet-marks.ts";
import type { DetectedTable } from "./geometry.ts";

type Cell = DetectedTable["cells"][number];

/**
 * Whether a table found from aligned text is lists set side by side (a slide's text boxes in a row, each a bulleted
 * list) rather than a table: one of its columns holds nothing but bulleted items, at least two, under at most a
 * label of its own in the table's first row (`Items` over `• Milk`, `• Eggs`), each item either a cell that begins
 * with its mark or a mark alone with its item's text beginning just after it (within an em and a half) in the
 * next column of its row. A table's marks (● and ○ for yes and no) stand alone, centred in
 * columns of their own away from the cell beside them; a ruled table keeps its grid whatever its cells hold.
 */
export function sideBySideLists(table: DetectedTable): boolean {
  if (table.method !== "aligned") return false;
  const nextOf = (cell: Cell) =>
    table.cells.find((other) => other.row === cell.row && other.col === cell.col + cell.colSpan);
  const item = (cell: Cell) => {
    const text = cell.text.trim();
    if (BULLETED.test(text)) return true;
    if (!BULLET.test(text)) return false;
    const next = nextOf(cell);
    if (!next || next.text.trim() === "") return false;
    const em = cell.box.y2 - cell.box.y1;
    const gap = next.box.x1 - cell.box.x2;
    return gap >= -1 && gap <= 1.5 * em;
  };
  const firstRow = Math.min(...table.cells.map((cell) => cell.row));
  for (let col = 0; col < table.numCols; col++) {
    const cells = table.cells.filter((cell) => cell.col === col && cell.text.trim() !== "");
    const items = cells.filter((cell) => !(cell.row === firstRow && !item(cell)));
    if (items.length >= 2 && items.every(item)) return true;
  }
  return false;
}
