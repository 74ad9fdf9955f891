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
import { parseNumber } from "./table-summary.ts";

/** Least and greatest of a list of any length (spreading a long list into Math.min overflows the stack). */
const minOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
const maxOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);

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

/** Bars of one chart differ in width by at most this factor. */
const BAR_WIDTH_RATIO = 1.6;
/** Points: how far apart ends may be and still be "on the same line". */
const ALIGN = 1;
/**
 * Pages drawing more rectangles or lines than this are not searched for charts (the search compares them
 * pairwise): a map or a page of vector art, not a chart.
 */
const MAX_RECTS = 3000;
const MAX_LINES = 200;
/** Axis labels a value axis needs at least (three points are needed to tell a linear scale). */
const MIN_AXIS_LABELS = 3;
/** A label may be off the fitted axis by at most this share of the axis's value range. */
const AXIS_FIT = 0.01;

const transposeBox = (b: Box): Box => ({ x1: b.y1, y1: b.x1, x2: b.y2, y2: b.x2 });

function transpose(page: PageGeometry): PageGeometry {
  return {
    ...page,
    width: page.height,
    height: page.width,
    runs: page.runs.map((run) => ({ ...run, box: transposeBox(run.box) })),
    rects: page.rects.map(transposeBox),
    drawings: (page.drawings ?? []).map(transposeBox),
    rules: page.rules.map((rule) => ({
      x1: rule.y1,
      y1: rule.x1,
      x2: rule.y2,
      y2: rule.x2,
      width: rule.width,
      orientation: rule.orientation === "h" ? "v" : "h",
    })),
  };
}

/**
 * Where an axis label points: the gridline or tick mark level with it when there is one (labels are centred on
 * their gridline only to within their font's metrics), else the label's middle.
 */
function labelLevel(page: PageGeometry, run: TextRun): number {
  const middle = box.centerY(run.box);
  const reach = box.height(run.box) / 2;
  let best: number | null = null;
  for (const rule of page.rules) {
    if (rule.orientation !== "h" || Math.abs(rule.y1 - middle) > reach) continue;
    // The rule must reach towards the label: a gridline or a tick beside it.
    const gap = Math.max(rule.x1 - run.box.x2, run.box.x1 - rule.x2, 0);
    if (gap > 12) continue;
    if (best === null || Math.abs(rule.y1 - middle) < Math.abs(best - middle)) best = rule.y1;
  }
  return best ?? middle;
}

/** A least-squares line value = a·y + b through the labels, or null when they do not lie on one. */
function fitAxis(labels: { y: number; value: number }[]): { a: number; b: number } | null {
  const n = labels.length;
  const my = labels.reduce((s, l) => s + l.y, 0) / n;
  const mv = labels.reduce((s, l) => s + l.value, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const l of labels) {
    sxy += (l.y - my) * (l.value - mv);
    sxx += (l.y - my) ** 2;
  }
  if (sxx === 0) return null;
  const a = sxy / sxx;
  const b = mv - a * my;
  const values = labels.map((l) => l.value);
  const range = maxOf(values) - minOf(values);
  if (a === 0 || range === 0) return null;
  if (labels.some((l) => Math.abs(a * l.y + b - l.value) > range * AXIS_FIT)) return null;
  return { a, b };
}

/** Rounds a value read off the axis to a hundredth of the axis's label step, so 119.98 reads as 120. */
function roundToAxis(value: number, step: number): number {
  const unit = 10 ** (Math.floor(Math.log10(Math.abs(step))) - 2);
  return Number((Math.round(value / unit) * unit).toFixed(Math.max(0, -Math.log10(unit))));
}

/** Runs whose x-extents all share one point: a column of right-, left- or centre-aligned labels. */
function sharesColumn(runs: readonly TextRun[]): boolean {
  const left = maxOf(runs.map((run) => run.box.x1));
  const right = minOf(runs.map((run) => run.box.x2));
  return left <= right + ALIGN;
}

interface Bar {
  box: Box;
  /** The end away from the baseline. */
  end: number;
}

