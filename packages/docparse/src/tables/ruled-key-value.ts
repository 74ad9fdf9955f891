/**
 * Key-value boxes ruled between their rows only: a fact sheet's "Fund size | 74 bn", "Benchmark | index" set as
 * rows parted by horizontal rules of one extent, a short label at one left edge and its value at a second left
 * edge to the right of every label, with no vertical rule (or too few to make a grid). The rules give the rows,
 * the two left edges the columns. Read as blocks, the labels make one paragraph and the values another; read as
 * the table they are, each label sits beside its value.
 */
import type { Box } from "../model.ts";
import { box, type DetectedTable, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import {
  finishTable,
  groupLines,
  hasVisibleText,
  type Lattice,
  latticeRegions,
  runWords,
  type TextPiece,
} from "./cells.ts";
import { mergeSegments, type Segment } from "./rule-segments.ts";
import { underlines } from "./underline.ts";

/** Rows a box needs: three labels beside their values, each row between two rules. */
const MIN_ROWS = 3;

/** The most lines a row holds: a label's value wrapped, not a paragraph. */
const MAX_ROW_LINES = 3;

/** A label: a few words, no sentence. */
function labelText(text: string): boolean {
  const t = text.trim();
  return /[\p{L}\p{N}]/u.test(t) && t.length <= 40 && t.split(/\s+/).length <= 5 && !/[.!?;:]$/.test(t);
}

/** One row between two rules: its label's runs, its value's runs, the left edges and the label's right end. */
interface Row {
  label: TextRun[];
  value: TextRun[];
  labelX: number;
  labelRight: number;
  valueX: number;
  size: number;
}

/**
 * The row of the runs between two rules, or null: one to three lines, the first starting with a label followed,
 * after a gap of an em or more, by its value; later lines are the value's or the label's own, wrapped at their
 * edges.
 */
function bandRow(runs: readonly TextRun[]): Row | null {
  const lines = groupLines(runs);
  if (lines.length === 0 || lines.length > MAX_ROW_LINES) return null;
  const first = [...lines[0]].sort((a, b) => a.box.x1 - b.box.x1);
  const size = Math.max(...first.map((r) => r.fontSize));
  let cut = -1;
  for (let i = 1; i < first.length && cut < 0; i++) {
    if (first[i].box.x1 - Math.max(...first.slice(0, i).map((r) => r.box.x2)) >= size) cut = i;
  }
  if (cut < 0) return null;
  const label = first.slice(0, cut);
  const labelRight = Math.max(...label.map((r) => r.box.x2));
  const valueX = first[cut].box.x1;
  if (!labelText(label.map((r) => r.text).join(" "))) return null;
  const value = first.slice(cut);
  // A value is one stretch of text: a gap of two ems inside it starts a third column, which is a wider table.
  for (let i = 1; i < value.length; i++) {
    if (value[i].box.x1 - value[i - 1].box.x2 >= 2 * size) return null;
  }
  for (const line of lines.slice(1)) {
    for (const run of line) {
      if (run.box.x1 >= valueX - 0.3 * size) value.push(run);
      else if (run.box.x2 <= valueX - 0.5 * size) label.push(run);
      else return null;
    }
  }
  return { label, value, labelX: Math.min(...label.map((r) => r.box.x1)), labelRight, valueX, size };
}

/** The rules below `top` of its extent, in order down the page. */
function sameExtent(top: Segment, hs: readonly Segment[]): Segment[] {
  const tol = Math.max(2, 0.01 * (top.b - top.a));
  return hs.filter((s) => s.pos > top.pos && Math.abs(s.a - top.a) <= tol && Math.abs(s.b - top.b) <= tol);
}

/**
 * The key-value boxes of a page: stacks of horizontal rules of one extent whose bands each hold one row of a label
 * and its value, the labels at one left edge and the values at another right of every label. Boxes overlapping
 * `exclude` (tables found already) are left alone.
 *
 * @example
 * const tables = ruledKeyValueTables(page, []); // [{ method: "ruled", numCols: 2, ... }]
 */
export function ruledKeyValueTables(page: PageGeometry, exclude: readonly Box[]): DetectedTable[] {
  const hs = mergeSegments(page.rules, "h")
    .filter((s) => s.b - s.a >= 60 && !underlines(s, page.runs))
    .sort((p, q) => p.pos - q.pos);
  if (hs.length < MIN_ROWS + 1) return [];
  const runs = page.runs.filter((r) => !r.vertical && hasVisibleText(r.text));
  const used = new Set<Segment>();
  const tables: DetectedTable[] = [];
  for (const top of hs) {
    if (used.has(top)) continue;
    const stack = [top];
    const rows: Row[] = [];
    for (const next of sameExtent(top, hs)) {
      const above = stack[stack.length - 1];
      const inBand = runs.filter((r) => {
        const cy = box.centerY(r.box);
        const cx = box.centerX(r.box);
        return cy > above.pos && cy < next.pos && cx > top.a && cx < top.b;
      });
      const row = bandRow(inBand);
      // Text between the rules that leaves their extent is no cell of theirs: the box ends above it.
      const outside = inBand.length > 0 && inBand.some((r) => r.box.x1 < top.a - 2 || r.box.x2 > top.b + 2);
      if (!row || outside || next.pos - above.pos > (MAX_ROW_LINES + 1) * 1.5 * row.size) break;
      const prev = rows[0];
      if (
        prev &&
        (Math.abs(row.labelX - prev.labelX) > 0.5 * row.size ||
          Math.abs(row.valueX - prev.valueX) > 0.5 * row.size)
      ) {
        break;
      }
      stack.push(next);
      rows.push(row);
    }
    if (rows.length < MIN_ROWS) continue;
    const valueX = Math.min(...rows.map((r) => r.valueX));
    if (rows.some((r) => r.labelRight > valueX - 0.5 * r.size)) continue;
    const area = { x1: top.a, y1: top.pos, x2: top.b, y2: stack[stack.length - 1].pos };
    if (exclude.some((b) => box.intersection(b, area) > 0)) continue;
    for (const s of stack) used.add(s);
    const table = keyValueTable(rows, stack, valueX);
    if (table) tables.push(table);
  }
  return tables;
}

/** The table of the rows: the rules' positions as row bounds, a cut between the labels and the values. */
function keyValueTable(
  rows: readonly Row[],
  stack: readonly Segment[],
  valueX: number,
): DetectedTable | null {
  const labelRight = Math.max(...rows.map((r) => r.labelRight));
  const xs = [stack[0].a, (labelRight + valueX) / 2, stack[0].b];
  const ys = stack.map((s) => s.pos);
  const lattice: Lattice = { xs, ys, vSplit: () => true, hSplit: () => true };
  const { regions, owner } = latticeRegions(lattice);
  const contents: TextPiece[][] = regions.map(() => []);
  rows.forEach((row, r) => {
    contents[owner[r * 2]].push(...row.label.flatMap(runWords));
    contents[owner[r * 2 + 1]].push(...row.value.flatMap(runWords));
  });
  return finishTable({ lattice, regions, contents, headerRows: 0, method: "ruled" });
}
