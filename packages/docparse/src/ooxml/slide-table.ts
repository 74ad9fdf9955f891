/**
 * A DrawingML table (`a:tbl`, a slide's table) as the document model's cells: merged cells with their spans,
 * empty cells kept in place, header cells from the table style's flags.
 */
import type { TableCell } from "../model.ts";
import { child, childrenNamed, type XmlElement } from "./xml.ts";

const isOn = (value: string | undefined) => value === "1" || value === "true";

/**
 * Which rows and columns are headers. PowerPoint writes the style options on `a:tblPr` (`firstRow`,
 * `firstCol`; absent means off) beside the style's id. LibreOffice (7.x) writes a bare `a:tblPr`, its header
 * options lost: such a table is read as PowerPoint's default new table, the first row a header.
 */
function headerFlags(tblPr: XmlElement | undefined): { firstRow: boolean; firstCol: boolean } {
  const styled =
    tblPr !== undefined &&
    (child(tblPr, "tableStyleId") !== undefined ||
      ["firstRow", "firstCol", "lastRow", "lastCol", "bandRow", "bandCol"].some(
        (flag) => flag in tblPr.attrs,
      ));
  if (!styled) return { firstRow: true, firstCol: false };
  return { firstRow: isOn(tblPr.attrs.firstRow), firstCol: isOn(tblPr.attrs.firstCol) };
}

/**
 * The table's grid and cells, or null when it has no rows. `cellText` renders one `a:tc`'s text body. Cells
 * covered by a merged cell (`hMerge` / `vMerge`) are left out; every other grid cell is kept, empty or not, at
 * its grid position, with its spans cut to the grid.
 */
export function readSlideTable(
  table: XmlElement,
  cellText: (tc: XmlElement) => string,
): { numRows: number; numCols: number; cells: TableCell[] } | null {
  const rows = childrenNamed(table, "tr");
  if (rows.length === 0) return null;
  const { firstRow, firstCol } = headerFlags(child(table, "tblPr"));
  const gridCols = childrenNamed(child(table, "tblGrid"), "gridCol").length;
  const numCols = Math.max(gridCols, ...rows.map((tr) => childrenNamed(tr, "tc").length));
  const cells: TableCell[] = [];
  rows.forEach((tr, row) => {
    childrenNamed(tr, "tc").forEach((tc, col) => {
      if (isOn(tc.attrs.hMerge) || isOn(tc.attrs.vMerge)) return;
      const span = (value: string | undefined, room: number) =>
        Math.min(Math.max(1, Math.trunc(Number(value ?? 1)) || 1), room);
      cells.push({
        row,
        col,
        rowSpan: span(tc.attrs.rowSpan, rows.length - row),
        colSpan: span(tc.attrs.gridSpan, numCols - col),
        text: cellText(tc),
        columnHeader: firstRow && row === 0,
        rowHeader: firstCol && col === 0,
        bbox: null,
      });
    });
  });
  return { numRows: rows.length, numCols, cells };
}
