/**
 * Tables drawn as shaded cells: the edges of filled rectangles become rules, and the seams of one cell painted in
 * pieces (padding strips beside a content area, a fill split per line) are taken back out, so that a cell's
 * painting does not cut it into slivers or into a row of text over an empty row.
 */
import type { Box } from "../model.ts";
import { box, type PageGeometry, type Rule, type TextRun } from "../paginated/geometry.ts";
import { covered, EDGE_COVER, type Segment } from "./rule-segments.ts";
import type { Frame } from "./ruled-frame.ts";

/**
 * Boundaries less than PADDING apart with no text between them are one: a shaded cell painted as padding strips
 * beside a content area cut in pieces (one per line of a wrapped header) leaves the strip's edge and the pieces'
 * edges a few points apart, and no column or row that thin holds nothing. The boundary whose rules cover more of
 * the table stays, with the rules of both; at the table's sides, the outer one.
 */
export function mergeSlivers(frame: Frame, runs: readonly TextRun[]): void {
  const texts = runs.filter((r) => !r.vertical);
  const merge = (
    pos: number[],
    rules: (Segment[] | null)[],
    span: [number, number],
    center: (b: Box) => number,
  ) => {
    for (let i = 0; i + 1 < pos.length; ) {
      const [a, b] = [pos[i], pos[i + 1]];
      const empty = !texts.some((r) => center(r.box) > a && center(r.box) < b);
      if (b - a >= PADDING || !empty) {
        i++;
        continue;
      }
      const cover = (k: number) => covered(rules[k] ?? [], span[0], span[1]);
      const keep = i === 0 ? i : i + 1 === pos.length - 1 ? i + 1 : cover(i) >= cover(i + 1) ? i : i + 1;
      const drop = keep === i ? i + 1 : i;
      rules[keep] = [...(rules[keep] ?? []), ...(rules[drop] ?? [])];
      pos.splice(drop, 1);
      rules.splice(drop, 1);
    }
  };
  const [x1, x2] = [frame.xs[0], frame.xs[frame.xs.length - 1]];
  const [y1, y2] = [frame.ys[0], frame.ys[frame.ys.length - 1]];
  merge(frame.xs, frame.xRules, [y1, y2], box.centerX);
  merge(frame.ys, frame.yRules, [x1, x2], box.centerY);
}

/**
 * Horizontal boundaries drawn by nothing but the edges of fills, with text on one side only in the columns they
 * divide: a cell's shading painted in two pieces (the lines of text, then the padding under them) is one cell,
 * not a row of text over an empty row. In a header row closed by a stroked rule, a seam between a label's wrapped
 * lines beside labels set under it is one too (see `wrappedLabelSeam`). A boundary with text on both sides
 * otherwise, or drawn by a stroked rule, stays.
 */
export function dropFillSeams(frame: Frame, runs: readonly TextRun[]): void {
  const { xs, ys, yRules } = frame;
  const texts = runs.filter((r) => !r.vertical);
  for (let j = 1; j + 1 < ys.length; ) {
    const rules = yRules[j];
    const columns: [number, number][] = [];
    for (let c = 0; c + 1 < xs.length; c++) {
      if (covered(rules, xs[c], xs[c + 1]) >= EDGE_COVER) columns.push([xs[c], xs[c + 1]]);
    }
    const holdsText = (y0: number, y1: number) =>
      texts.some((r) => {
        const [cx, cy] = [box.centerX(r.box), box.centerY(r.box)];
        return cy > y0 && cy < y1 && columns.some(([a, b]) => cx > a && cx < b);
      });
    const seam =
      rules.length > 0 &&
      rules.every((s) => s.width === 0) &&
      columns.length > 0 &&
      (holdsText(ys[j - 1], ys[j]) !== holdsText(ys[j], ys[j + 1]) ||
        wrappedLabelSeam(frame, j, columns, texts));
    if (!seam) {
      j++;
      continue;
    }
    ys.splice(j, 1);
    yRules.splice(j, 1);
  }
}

/**
 * Whether the fill seam at ys[j] runs through a header row's wrapped label: a word processor paints a header
 * cell's shading line by line, and a label wrapped over two lines (`ACCOUNTING` over `DATE`) beside labels set on
 * its last line would read as a row of its own. The seam lies in the table's first row as its strokes draw it (no
 * stroked rule across the table above it, one below it); in the columns it divides, the labels set on the last
 * line stand under it only, and each column with text on both sides holds one label's lines: the line under the
 * seam starts within half a line of the one over it. A header over a first row, painted apart, has text on both
 * sides in every column, or above only where the row leaves a cell empty.
 */
