import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import {
  type Box,
  type ChartData,
  type DocItem,
  type DocumentModel,
  type FigureItem,
  itemText,
} from "../model.ts";
import { box, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { barCharts } from "./bar-chart.ts";
import { ALIGN, type ChartReading, MIN_AXIS_LABELS, minOf, transpose, transposeBox } from "./chart-axis.ts";
import { lineCharts } from "./line-chart.ts";
import { parseNumber } from "./table-summary.ts";

/**
 * Bar and line charts drawn as vector graphics on a PDF page (what office suites write when they export a chart),
 * read back into numbers. The evidence is what the PDF engine gives: bars are filled rectangles standing on (or
 * hanging from) one baseline, lines are open stroked paths running left to right, the value axis is a column of
 * numeric labels whose positions map linearly to their values, the categories are the labels along the other
 * axis, and the legend is small markers each followed by a series name. A bar's value is its far end read
 * through the value axis, a line's its height at a category's label. Horizontal bars are read on the transposed
 * page. Stacked bars, pies, and lines drawn as markers only are not read: a chart whose series cannot be told
 * apart is left alone rather than reported with wrong numbers.
 */

export interface FoundChart {
  /** The chart's area on the page: bars, axis labels, legend, title. */
  box: Box;
  data: ChartData;
}

/** Legend entries near a chart: a small marker followed by a name, in reading order (original coordinates). */
function legendNames(
  page: PageGeometry,
  chart: Box,
  bars: readonly Box[],
): { names: string[]; box: Box | null } {
  const reach = Math.max(box.width(chart), box.height(chart)) * 0.6;
  const near = (b: Box) =>
    b.x1 >= chart.x1 - reach &&
    b.x2 <= chart.x2 + reach &&
    b.y1 >= chart.y1 - reach &&
    b.y2 <= chart.y2 + reach;
  const markers = [...page.rects, ...(page.drawings ?? [])].filter((m) => {
    const w = box.width(m);
    const h = box.height(m);
    return (
      w >= 2 &&
      h >= 2 &&
      w <= 16 &&
      h <= 16 &&
      Math.max(w, h) / Math.min(w, h) <= 3 &&
      near(m) &&
      !bars.includes(m)
    );
  });
  const entries: { run: TextRun; marker: Box }[] = [];
  for (const marker of markers) {
    const run = page.runs.find(
      (r) =>
        r.box.x1 >= marker.x2 - ALIGN &&
        r.box.x1 - marker.x2 <= 16 &&
        box.verticalOverlap(r.box, marker) > 0.3 &&
        parseNumber(r.text) === null,
    );
    if (run && !entries.some((entry) => entry.run === run)) entries.push({ run, marker });
  }
  entries.sort((p, q) => p.run.box.y1 - q.run.box.y1 || p.run.box.x1 - q.run.box.x1);
  if (entries.length === 0) return { names: [], box: null };
  return {
    names: entries.map((entry) => entry.run.text.trim()),
    box: box.union(entries.flatMap((entry) => [entry.run.box, entry.marker])),
  };
}

/** The chart's title: the nearest line of text above it, when close (original coordinates). */
function titleAbove(page: PageGeometry, chart: Box, exclude: ReadonlySet<TextRun>): TextRun | null {
  const above = page.runs.filter(
    (run) =>
      !exclude.has(run) &&
      run.box.y2 <= chart.y1 + ALIGN &&
      box.centerX(run.box) >= chart.x1 &&
      box.centerX(run.box) <= chart.x2 &&
      chart.y1 - run.box.y2 <= run.fontSize * 2.5,
  );
  return above.sort((p, q) => q.box.y2 - p.box.y2)[0] ?? null;
}

/** Axis titles: text just outside the chart's area, beside or below it (original coordinates). */
function axisTitles(
  page: PageGeometry,
  chart: Box,
  exclude: ReadonlySet<TextRun>,
  fontSize: number,
): TextRun[] {
  const pad = Math.min(fontSize * 3, 24);
  return page.runs.filter(
    (run) =>
      !exclude.has(run) &&
      box.containsCenter(
        { x1: chart.x1 - pad, y1: chart.y1, x2: chart.x2 + pad, y2: chart.y2 + pad },
        run.box,
      ) &&
      !box.containsCenter(chart, run.box) &&
      run.text.length <= 60,
  );
}

/**
 * The bar and line charts drawn on a page, with their data.
 *
 * @example
 * const charts = findCharts(await extractPdfPage(doc, 1));
 * charts[0].data.series[0].values; // [120, 135, 150]
 */
function valuesRead(data: ChartReading["data"]): number {
  return data.series.reduce((sum, entry) => sum + entry.values.filter((value) => value !== null).length, 0);
}

export function findCharts(page: PageGeometry): FoundChart[] {
  const found: FoundChart[] = [];
  // Every reading of the page; where two claim the same area, the one explaining more marks is the chart.
  const readings = [
    ...[false, true].flatMap((horizontal) =>
      barCharts(horizontal ? transpose(page) : page).map((chart) => ({ chart, horizontal })),
    ),
    ...lineCharts(page).map((chart) => ({ chart, horizontal: false })),
  ].sort((p, q) => valuesRead(q.chart.data) - valuesRead(p.chart.data));
  const claimed: Box[] = [];
  for (const { chart, horizontal } of readings) {
    {
      const area = horizontal ? transposeBox(chart.box) : chart.box;
      const bars = chart.marks.map((mark) => (horizontal ? transposeBox(mark) : mark));
      if (claimed.some((other) => box.intersection(other, area) > 0)) continue;
      claimed.push(area);
      const data: ChartData = { ...chart.data, title: null };
      // Horizontal charts list their first category at the bottom, and their series bottom to top.
      if (horizontal) {
        data.categories.reverse();
        data.series = data.series.reverse().map((entry) => ({ ...entry, values: entry.values.reverse() }));
      }
      const legend = legendNames(page, area, bars);
      // A horizontal chart's legend lists its series top to bottom as the bars stack, last series first.
      if (horizontal) legend.names.reverse();
      if (legend.names.length === data.series.length) {
        data.series.forEach((entry, i) => {
          entry.name = legend.names[i];
        });
      }
      const inChart = new Set(page.runs.filter((run) => box.containsCenter(area, run.box)));
      const title = titleAbove(page, legend.box ? box.union([area, legend.box]) : area, inChart);
      if (title) data.title = title.text.trim();
      const labelSize = Math.min(minOf([...inChart].map((run) => run.fontSize)), 12);
      const parts = [area, ...(legend.box ? [legend.box] : []), ...(title ? [title.box] : [])];
      const titles = axisTitles(
        page,
        box.union(parts),
        new Set([...inChart, ...(title ? [title] : [])]),
        labelSize,
      );
      found.push({ box: box.union([...parts, ...titles.map((run) => run.box)]), data });
    }
  }
  return found;
}

/** Items whose boxes lie inside `area` on `page`: the chart's labels the layout read as text. */
function labelsInside(items: readonly DocItem[], page: number, area: Box): Set<DocItem> {
  const grown = { x1: area.x1 - 2, y1: area.y1 - 2, x2: area.x2 + 2, y2: area.y2 + 2 };
  const inside = new Set<DocItem>();
  for (const item of items) {
    // Furniture inside a chart (an axis label taken for a page number) is the chart's too.
    if (item.label === "table" || item.label === "figure") continue;
    const provs = item.prov;
    if (
      provs.length > 0 &&
      provs.every(
        (p) =>
          p.page === page &&
          p.bbox &&
          p.bbox.x1 >= grown.x1 &&
          p.bbox.y1 >= grown.y1 &&
          p.bbox.x2 <= grown.x2 &&
          p.bbox.y2 <= grown.y2,
      )
    )
      inside.add(item);
  }
  return inside;
}

/** Numbers items in order again after some were added or removed, keeping joined tables' references. */
function renumber(model: DocumentModel, items: DocItem[]): void {
  const ids = new Map<string, string>();
  items.forEach((item, index) => {
    const id = `#/items/${index}`;
    if (item.id) ids.set(item.id, id);
    item.id = id;
    item.readingOrder = index;
  });
  model.items = items;
  for (const group of model.mergedTables ?? []) group.itemIds = group.itemIds.map((id) => ids.get(id) ?? id);
}

/**
 * Adds the bar charts drawn on the model's PDF pages: each becomes a figure with its chart data, in place of the
 * text items the layout made of its labels; a figure already covering the chart takes the data instead.
 */
export async function addVectorCharts(model: DocumentModel, pdf: PDFDocumentProxy): Promise<void> {
  // Only pages whose text holds a value axis's worth of numbers are read again (a chart's labels are text the
  // layout kept, as paragraphs, furniture or table cells).
  const numbers = new Map<number, number>();
  for (const item of model.items) {
    const page = item.prov[0]?.page;
    if (page === undefined) continue;
    const count = itemText(item)
      .split(/\s+/)
      .filter((token) => parseNumber(token) !== null).length;
    numbers.set(page, (numbers.get(page) ?? 0) + count);
  }
  const pages = [...numbers].filter(([, count]) => count >= MIN_AXIS_LABELS).map(([page]) => page);
  let items = [...model.items];
  let changed = false;
  for (const pageNumber of pages.sort((p, q) => p - q)) {
    if (pageNumber < 1 || pageNumber > pdf.numPages) continue;
    let geometry: PageGeometry;
    try {
      geometry = await extractPdfPage(pdf, pageNumber);
    } catch (error) {
      model.warnings.push(`Charts on page ${pageNumber} could not be read: ${(error as Error).message}`);
      continue;
    }
    for (const chart of findCharts(geometry)) {
      const existing = items.find(
        (item): item is FigureItem =>
          item.label === "figure" &&
          item.prov[0]?.page === pageNumber &&
          !!item.prov[0].bbox &&
          box.iou(item.prov[0].bbox, chart.box) > 0.5,
      );
      if (existing) {
        existing.chartData ??= chart.data;
        continue;
      }
      // Where the layout found a table, the table stands: ruled cells with numbers are not a chart to redraw.
      const center = {
        x1: box.centerX(chart.box),
        y1: box.centerY(chart.box),
        x2: box.centerX(chart.box),
        y2: box.centerY(chart.box),
      };
      const overTable = items.some(
        (item) =>
          item.label === "table" &&
          item.prov.some((p) => p.page === pageNumber && p.bbox && box.containsCenter(p.bbox, center)),
      );
      if (overTable) continue;
      const labels = labelsInside(items, pageNumber, chart.box);
      const figure = {
        id: "",
        readingOrder: 0,
        label: "figure",
        caption: chart.data.title,
        source: null,
        chart: { type: chart.data.chartType, title: chart.data.title },
        chartData: chart.data,
        furniture: false,
        prov: [{ page: pageNumber, bbox: box.round(chart.box), charSpan: null }],
      } satisfies FigureItem;
      let at = items.findIndex((item) => labels.has(item));
      if (at < 0) {
        at = items.findIndex((item) => {
          const p = item.prov[0];
          return (
            p &&
            (p.page > pageNumber || (p.page === pageNumber && p.bbox !== null && p.bbox.y1 >= chart.box.y1))
          );
        });
      }
      if (at < 0) at = items.length;
      const before = items.slice(0, at).filter((item) => !labels.has(item));
      const after = items.slice(at).filter((item) => !labels.has(item));
      items = [...before, figure, ...after];
      changed = true;
    }
  }
  if (changed) renumber(model, items);
}
