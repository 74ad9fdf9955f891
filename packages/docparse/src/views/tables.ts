import type { ChartData, TableItem } from "../model.ts";

/** What the renderings read of a table: its size and cells (a model item, or a table joined across pages). */
export type TableGrid = Pick<TableItem, "numRows" | "numCols" | "cells">;

function escapeMarkdownCell(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

/** A cell as GFM table text: its inline markdown when the source had formatting, else its escaped text. */
function cellMarkdown(cell: TableGrid["cells"][number]): string {
  if (cell.markdown === undefined) return escapeMarkdownCell(cell.text);
  return cell.markdown
    .replace(/(?<!\\)\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ")
    .trim();
}

/**
 * The table as a grid of markdown cell texts. Markdown has no spans: a spanning cell's text fills every slot it
 * covers, so each row reads on its own.
 */
function grid(table: TableGrid): string[][] {
  const rows = Array.from({ length: table.numRows }, () => Array<string>(table.numCols).fill(""));
  for (const cell of table.cells) {
    const text = cellMarkdown(cell);
    for (let row = cell.row; row < Math.min(cell.row + cell.rowSpan, table.numRows); row++) {
      for (let col = cell.col; col < Math.min(cell.col + cell.colSpan, table.numCols); col++)
        rows[row][col] = text;
    }
  }
  return rows;
}

/** A GFM table. Markdown needs a header row: the first row serves as one when the table has none. */
export function tableToMarkdown(table: TableGrid): string {
  const rows = grid(table);
  if (rows.length === 0 || table.numCols === 0) return "";
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const [head, ...body] = rows;
  return [line(head), `|${" --- |".repeat(table.numCols)}`, ...body.map(line)].join("\n");
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** An HTML table with row and column spans; header cells are `th`. */
export function tableToHtml(table: TableGrid): string {
  const byRow = new Map<number, TableGrid["cells"]>();
  for (const cell of table.cells) {
    const row = byRow.get(cell.row) ?? [];
    row.push(cell);
    byRow.set(cell.row, row);
  }
  let html = "<table>";
  for (let row = 0; row < table.numRows; row++) {
    html += "<tr>";
    for (const cell of (byRow.get(row) ?? []).sort((a, b) => a.col - b.col)) {
      const tag = cell.columnHeader || cell.rowHeader ? "th" : "td";
      const spans =
        (cell.rowSpan > 1 ? ` rowspan="${cell.rowSpan}"` : "") +
        (cell.colSpan > 1 ? ` colspan="${cell.colSpan}"` : "");
      html += `<${tag}${spans}>${escapeHtml(cell.text)}</${tag}>`;
    }
    html += "</tr>";
  }
  return `${html}</table>`;
}

/** A chart's data as a GFM table: categories down the first column, one column per series. */
export function chartToMarkdown(chart: ChartData): string {
  if (chart.series.length === 0) return chart.title ?? "";
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    line(["", ...chart.series.map((series) => escapeMarkdownCell(series.name))]),
    `|${" --- |".repeat(chart.series.length + 1)}`,
    ...chart.categories.map((category, row) =>
      line([escapeMarkdownCell(category), ...chart.series.map((series) => String(series.values[row] ?? ""))]),
    ),
  ].join("\n");
}