/** Vertical bar charts of a page (in its own coordinates; the caller transposes for horizontal ones). */
function verticalBarCharts(page: PageGeometry): { bars: Bar[]; box: Box; data: Omit<ChartData, "title"> }[] {
  if (page.rects.length > MAX_RECTS) return [];
  const candidates = page.rects.filter(
    (r) =>
      box.width(r) >= 1.5 &&
      box.height(r) >= 0.5 &&
      box.width(r) <= page.width * 0.25 &&
      box.height(r) < page.height * 0.9,
  );
  const used = new Set<Box>();
  const out: { bars: Bar[]; box: Box; data: Omit<ChartData, "title"> }[] = [];
  // Baselines: edges shared by several rectangles (bottoms of bars standing on it, tops of bars hanging from
  // it), most shared first.
  const edges = [...new Set(candidates.flatMap((r) => [Math.round(r.y1), Math.round(r.y2)]))]
    .map((y) => ({
      y,
      count: candidates.filter((r) => Math.abs(r.y2 - y) <= ALIGN || Math.abs(r.y1 - y) <= ALIGN).length,
    }))
    .filter((entry) => entry.count >= 2)
    .sort((a, b) => b.count - a.count);
  for (const { y: rough } of edges) {
    const onEdge = candidates.filter(
      (r) => !used.has(r) && (Math.abs(r.y2 - rough) <= ALIGN || Math.abs(r.y1 - rough) <= ALIGN),
    );
    if (onEdge.length < 2) continue;
    const baseline =
      onEdge.reduce((s, r) => s + (Math.abs(r.y2 - rough) <= ALIGN ? r.y2 : r.y1), 0) / onEdge.length;
    const widths = onEdge.map(box.width).sort((a, b) => a - b);
    const typical = widths[Math.floor(widths.length / 2)];
    const similar = (r: Box) =>
      box.width(r) <= typical * BAR_WIDTH_RATIO && box.width(r) >= typical / BAR_WIDTH_RATIO;
    // Bars above the baseline stand on it; bars below it (negative values) hang from it.
    const bars: Bar[] = onEdge
      .filter(similar)
      .map((r) => (Math.abs(r.y2 - baseline) <= ALIGN ? { box: r, end: r.y1 } : { box: r, end: r.y2 }))
      .sort((a, b) => a.box.x1 - b.box.x1);
    if (bars.length < 2) continue;
    // Rectangles all of one length are shading (a table's column, a banner), not bars of a chart.
    const lengths = bars.map((bar) => Math.abs(bar.end - baseline));
    if (maxOf(lengths) - minOf(lengths) <= ALIGN) continue;
    // Bars of one series-per-slot chart never overlap sideways.
    if (bars.some((bar, i) => i > 0 && bar.box.x1 < bars[i - 1].box.x2 - ALIGN)) continue;
    // A segment standing on a bar's top is a stacked chart: not read.
    const stacked = bars.some((bar) =>
      candidates.some(
        (r) =>
          r !== bar.box &&
          Math.abs(r.x1 - bar.box.x1) <= ALIGN &&
          Math.abs(r.x2 - bar.box.x2) <= ALIGN &&
          (Math.abs(r.y2 - bar.box.y1) <= ALIGN || Math.abs(r.y1 - bar.box.y2) <= ALIGN),
      ),
    );
    if (stacked) continue;
    const plot = box.union(bars.map((bar) => bar.box));
    const read = readAxis(page, bars, plot, baseline);
    if (!read) continue;
    for (const bar of bars) used.add(bar.box);
    out.push(read);
  }
  return out;
}

/** A value axis: the labels it was read from, the step between them, and a reader from position to value. */
interface ValueAxis {
  labels: TextRun[];
  low: number;
  high: number;
  step: number;
  /** The value at a position along the axis (y), rounded to the axis's precision. */
  valueAt(y: number): number;
  /** The position of the axis's lowest label (where a line chart's categories are written below). */
  lowLevel: number;
  highLevel: number;
}

