import type { Box } from "../model.ts";
import { box, type PageGeometry, type TextRun } from "./geometry.ts";

/*
 * The areas of charts drawn as shapes that intelligence/vector-chart.ts does not read (it reads bars standing on
 * one baseline and lines across a value axis): pies and stacked bars. Only where the chart is, for its labels to
 * be gathered (chart-labels.ts); their numbers are not read.
 */

/** A pie is drawn at least this wide, in points: smaller rounds of wedges are icons and logos. */
const MIN_PIE_SIZE = 48;
/** Fewest wedges of a pie, and fewest stacks of a stacked bar chart. */
const MIN_WEDGES = 3;
const MIN_STACKS = 2;
/** A drawing this wide or narrower is no wedge. */
const MIN_WEDGE_SIZE = 6;
/** How far from the shapes a chart's labels are looked for, in points, and how long a label may be. */
const LABEL_REACH = 40;
const MAX_LABEL_CHARS = 32;

/**
 * Pies: three or more painted shapes (wedges) whose boxes all hold one point, the centre of the square they fill
 * together, and reach its edge. A wedge's box holds the pie's centre whatever its angle (the wedge starts there)
 * and its arc is on the round's edge; a round of shapes that only touch one another (a logo of dots, a ring of
 * icons) does not share a centre, and a diagram's hub does not reach the edge.
 */
export function pieAreas(page: PageGeometry): Box[] {
  const shapes = (page.drawings ?? []).filter(
    (d) => box.width(d) >= MIN_WEDGE_SIZE && box.height(d) >= MIN_WEDGE_SIZE,
  );
  if (shapes.length < MIN_WEDGES) return [];
  const out: Box[] = [];
  for (const group of touchingGroups(shapes)) {
    if (group.length < MIN_WEDGES) continue;
    const all = box.union(group);
    const [w, h] = [box.width(all), box.height(all)];
    if (Math.min(w, h) < MIN_PIE_SIZE || Math.max(w, h) / Math.min(w, h) > 1.2) continue;
    const cx = box.centerX(all);
    const cy = box.centerY(all);
    const tolerance = 1 + w * 0.03;
    const holds = (d: Box) =>
      d.x1 <= cx + tolerance && d.x2 >= cx - tolerance && d.y1 <= cy + tolerance && d.y2 >= cy - tolerance;
    // A wedge reaches from the centre out to the round's edge (its arc): a shape inside, clear of the edge on
    // every side, is no wedge (the hub of a diagram whose spokes reach out from it).
    const edge = 1 + w * 0.05;
    const reachesEdge = (d: Box) =>
      d.x1 <= all.x1 + edge || d.x2 >= all.x2 - edge || d.y1 <= all.y1 + edge || d.y2 >= all.y2 - edge;
    // Wedges: shapes short of the whole round (a disc behind the pie, its outline, hold the centre too).
    const wedges = group.filter((d) => box.width(d) * box.height(d) < w * h * 0.9);
    if (wedges.length < MIN_WEDGES || !wedges.every((d) => holds(d) && reachesEdge(d))) continue;
    // A pie's labels sit around it, as far out as their wedges are wide.
    out.push(withLabels(page, all, Math.max(LABEL_REACH, w * 0.4)));
  }
  return out;
}

/**
 * Stacked bars: columns of two or more filled rectangles of one width set on one another, two or more columns
 * side by side apart, of one width, standing on one baseline and not all of one height (a table's shaded cells,
 * columns of equal height that touch, are not a chart). Horizontal stacked bars are the same on the page turned.
 */
export function stackedBarAreas(page: PageGeometry): Box[] {
  const turn = (b: Box): Box => ({ x1: b.y1, y1: b.x1, x2: b.y2, y2: b.x2 });
  const areas: Box[] = [];
  for (const turned of [false, true]) {
    const rects = turned ? page.rects.map(turn) : page.rects;
    for (const found of stackedBars(rects)) areas.push(turned ? turn(found) : found);
  }
  return areas.map((area) => withLabels(page, area));
}

