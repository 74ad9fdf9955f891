/**
 * Tables drawn with ruling lines: full grids (cells boxed by horizontal and vertical rules, merged cells where an
 * inner rule is missing) and horizontally ruled tables in the booktabs style (booktabs.ts). This file groups a
 * page's rules into connected sets and decides which make tables: a frame around the whole page is peeled off,
 * diagrams of boxes and connectors (few ruled edges) are not tables, lists framed side by side are read apart.
 * Boxes drawn inside single cells are taken out first (cell-boxes.ts). The frame of a group comes from
 * ruled-frame.ts, its cells from frame-table.ts.
 */
import type { Box } from "../model.ts";
import type { DetectedTable, PageGeometry, TextRun } from "../paginated/geometry.ts";
import { booktabsTables } from "./booktabs.ts";
import { withoutCellBoxes } from "./cell-boxes.ts";
import { dropFillSeams, mergeSlivers, rectEdges } from "./fill-seams.ts";
import { frameTable } from "./frame-table.ts";
import { headerBandTables } from "./header-band.ts";
import { labelValueCut, splitLabelRow } from "./label-value-row.ts";
import { addLabelsOverGrid } from "./labels-over-grid.ts";
import { addListColumns, listFrames } from "./list-frames.ts";
import { withRowUnder } from "./row-under.ts";
import { connectedGroups, mergeSegments, type Segment, SNAP } from "./rule-segments.ts";
import { addTextColumns, frameBox, gridFrame, ruledShare, runsIn } from "./ruled-frame.ts";
import { underlines } from "./underline.ts";

/** The table of one group of connected rules, or null (too few ruled edges, too little text, boxes side by side). */
function groupTable(
  group: { hs: Segment[]; vs: Segment[] },
  pageRuns: readonly TextRun[],
): DetectedTable | null {
  const frame = gridFrame(group.hs, group.vs);
  if (!frame || ruledShare(frame) < 0.6) return null;
  addLabelsOverGrid(frame, pageRuns);
  const area = {
    x1: frame.xs[0],
    y1: frame.ys[0],
    x2: frame.xs[frame.xs.length - 1],
    y2: frame.ys[frame.ys.length - 1],
  };
  const runs = runsIn(pageRuns, area);
  mergeSlivers(frame, runs);
  dropFillSeams(frame, runs);
  addTextColumns(frame, runs);
  const table = frameTable(frame, runs, "ruled");
  if (table && (frame.ys.length > 2 || table.numRows >= 3)) return table;
  // One ruled row holding fewer than three rows of text is boxes side by side (cards, a title over a
  // paragraph in each), not a table: a table shows rows of cells, ruled or aligned over several lines. Unless
  // each box is a field, a small label over its value: then the labels are a header over one row of values.
  const cut = labelValueCut(frame, runs);
  return cut === null ? null : frameTable(splitLabelRow(frame, cut), runs, "ruled");
}

/**
 * The tables of a group of rules framing lists side by side (see listFrames): each ruled column a table of its
 * own when it reads as one; null when the group frames no such lists.
 */
function listTables(
  group: { hs: Segment[]; vs: Segment[] },
  pageRuns: readonly TextRun[],
): DetectedTable[] | null {
  const frame = gridFrame(group.hs, group.vs);
  if (!frame || ruledShare(frame) < 0.6) return null;
  const lists = listFrames(frame, pageRuns);
  if (!lists) return null;
  const tables: DetectedTable[] = [];
  for (const list of lists) {
    const runs = runsIn(pageRuns, frameBox(list));
    addListColumns(list, runs);
    const table = frameTable(list, runs, "ruled");
    if (table && table.numRows >= 3) tables.push(table);
  }
  return tables;
}

/**
 * The tables of one group of connected rules. A frame around the page's content (a drawing sheet's border joined
 * to its title block, a form's outline) is no table when it makes none or its largest cell takes half its area (a
 * nearly empty frame): the grids inside it, its border taken away, are the tables, when there are any.
 */
function groupTables(
  group: { hs: Segment[]; vs: Segment[] },
  page: PageGeometry,
  peeled: number,
): DetectedTable[] {
  const lists = listTables(group, page.runs);
  if (lists) return lists;
  const table = groupTable(group, page.runs);
  if (peeled >= MAX_PEELS || !framesPage(group, page) || (table && !mostlyOneCell(table))) {
    return table ? [table] : [];
  }
  const inner = withoutBorder(group).flatMap((g) =>
    g.vs.length > 0 && g.hs.length > 0 ? groupTables(g, page, peeled + 1) : [],
  );
  return inner.length > 0 ? inner : table ? [table] : [];
}

