import type { Box } from "../model.ts";
import { box, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import { median } from "../statistics.ts";
import { ALIGN, type ChartReading, maxOf, minOf, valueAxis } from "./chart-axis.ts";

/**
 * Bar charts drawn as filled rectangles: bars standing on (or hanging from) one baseline, read through the value
 * axis beside them; categories are the labels on the baseline's far side, series the bars' order in each slot.
 * Read on the page as it is (vertical bars); the caller transposes the page for horizontal ones.
 */

/** Bars of one chart differ in width by at most this factor. */
const BAR_WIDTH_RATIO = 1.6;
/** Pages drawing more rectangles than this are not searched (the search compares them pairwise). */
const MAX_RECTS = 3000;

interface Bar {
  box: Box;
  /** The end away from the baseline. */
  end: number;
}

/** Vertical bar charts of a page (in its own coordinates; the caller transposes for horizontal ones). */
export function barCharts(page: PageGeometry): ChartReading[] {
  if (page.rects.length > MAX_RECTS) return [];
  const candidates = page.rects.filter(
    (r) =>
      box.width(r) >= 1.5 &&
      box.height(r) >= 0.5 &&
      box.width(r) <= page.width * 0.25 &&
      box.height(r) < page.height * 0.9,
  );
  const used = new Set<Box>();
  const out: ChartReading[] = [];
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
    const typical = median(onEdge.map(box.width));
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

function readAxis(page: PageGeometry, bars: Bar[], plot: Box, baseline: number): ChartReading | null {
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
  return {
    marks: bars.map((bar) => bar.box),
    box: area,
    data: { chartType: "bar", categories, series, origin: "vector" },
  };
}