/** The value axis beside a plot: a column of numeric labels (left, else right) whose positions fit a line. */
function valueAxis(page: PageGeometry, plot: Box): ValueAxis | null {
  const span = Math.max(box.height(plot), 1);
  const numeric = page.runs.filter((run) => parseNumber(run.text) !== null);
  const inBand = (run: TextRun) =>
    box.centerY(run.box) >= plot.y1 - span * 0.5 && box.centerY(run.box) <= plot.y2 + span * 0.5;
  const sides = [
    numeric.filter(
      (run) => run.box.x2 <= plot.x1 + ALIGN && plot.x1 - run.box.x2 < box.width(plot) * 0.5 && inBand(run),
    ),
    numeric.filter(
      (run) => run.box.x1 >= plot.x2 - ALIGN && run.box.x1 - plot.x2 < box.width(plot) * 0.5 && inBand(run),
    ),
  ];
  for (const side of sides) {
    if (side.length < MIN_AXIS_LABELS) continue;
    // The column nearest the plot.
    const nearest = [...side].sort(
      (p, q) =>
        Math.min(Math.abs(p.box.x2 - plot.x1), Math.abs(p.box.x1 - plot.x2)) -
        Math.min(Math.abs(q.box.x2 - plot.x1), Math.abs(q.box.x1 - plot.x2)),
    )[0];
    const column = side.filter((run) => sharesColumn([nearest, run]));
    if (column.length < MIN_AXIS_LABELS || !sharesColumn(column)) continue;
    const ys = column.map((run) => labelLevel(page, run));
    if (new Set(ys.map((y) => Math.round(y))).size !== ys.length) continue;
    const points = column.map((run, i) => ({ y: ys[i], value: parseNumber(run.text) as number }));
    const axis = fitAxis(points);
    if (!axis) continue;
    const values = points.map((point) => point.value).sort((p, q) => p - q);
    const step = Math.min(
      ...values
        .slice(1)
        .map((v, i) => v - values[i])
        .filter((d) => d > 0),
    );
    const low = points.reduce((p, q) => (q.value < p.value ? q : p));
    const high = points.reduce((p, q) => (q.value > p.value ? q : p));
    return {
      labels: column,
      low: low.value,
      high: high.value,
      step,
      valueAt: (y: number) => roundToAxis(axis.a * y + axis.b, step),
      lowLevel: low.y,
      highLevel: high.y,
    };
  }
  return null;
}

