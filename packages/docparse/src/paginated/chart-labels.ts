import { MIN_AXIS_LABELS } from "../intelligence/chart-axis.ts";
import { parseNumber } from "../intelligence/table-summary.ts";
import { findCharts } from "../intelligence/vector-chart.ts";
import type { Box } from "../model.ts";
import type { Block } from "./blocks.ts";
import { pieAreas, stackedBarAreas } from "./chart-shapes.ts";
import { box, type PageGeometry } from "./geometry.ts";

/** The page entries this reads and makes (layout.ts's PageEntry, of which it needs these two kinds). */
type BlockEntry = { kind: "block"; block: Block; box: Box };
type Entry = { kind: string; box: Box };

/** Fewer painted shapes than this, and a page holds no chart worth the search. */
const MIN_MARKS = 3;

/**
 * The areas of the charts drawn as vector graphics on `page`: bar and line charts (bars standing on one
 * baseline, lines across a value axis of numeric labels: intelligence/vector-chart.ts), pies and stacked bars
 * (chart-shapes.ts). Each is searched only on a page with the evidence it needs: shapes or lines enough to draw
 * one, and for a value axis, numbers enough to label it (most pages have neither, and cost a count).
 */
export function chartAreas(page: PageGeometry): Box[] {
  const rects = page.rects.length;
  const lines = page.polylines?.length ?? 0;
  const drawings = page.drawings?.length ?? 0;
  if (rects + lines + drawings < MIN_MARKS) return [];
  const axes = rects + lines >= MIN_MARKS && hasNumbers(page, MIN_AXIS_LABELS);
  const read = axes ? findCharts(page).map((chart) => chart.box) : [];
  const shapes = [
    ...(drawings >= MIN_MARKS ? pieAreas(page) : []),
    ...(rects >= 4 ? stackedBarAreas(page) : []),
  ];
  return [...read, ...shapes.filter((area) => !read.some((other) => box.intersection(other, area) > 0))];
}

/** Whether at least `count` of the page's runs are numbers (a value axis's labels). */
function hasNumbers(page: PageGeometry, count: number): boolean {
  let found = 0;
  for (const run of page.runs) {
    if (/\d/.test(run.text) && parseNumber(run.text) !== null && ++found >= count) return true;
  }
  return false;
}

/**
 * Entries with each chart's labels in one place: a figure for the chart where its first label was read, and
 * right after it one block of its labels (axis numbers, categories, legend names) in their reading order, instead
 * of a paragraph per label scattered among the page's text. A block inside the chart set larger than its
 * smallest label (the chart's title) stays a block of its own. Entries of a page without charts come back as
 * they are.
 */
export function gatherChartLabels<E extends Entry>(
  entries: readonly E[],
  charts: readonly Box[],
): (E | BlockEntry | { kind: "figure"; box: Box })[] {
  let out: (E | BlockEntry | { kind: "figure"; box: Box })[] = [...entries];
  for (const chart of charts) {
    const grown = { x1: chart.x1 - 2, y1: chart.y1 - 2, x2: chart.x2 + 2, y2: chart.y2 + 2 };
    const inside = out.filter(
      (entry): entry is BlockEntry => entry.kind === "block" && box.containsCenter(grown, entry.box),
    );
    if (inside.length === 0 || out.some((e) => e.kind === "figure" && box.iou(e.box, chart) > 0.5)) continue;
    const smallest = Math.min(...inside.map((entry) => entry.block.lines[0].fontSize));
    const labels = new Set(inside.filter((entry) => entry.block.lines[0].fontSize <= smallest * 1.1));
    const lines = [...labels].flatMap((entry) => entry.block.lines);
    const block: Block = { lines, box: box.union(lines.map((line) => line.box)) };
    const at = out.findIndex((entry) => labels.has(entry as BlockEntry));
    const kept = out.filter((entry) => !labels.has(entry as BlockEntry));
    const before = out.slice(0, at).filter((entry) => kept.includes(entry)).length;
    kept.splice(before, 0, { kind: "figure", box: chart }, { kind: "block", block, box: block.box });
    out = kept;
  }
  return out;
}
