import type { DetectedTable } from "../paginated/geometry.ts";

/**
 * OCR glues a short word to the next where the scan leaves them close (`LArm` for `L Arm`, `LLeg` for `L Leg`). In
 * a table's column the words come again in the other cells: a cell of one word that is a cell's first word
 * elsewhere in its column followed by a capitalised word that ends another cell of the column reads as those two
 * words. Only a table read by OCR is looked at, and only such splits, both parts seen apart in the column.
 */

/** The table with the glued words of its cells (see above) set apart. */
export function withGluedWordsApart(table: DetectedTable): DetectedTable {
  const columns = new Map<number, string[][]>();
  for (const cell of table.cells) {
    const words = cell.text.split(/\s+/).filter((w) => w !== "");
    columns.set(cell.col, [...(columns.get(cell.col) ?? []), words]);
  }
  const cells = table.cells.map((cell) => {
    if (/\s/.test(cell.text.trim()) || cell.text.length < 3) return cell;
    const others = (columns.get(cell.col) ?? []).filter((words) => words.length >= 2);
    const firsts = new Set(others.map((words) => words[0]));
    const lasts = new Set(others.map((words) => words[words.length - 1]));
    const text = cell.text.trim();
    for (let i = 1; i < text.length; i++) {
      const [head, tail] = [text.slice(0, i), text.slice(i)];
      if (/^\p{Lu}\p{Ll}/u.test(tail) && firsts.has(head) && lasts.has(tail))
        return { ...cell, text: `${head} ${tail}` };
    }
    return cell;
  });
  return { ...table, cells };
}