function wrappedLabelSeam(
  frame: Frame,
  j: number,
  columns: readonly [number, number][],
  texts: readonly TextRun[],
): boolean {
  const { xs, ys, yRules } = frame;
  const [left, right] = [xs[0], xs[xs.length - 1]];
  const stroked = (k: number) =>
    yRules[k].some((s) => s.width > 0) &&
    covered(
      yRules[k].filter((s) => s.width > 0),
      left,
      right,
    ) >= EDGE_COVER;
  for (let k = 1; k < j; k++) if (stroked(k)) return false;
  let closed = false;
  for (let k = j + 1; k + 1 < ys.length && !closed; k++) closed = stroked(k);
  if (!closed) return false;
  let below = 0;
  let wrapped = 0;
  for (const [a, b] of columns) {
    const inColumn = (y0: number, y1: number) =>
      texts.filter((r) => {
        const [cx, cy] = [box.centerX(r.box), box.centerY(r.box)];
        return cy > y0 && cy < y1 && cx > a && cx < b;
      });
    const over = inColumn(ys[j - 1], ys[j]);
    const under = inColumn(ys[j], ys[j + 1]);
    if (under.length === 0) {
      if (over.length > 0) return false;
      continue;
    }
    if (over.length === 0) {
      below++;
      continue;
    }
    const size = Math.min(...[...over, ...under].map((r) => r.fontSize));
    const gap = Math.min(...under.map((r) => r.box.y1)) - Math.max(...over.map((r) => r.box.y2));
    if (gap >= 0.5 * size) return false;
    wrapped++;
  }
  return below > 0 && wrapped > 0;
}

/** Rectangles closer than this are taken to touch; one thinner than PADDING across is a cell's padding strip. */
const ABUT = 0.6;
const PADDING = 8;

/**
 * Padding strips joined to the fill they touch along a whole side: word processors paint a cell as its padding
 * strips and its content area side by side, and read apart, those seams would cut each column in three. Fills
 * of whole cells that touch stay apart: their common edge is where a colour changes, a cell boundary.
 */
function joinAbutting(rects: readonly Box[]): Box[] {
  let current = rects.map((r) => ({ ...r }));
  for (const axis of ["x", "y"] as const) {
    // Side by side along x (same top and bottom), then stacked along y (same left and right).
    const key = (r: Box) =>
      axis === "x"
        ? `${Math.round(r.y1 / ABUT)}:${Math.round(r.y2 / ABUT)}`
        : `${Math.round(r.x1 / ABUT)}:${Math.round(r.x2 / ABUT)}`;
    const groups = new Map<string, Box[]>();
    for (const r of current) {
      const k = key(r);
      const group = groups.get(k);
      if (group) group.push(r);
      else groups.set(k, [r]);
    }
    const next: Box[] = [];
    for (const group of groups.values()) {
      const start = (r: Box) => (axis === "x" ? r.x1 : r.y1);
      const end = (r: Box) => (axis === "x" ? r.x2 : r.y2);
      group.sort((a, b) => start(a) - start(b));
      const isThin = (r: Box) => end(r) - start(r) < PADDING;
      // A strip joins the fill beside it, never another strip: between two strips (one cell's right padding,
      // the next one's left) runs the boundary of the two cells.
      let merged: Box | null = null;
      let previous: Box | null = null;
      for (const r of group) {
        if (
          merged &&
          previous &&
          Math.abs(start(r) - end(previous)) <= ABUT &&
          isThin(previous) !== isThin(r)
        ) {
          if (axis === "x") merged.x2 = Math.max(merged.x2, r.x2);
          else merged.y2 = Math.max(merged.y2, r.y2);
        } else {
          merged = { ...r };
          next.push(merged);
        }
        previous = r;
      }
    }
    current = next;
  }
  return current;
}

/**
 * The edges of filled rectangles, as rules of width 0: tables drawn as shaded cells (a colored header row, striped
 * rows) have their boundaries there. Rectangles covering much of the page are backgrounds, not cells.
 */
export function rectEdges(page: PageGeometry): Rule[] {
  const limit = 0.3 * page.width * page.height;
  const rects = joinAbutting(page.rects)
    .filter((r) => box.area(r) <= limit && box.width(r) >= 4 && box.height(r) >= 4)
    .sort((a, b) => box.area(b) - box.area(a));
  // Thousands of rectangles are a drawing, not a table's cells.
  if (rects.length > 1000) return [];
  const edges: Rule[] = [];
  for (let k = 0; k < rects.length; k++) {
    const r = rects[k];
    // A rectangle inside a larger one highlights text within a cell: its edges are no cell boundaries.
    let inside = false;
    for (let m = 0; m < k && !inside; m++) {
      const o = rects[m];
      inside = r.x1 >= o.x1 - 1 && r.y1 >= o.y1 - 1 && r.x2 <= o.x2 + 1 && r.y2 <= o.y2 + 1;
    }
    if (inside) continue;
    edges.push(
      { x1: r.x1, y1: r.y1, x2: r.x2, y2: r.y1, width: 0, orientation: "h" },
      { x1: r.x1, y1: r.y2, x2: r.x2, y2: r.y2, width: 0, orientation: "h" },
      { x1: r.x1, y1: r.y1, x2: r.x1, y2: r.y2, width: 0, orientation: "v" },
      { x1: r.x2, y1: r.y1, x2: r.x2, y2: r.y2, width: 0, orientation: "v" },
    );
  }
  return edges;
}
