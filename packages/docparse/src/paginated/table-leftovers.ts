import { box, type DetectedTable, type TextRun } from "./geometry.ts";

/**
 * The text layer is never dropped, not even under a table. A run inside a table's box is left to the table
 * only when the table's cells hold its text; a run the table left out (a row its detector could not place, a
 * line overlapping a taller title beside it) is read as text in its place instead of disappearing.
 */

/** Letters and digits of a text, lower case: what a cell and a run are compared by. */
function letters(text: string): string {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).join("");
}

/** Whether a run is read by one of the tables: its centre in the table's box and its text in the table's cells. */
export function tableReader(tables: DetectedTable[]): (run: TextRun) => boolean {
  const held = tables.map((table) => letters(table.cells.map((cell) => cell.text).join(" ")));
  return (run) =>
    tables.some((table, i) => {
      if (!box.containsCenter(table.box, run.box, 1)) return false;
      const text = letters(run.text);
      return text === "" || held[i].includes(text);
    });
}