/** The areas of vertical stacked bar charts among `rects` (top-down coordinates: a stack's base is its y2). */
function stackedBars(rects: readonly Box[]): Box[] {
  const byColumn = new Map<string, Box[]>();
  for (const rect of rects) {
    if (box.width(rect) < 3 || box.height(rect) < 0.5) continue;
    const key = `${Math.round(rect.x1)}:${Math.round(rect.x2)}`;
    byColumn.set(key, [...(byColumn.get(key) ?? []), rect]);
  }
  // Each column's stacks: runs of rectangles each set on the one below it.
  const stacks: Box[][] = [];
  for (const column of byColumn.values()) {
    const sorted = [...column].sort((p, q) => p.y1 - q.y1);
    let stack: Box[] = [];
    for (const rect of sorted) {
      const last = stack.at(-1);
      if (last && Math.abs(rect.y1 - last.y2) <= 1) stack.push(rect);
      else {
        if (stack.length >= 2) stacks.push(stack);
        stack = [rect];
      }
    }
    if (stack.length >= 2) stacks.push(stack);
  }
  // Stacks on one baseline, of one width, apart from one another, of different heights: a chart.
  const byBase = new Map<number, Box[]>();
  for (const stack of stacks) {
    const whole = box.union(stack);
    const base = Math.round(whole.y2);
    byBase.set(base, [...(byBase.get(base) ?? []), whole]);
  }
  const out: Box[] = [];
  for (const wholes of byBase.values()) {
    if (wholes.length < MIN_STACKS) continue;
    const sorted = [...wholes].sort((p, q) => p.x1 - q.x1);
    const width = box.width(sorted[0]);
    const alike = sorted.every((s) => Math.abs(box.width(s) - width) <= 1);
    const apart = sorted.slice(1).every((s, i) => s.x1 - sorted[i].x2 >= 2);
    const heights = new Set(sorted.map((s) => Math.round(box.height(s))));
    if (alike && apart && heights.size > 1) out.push(box.union(sorted));
  }
  return out;
}

/** Groups of boxes that overlap or touch one another, each group transitively joined. */
function touchingGroups(boxes: readonly Box[]): Box[][] {
  const parent = boxes.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      if (a.x1 <= b.x2 + 1 && b.x1 <= a.x2 + 1 && a.y1 <= b.y2 + 1 && b.y1 <= a.y2 + 1)
        parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, Box[]>();
  boxes.forEach((b, i) => {
    groups.set(find(i), [...(groups.get(find(i)) ?? []), b]);
  });
  return [...groups.values()];
}

/**
 * The chart's shapes with the short labels around them: runs within `distance` of the shapes, short, and not
 * part of a line of text that goes on beyond that reach (a paragraph beside the chart).
 */
function withLabels(page: PageGeometry, shapes: Box, distance = LABEL_REACH): Box {
  const reach: Box = {
    x1: shapes.x1 - distance,
    y1: shapes.y1 - distance,
    x2: shapes.x2 + distance,
    y2: shapes.y2 + distance,
  };
  const within = (run: TextRun) =>
    run.box.x1 >= reach.x1 && run.box.x2 <= reach.x2 && run.box.y1 >= reach.y1 && run.box.y2 <= reach.y2;
  const goesOn = (run: TextRun) =>
    page.runs.some(
      (other) =>
        other !== run &&
        !within(other) &&
        box.verticalOverlap(other.box, run.box) > 0.5 &&
        Math.min(Math.abs(other.box.x1 - run.box.x2), Math.abs(run.box.x1 - other.box.x2)) < run.fontSize,
    );
  const labels = page.runs.filter(
    (run) => run.text.trim().length <= MAX_LABEL_CHARS && within(run) && !goesOn(run),
  );
  return box.union([shapes, ...labels.map((run) => run.box)]);
}
