/**
 * A DrawingML table (`a:tbl`, a slide's table) as the document model's cells: merged cells with their spans,
 * empty cells kept in place, header cells from the table style's flags.
 */
import type { TableCell } from "../model.ts";
import { child, childrenNamed, descendants, textOf, type XmlElement } from "./xml.ts";

const isOn = (value: string | undefined) => value === "1" || value === "true";

/** A cell's look: whether all its runs are bold (null without text), and its own fill colour. */
interface Look {
  bold: boolean | null;
  fill: string | null;
}

function lookOf(tc: XmlElement): Look {
  const runs = descendants(child(tc, "txBody") ?? tc, "r").filter((r) => textOf(r).trim() !== "");
  const fill = child(child(tc, "tcPr"), "solidFill");
  const color = fill && (child(fill, "srgbClr") ?? child(fill, "schemeClr"));
  return {
    bold: runs.length === 0 ? null : runs.every((r) => isOn(child(r, "rPr")?.attrs.b)),
    fill: color?.attrs.val?.toLowerCase() ?? null,
  };
}

/** Whether the cells of `group` look unlike the `rest`: all bold among unbolded, or a fill of their own. */
function standsOut(group: Look[], rest: Look[]): boolean {
  if (group.length === 0 || rest.length === 0) return false;
  const texts = group.filter((look) => look.bold !== null);
  const bold =
    texts.length > 0 && texts.every((look) => look.bold) && rest.some((look) => look.bold === false);
  const fill = group[0].fill;
  const ownFill =
    fill !== null && group.every((look) => look.fill === fill) && rest.every((look) => look.fill !== fill);
  return bold || ownFill;
}

/**
 * Which rows and columns are headers. PowerPoint writes the style options on `a:tblPr` (`firstRow`,
 * `firstCol`; absent means off) beside the style's id. LibreOffice (7.x) writes a bare `a:tblPr`, the options
 * lost, and the style applied as each cell's own formatting: there the first row (column) is a header when its
 * cells stand out from the body's by bold text or a fill of their own.
 */
function headerFlags(table: XmlElement, grid: XmlElement[][]): { firstRow: boolean; firstCol: boolean } {
  const tblPr = child(table, "tblPr");
  const styled =
    tblPr !== undefined &&
    (child(tblPr, "tableStyleId") !== undefined ||
      ["firstRow", "firstCol", "lastRow", "lastCol", "bandRow", "bandCol"].some(
        (flag) => flag in tblPr.attrs,
      ));
  if (styled) return { firstRow: isOn(tblPr.attrs.firstRow), firstCol: isOn(tblPr.attrs.firstCol) };
  const looks = grid.map((cells) => cells.map(lookOf));
  const firstRow = standsOut(
    looks[0] ?? [],
    looks.slice(1).flatMap((cells) => cells.slice(1)),
  );
  const body = looks.slice(firstRow ? 1 : 0);
  const firstCol = standsOut(
    body.flatMap((cells) => cells.slice(0, 1)),
    body.flatMap((cells) => cells.slice(1)),
  );
  return { firstRow, firstCol };
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
  const grid = rows.map((tr) => childrenNamed(tr, "tc"));
  const { firstRow, firstCol } = headerFlags(table, grid);
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
