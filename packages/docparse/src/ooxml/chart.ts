import type { TableCell } from "../model.ts";
import { formatNumber } from "./number-format.ts";
import { child, childrenNamed, descendants, elements, textOf, type XmlElement } from "./xml.ts";

/**
 * A DrawingML chart part (`c:chartSpace`) read as data: its type, its title, and one table with the categories
 * down the first column and one column per series, from the values cached in the chart.
 */
export interface ChartData {
  /** `bar`, `line`, `pie`, `scatter`... (the plot element without `Chart`), several joined by `+`. */
  type: string;
  title: string | null;
  numRows: number;
  numCols: number;
  cells: TableCell[];
}

function cache(node: XmlElement | undefined): string[] {
  const out: string[] = [];
  const source = node
    ? (descendants(node, "strCache")[0] ??
      descendants(node, "numCache")[0] ??
      descendants(node, "strLit")[0] ??
      descendants(node, "numLit")[0])
    : undefined;
  if (!source) return out;
  const format = textOf(child(source, "formatCode") ?? { name: "", attrs: {}, children: [] });
  for (const point of childrenNamed(source, "pt")) {
    const raw = textOf(child(point, "v") ?? point);
    const value = Number(raw);
    const pointFormat = point.attrs.formatCode ?? format;
    out[Number(point.attrs.idx ?? out.length)] =
      source.name.startsWith("num") && raw !== "" && Number.isFinite(value)
        ? formatNumber(value, pointFormat)
        : raw;
  }
  return out;
}

function cell(row: number, col: number, text: string, header: boolean): TableCell {
  return {
    row,
    col,
    rowSpan: 1,
    colSpan: 1,
    text,
    columnHeader: header && row === 0,
    rowHeader: false,
    bbox: null,
  };
}

/** The chart of a chart part, or null when it has no plot area. */
export function readChart(root: XmlElement): ChartData | null {
  const chart = child(root, "chart");
  const plot = child(chart, "plotArea");
  if (!chart || !plot) return null;
  const titleNode = child(chart, "title");
  const title = titleNode
    ? descendants(titleNode, "t")
        .map((node) => textOf(node))
        .join("")
        .trim() || null
    : null;
  const plots = elements(plot).filter((node) => node.name.endsWith("Chart"));
  const type = plots.map((node) => node.name.replace(/Chart$/, "")).join("+") || "unknown";
  const series: { name: string; categories: string[]; values: string[] }[] = [];
  for (const group of plots) {
    for (const ser of childrenNamed(group, "ser")) {
      const name = cache(child(ser, "tx"))[0] ?? textOf(child(ser, "tx") ?? ser).trim();
      const categories = cache(child(ser, "cat") ?? child(ser, "xVal"));
      const values = cache(child(ser, "val") ?? child(ser, "yVal"));
      series.push({ name: name || `Series ${series.length + 1}`, categories, values });
    }
  }
  const categories = series.find((entry) => entry.categories.length > 0)?.categories ?? [];
  const rows = Math.max(categories.length, ...series.map((entry) => entry.values.length), 0);
  const cells: TableCell[] = [cell(0, 0, "", true)];
  series.forEach((entry, index) => {
    cells.push(cell(0, index + 1, entry.name, true));
  });
  for (let row = 0; row < rows; row++) {
    cells.push(cell(row + 1, 0, categories[row] ?? String(row + 1), false));
    series.forEach((entry, index) => {
      cells.push(cell(row + 1, index + 1, entry.values[row] ?? "", false));
    });
  }
  return { type, title, numRows: rows + 1, numCols: series.length + 1, cells };
}