function readAxis(
  page: PageGeometry,
  bars: Bar[],
  plot: Box,
  baseline: number,
): { bars: Bar[]; box: Box; data: Omit<ChartData, "title"> } | null {
  const axis = valueAxis(page, plot);
  if (!axis) return null;
  const { valueAt, step, low, high } = axis;
  const axisLabels = axis.labels;
  // The baseline must lie on the axis's scale, not far beyond its labels.
  const base = valueAt(baseline);
  if (base < low - step * 1.01 || base > high + step * 1.01) return null;

  // Categories: the first line of labels on the far side of the baseline from the bars.
  const below = bars.some((bar) => bar.end < baseline);
  const sideOf = (run: TextRun) =>
    below ? run.box.y1 >= baseline - ALIGN * 2 : run.box.y2 <= baseline + ALIGN * 2;
  const slot = box.width(plot) / Math.max(bars.length, 1);
  const candidates = page.runs.filter(
    (run) =>
      !axisLabels.includes(run) &&
      sideOf(run) &&
      box.centerX(run.box) >= plot.x1 - slot &&
      box.centerX(run.box) <= plot.x2 + slot &&
      Math.abs((below ? run.box.y1 : run.box.y2) - baseline) <= Math.max(run.fontSize * 3, 12),
  );
  const nearestEdge = (run: TextRun) => Math.abs((below ? run.box.y1 : run.box.y2) - baseline);
  const first = minOf(candidates.map(nearestEdge));
  const categoryRuns = candidates
    .filter((run) => nearestEdge(run) - first <= run.fontSize * 0.8)
    .sort((p, q) => box.centerX(p.box) - box.centerX(q.box));

  // Bars by category: the nearest label's, or runs of bars split at wide gaps when there are no labels.
  let groups: Bar[][];
  if (categoryRuns.length > 0) {
    groups = categoryRuns.map(() => []);
    for (const bar of bars) {
      const center = box.centerX(bar.box);
      let best = 0;
      for (let i = 1; i < categoryRuns.length; i++) {
        if (
          Math.abs(box.centerX(categoryRuns[i].box) - center) <
          Math.abs(box.centerX(categoryRuns[best].box) - center)
        )
          best = i;
      }
      groups[best].push(bar);
    }
  } else {
    groups = [[bars[0]]];
    for (let i = 1; i < bars.length; i++) {
      const gap = bars[i].box.x1 - bars[i - 1].box.x2;
      if (gap > box.width(bars[i].box) * 0.5) groups.push([]);
      groups[groups.length - 1].push(bars[i]);
    }
  }
  const seriesCount = maxOf(groups.map((group) => group.length));
  // Every slot has the same number of bars in a plain chart (a zero bar is drawn, if flat); otherwise which bar
  // belongs to which series cannot be told.
  if (seriesCount === 0 || groups.some((group) => group.length !== seriesCount && group.length !== 0))
    return null;
  const categories =
    categoryRuns.length > 0
      ? categoryRuns.map((run) => run.text.trim())
      : groups.map((_, i) => String(i + 1));
  const series = Array.from({ length: seriesCount }, (_, s) => ({
    name: `Series ${s + 1}`,
    values: groups.map((group) => (group[s] ? valueAt(group[s].end) : null)),
  }));
  const area = box.union([plot, ...axisLabels.map((run) => run.box), ...categoryRuns.map((run) => run.box)]);
  return { bars, box: area, data: { chartType: "bar", categories, series, origin: "vector" } };
}

/** Points of a polyline at most this far behind the previous one still count as going left to right. */
const BACKTRACK = 0.5;

/** The y of a polyline at x (linear between its points), or null when x is beyond its ends. */
function lineAt(points: readonly { x: number; y: number }[], x: number): number | null {
  if (x < points[0].x - ALIGN * 2 || x > points[points.length - 1].x + ALIGN * 2) return null;
  for (let i = 1; i < points.length; i++) {
    const p = points[i - 1];
    const q = points[i];
    if (x <= q.x || i === points.length - 1) {
      if (q.x - p.x <= 0.01) return q.y;
      const t = Math.min(1, Math.max(0, (x - p.x) / (q.x - p.x)));
      return p.y + t * (q.y - p.y);
    }
  }
  return points[points.length - 1].y;
}

/**
 * Line charts: lines drawn left to right across a plot with a value axis beside it and category labels under
 * it; each line is a series, its value at a category the line's height at the label's centre.
 */