/** Whether one cell of a table covers half its area or more. */
function mostlyOneCell(table: DetectedTable): boolean {
  const area = (b: Box) => Math.max(0, b.x2 - b.x1) * Math.max(0, b.y2 - b.y1);
  const whole = area(table.box);
  return whole > 0 && table.cells.some((cell) => area(cell.box) >= 0.5 * whole);
}

/** How many borders are taken off a frame in turn (a sheet's trim line, then its drawing frame). */
const MAX_PEELS = 2;

/** Whether a group of rules spans most of the page both ways: a frame around the page's content. */
function framesPage(group: { hs: Segment[]; vs: Segment[] }, page: PageGeometry): boolean {
  const width = Math.max(...group.hs.map((s) => s.b)) - Math.min(...group.hs.map((s) => s.a));
  const height = Math.max(...group.vs.map((s) => s.b)) - Math.min(...group.vs.map((s) => s.a));
  return width >= 0.6 * page.width && height >= 0.6 * page.height;
}

/**
 * The groups of rules left when the border of a group is taken away: the rules that run along nine tenths of its
 * width or height (a frame's sides; a title block's top line running from side to side goes with them) no longer
 * join what lies inside. Each group gets back the pieces of those rules that cross or bound it (the frame's side
 * that is a title block's edge).
 */
function withoutBorder(group: { hs: Segment[]; vs: Segment[] }): { hs: Segment[]; vs: Segment[] }[] {
  const width = Math.max(...group.hs.map((s) => s.b)) - Math.min(...group.hs.map((s) => s.a));
  const height = Math.max(...group.vs.map((s) => s.b)) - Math.min(...group.vs.map((s) => s.a));
  const longH = group.hs.filter((s) => s.b - s.a >= 0.9 * width);
  const longV = group.vs.filter((s) => s.b - s.a >= 0.9 * height);
  if (longH.length === 0 && longV.length === 0) return [];
  const hs = group.hs.filter((s) => !longH.includes(s));
  const vs = group.vs.filter((s) => !longV.includes(s));
  const clip = (long: readonly Segment[], lo: number, hi: number, a: number, b: number): Segment[] =>
    long
      .filter((s) => s.pos >= lo - SNAP && s.pos <= hi + SNAP)
      .map((s) => ({ ...s, a: Math.max(s.a, a), b: Math.min(s.b, b) }))
      .filter((s) => s.b - s.a > 2);
  return connectedGroups(hs, vs).map((inner) => {
    const all = [...inner.hs, ...inner.vs];
    const left = Math.min(...inner.hs.map((s) => s.a), ...inner.vs.map((s) => s.pos));
    const right = Math.max(...inner.hs.map((s) => s.b), ...inner.vs.map((s) => s.pos));
    const top = Math.min(...inner.vs.map((s) => s.a), ...inner.hs.map((s) => s.pos));
    const bottom = Math.max(...inner.vs.map((s) => s.b), ...inner.hs.map((s) => s.pos));
    if (all.length === 0) return inner;
    return {
      hs: [...inner.hs, ...clip(longH, top, bottom, left, right)],
      vs: [...inner.vs, ...clip(longV, left, right, top, bottom)],
    };
  });
}

/**
 * Tables drawn with ruling lines on a page, top to bottom.
 *
 * @example
 * const tables = detectRuledTables(page); // [{ method: "ruled", numRows: 5, numCols: 3, cells: [...] }]
 */
export function detectRuledTables(page: PageGeometry): DetectedTable[] {
  const rules = [...page.rules, ...rectEdges(page)];
  if (rules.length < 2) return [];
  const hs = mergeSegments(rules, "h");
  const vs = mergeSegments(rules, "v");
  const tables: DetectedTable[] = [];
  const loose: Segment[] = [];
  for (const group of connectedGroups(hs, vs)) {
    if (group.vs.length === 0) loose.push(...group.hs);
    else if (group.hs.length > 0)
      tables.push(
        ...groupTables(withoutCellBoxes(group) ?? group, page, 0).map((table) =>
          withRowUnder(table, page.runs),
        ),
      );
  }
  tables.push(
    ...booktabsTables(
      loose.filter((s) => !underlines(s, page.runs)),
      page.runs,
      hs,
    ),
  );
  tables.push(
    ...headerBandTables(
      page,
      tables.map((table) => table.box),
    ),
  );
  return tables.sort((a, b) => a.box.y1 - b.box.y1 || a.box.x1 - b.box.x1);
}
