import type { ChartData, TableCell } from "../model.ts";
import { formatNumber } from "./number-format.ts";
import { child, childrenNamed, descendants, elements, textOf, type XmlElement } from "./xml.ts";

/**
 * A DrawingML chart part (`c:chartSpace`) read as data: its type, its title, and one table with the categories
 * down the first column and one column per series, from the values cached in the chart.
 */
export interface ChartPart {
  /** `bar`, `line`, `pie`, `scatter`... (the plot element without `Chart`), several joined by `+`. */
  type: string;
  title: string | null;
  numRows: number;
  numCols: number;
  cells: TableCell[];
  /** The same data with its values as numbers, for chart extraction. */
  data: ChartData;
}

function cacheSource(node: XmlElement | undefined): XmlElement | undefined {
  return node
    ? (descendants(node, "strCache")[0] ??
        descendants(node, "numCache")[0] ??
        descendants(node, "strLit")[0] ??
        descendants(node, "numLit")[0])
    : undefined;
}

/** Points of one series at most. */
const MAX_CHART_POINTS = 100_000;

/** A cache's points as numbers (null where a point is missing or not a number). */
function numbers(node: XmlElement | undefined): (number | null)[] {
  const out: (number | null)[] = [];
  const source = cacheSource(node);
  if (!source) return out;
  for (const point of childrenNamed(source, "pt")) {
    const raw = textOf(child(point, "v") ?? point).trim();
    const value = Number(raw);
    const index = Number(point.attrs.idx ?? out.length);
    // A point index past any real chart's size is damage, not data: it would make a huge sparse array.
    if (!Number.isInteger(index) || index < 0 || index >= MAX_CHART_POINTS) continue;
    out[index] = raw !== "" && Number.isFinite(value) ? value : null;
  }
  for (let i = 0; i < out.length; i++) out[i] ??= null;
  return out;
}

function cache(node: XmlElement | undefined): string[] {
  const out: string[] = [];
  const source = cacheSource(node);
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
export function readChart(root: XmlElement): ChartPart | null {
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
  const series: { name: string; categories: string[]; values: string[]; numbers: (number | null)[] }[] = [];
  for (const group of plots) {
    for (const ser of childrenNamed(group, "ser")) {
      const name = cache(child(ser, "tx"))[0] ?? textOf(child(ser, "tx") ?? ser).trim();
      const categories = cache(child(ser, "cat") ?? child(ser, "xVal"));
      const valueNode = child(ser, "val") ?? child(ser, "yVal");
      const values = cache(valueNode);
      series.push({
        name: name || `Series ${series.length + 1}`,
        categories,
        values,
        numbers: numbers(valueNode),
      });
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
  const data: ChartData = {
    chartType: type,
    title,
    categories: Array.from({ length: rows }, (_, row) => categories[row] ?? String(row + 1)),
    series: series.map((entry) => ({
      name: entry.name,
      values: Array.from({ length: rows }, (_, row) => entry.numbers[row] ?? null),
    })),
    origin: "chart_part",
  };
  return { type, title, numRows: rows + 1, numCols: series.length + 1, cells, data };
}