function lineCharts(page: PageGeometry): { marks: Box[]; box: Box; data: Omit<ChartData, "title"> }[] {
  if ((page.polylines ?? []).length > MAX_LINES) return [];
  const lines = (page.polylines ?? []).filter(
    (points) =>
      points.length >= 2 &&
      points[points.length - 1].x - points[0].x >= 30 &&
      points.every((point, i) => i === 0 || point.x >= points[i - 1].x - BACKTRACK),
  );
  const bounds = (points: readonly { x: number; y: number }[]): Box => ({
    x1: minOf(points.map((p) => p.x)),
    y1: minOf(points.map((p) => p.y)),
    x2: maxOf(points.map((p) => p.x)),
    y2: maxOf(points.map((p) => p.y)),
  });
  // Lines of one chart share most of their horizontal extent.
  const groups: { points: { x: number; y: number }[]; box: Box }[][] = [];
  for (const points of lines) {
    const entry = { points, box: bounds(points) };
    const group = groups.find((g) =>
      g.some((other) => {
        const overlap = Math.min(other.box.x2, entry.box.x2) - Math.max(other.box.x1, entry.box.x1);
        return overlap >= 0.5 * Math.min(box.width(other.box), box.width(entry.box));
      }),
    );
    if (group) group.push(entry);
    else groups.push([entry]);
  }
  const out: { marks: Box[]; box: Box; data: Omit<ChartData, "title"> }[] = [];
  for (const group of groups) {
    const lineBox = box.union(group.map((entry) => entry.box));
    // The plot reaches as far as its gridlines: the most common extent among the rules drawn across the lines
    // (a frame around the chart has an extent of its own, shared by two rules only).
    const across = page.rules.filter(
      (rule) =>
        rule.orientation === "h" &&
        rule.x1 <= lineBox.x1 + ALIGN * 2 &&
        rule.x2 >= lineBox.x2 - ALIGN * 2 &&
        Math.abs(rule.y1 - box.centerY(lineBox)) <= Math.max(box.height(lineBox), 36) * 2,
    );
    const extents = new Map<string, typeof across>();
    for (const rule of across) {
      const key = `${Math.round(rule.x1)}:${Math.round(rule.x2)}`;
      extents.set(key, [...(extents.get(key) ?? []), rule]);
    }
    const grid = [...extents.values()].sort((p, q) => q.length - p.length)[0] ?? [];
    const plot = box.union([
      lineBox,
      ...grid.map((rule) => ({ x1: rule.x1, y1: rule.y1, x2: rule.x2, y2: rule.y2 })),
    ]);
    const axis = valueAxis(page, plot);
    if (!axis) continue;
    // Categories: the first line of labels under the plot (below its lowest gridline or axis label).
    const floor = Math.max(axis.lowLevel, axis.highLevel, plot.y2);
    const reach = box.width(plot) * 0.5;
    const below = page.runs.filter(
      (run) =>
        !axis.labels.includes(run) &&
        run.box.y1 >= floor - ALIGN * 2 &&
        run.box.y1 - floor <= Math.max(run.fontSize * 3, 12) &&
        box.centerX(run.box) >= plot.x1 - reach &&
        box.centerX(run.box) <= plot.x2 + reach,
    );
    if (below.length < 2) continue;
    const first = minOf(below.map((run) => run.box.y1));
    const categories = below
      .filter((run) => run.box.y1 - first <= run.fontSize * 0.8)
      .sort((p, q) => box.centerX(p.box) - box.centerX(q.box));
    if (categories.length < 2) continue;
    // Every line must run from about the first category to about the last.
    const slot =
      (box.centerX(categories[categories.length - 1].box) - box.centerX(categories[0].box)) /
      (categories.length - 1);
    const spans = group.every(
      (entry) =>
        Math.abs(entry.box.x1 - box.centerX(categories[0].box)) <= slot * 0.6 &&
        Math.abs(entry.box.x2 - box.centerX(categories[categories.length - 1].box)) <= slot * 0.6,
    );
    if (!spans) continue;
    const series = group.map((entry, s) => ({
      name: `Series ${s + 1}`,
      values: categories.map((run) => {
        const y = lineAt(entry.points, box.centerX(run.box));
        return y === null ? null : axis.valueAt(y);
      }),
    }));
    const area = box.union([plot, ...axis.labels.map((run) => run.box), ...categories.map((run) => run.box)]);
    out.push({
      marks: group.map((entry) => entry.box),
      box: area,
      data: {
        chartType: "line",
        categories: categories.map((run) => run.text.trim()),
        series,
        origin: "vector",
      },
    });
  }
  return out;
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
function valuesRead(data: Omit<ChartData, "title">): number {
  return data.series.reduce((sum, entry) => sum + entry.values.filter((value) => value !== null).length, 0);
}

export function findCharts(page: PageGeometry): FoundChart[] {
  const found: FoundChart[] = [];
  // Every reading of the page; where two claim the same area, the one explaining more marks is the chart.
  const readings = [
    ...[false, true].flatMap((horizontal) =>
      verticalBarCharts(horizontal ? transpose(page) : page).map((chart) => ({
        chart: { marks: chart.bars.map((bar) => bar.box), box: chart.box, data: chart.data },
        horizontal,
      })),
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
