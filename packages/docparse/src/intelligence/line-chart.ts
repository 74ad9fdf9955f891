import type { Box } from "../model.ts";
import { box, type PageGeometry } from "../paginated/geometry.ts";
import { ALIGN, type ChartReading, maxOf, minOf, valueAxis } from "./chart-axis.ts";

/**
 * Line charts drawn as open stroked paths (the PDF engine's polylines) running left to right over a plot with a
 * value axis beside it and category labels under it: each line is a series.
 */

/** Pages drawing more lines than this are not searched (lines are grouped pairwise). */
const MAX_LINES = 200;

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
 * Where each category's points are along the lines. Category labels are centred on them only to within their
 * font's metrics, and on a curved line a fraction of a point sideways moves the value read (150 read as 150.1 in
 * another font). The lines themselves start at the first category and end at the last, evenly spaced between, so
 * the positions come from the lines' ends when the labels agree with them to within a quarter slot; else from
 * the labels.
 */
function categoryPositions(
  lines: readonly (readonly { x: number; y: number }[])[],
  labelCentres: readonly number[],
  slot: number,
): number[] {
  const first = minOf(lines.map((points) => points[0].x));
  const last = maxOf(lines.map((points) => points[points.length - 1].x));
  const n = labelCentres.length;
  const even = labelCentres.map((_, i) => first + ((last - first) * i) / (n - 1));
  return even.every((x, i) => Math.abs(x - labelCentres[i]) <= slot * 0.25) ? even : [...labelCentres];
}

/**
 * Line charts: lines drawn left to right across a plot with a value axis beside it and category labels under
 * it; each line is a series, its value at a category the line's height at the label's centre.
 */
export function lineCharts(page: PageGeometry): ChartReading[] {
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
        const overlap = box.overlapX(other.box, entry.box);
        return overlap >= 0.5 * Math.min(box.width(other.box), box.width(entry.box));
      }),
    );
    if (group) group.push(entry);
    else groups.push([entry]);
  }
  const out: ChartReading[] = [];
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
    const at = categoryPositions(
      group.map((entry) => entry.points),
      categories.map((run) => box.centerX(run.box)),
      slot,
    );
    const series = group.map((entry, s) => ({
      name: `Series ${s + 1}`,
      values: at.map((x) => {
        const y = lineAt(entry.points, x);
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
