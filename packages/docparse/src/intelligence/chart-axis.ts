import type { Box, ChartData } from "../model.ts";
import { box, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import { parseNumber } from "./table-summary.ts";

/**
 * What the chart readers share: a chart's value axis read from its labels, the transposed page horizontal bars
 * are read on, and the tolerances. Positions are in points, the model's coordinates.
 */

/** One reading of a chart on a page, before its title and legend: what it drew, where, and its data. */
export interface ChartReading {
  /** The bars or lines read. */
  marks: Box[];
  /** The plot with its axis labels. */
  box: Box;
  data: Omit<ChartData, "title">;
}

/** Least and greatest of a list of any length (spreading a long list into Math.min overflows the stack). */
export const minOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
export const maxOf = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);

/** Points: how far apart ends may be and still be "on the same line". */
export const ALIGN = 1;
/** Axis labels a value axis needs at least (three points are needed to tell a linear scale). */
export const MIN_AXIS_LABELS = 3;
/** A label may be off the fitted axis by at most this share of the axis's value range. */
const AXIS_FIT = 0.01;

export const transposeBox = (b: Box): Box => ({ x1: b.y1, y1: b.x1, x2: b.y2, y2: b.x2 });

export function transpose(page: PageGeometry): PageGeometry {
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

/** A value axis: the labels it was read from, the step between them, and a reader from position to value. */
export interface ValueAxis {
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
export function valueAxis(page: PageGeometry, plot: Box): ValueAxis | null {
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
