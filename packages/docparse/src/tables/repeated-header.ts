/**
 * Grids side by side, each under its own copy of one header: a year planner's month grids (`M T W T F S S` over
 * each month, the month's name over that). Their rows share baselines and their columns line up, so aligned lines
 * read them as one wide table whose header repeats, and grids under one another join it over the blank between
 * them. A header line whose words are one sequence repeated, each copy laid out alike and set apart from the next
 * by more than the widest space inside a copy, opens one grid under each copy, in the copy's stretch of the page,
 * its columns halfway between the copy's labels; each grid is read as a table of its own. Copies whose rows are
 * the same too are copies of one thing (a sheet of identical business cards), not grids.
 */
import type { Box } from "../model.ts";
import { box } from "../paginated/geometry.ts";

/** What is read of a line here: its words and its stretches between column gaps (aligned.ts's WordLine). */
interface Line {
  words: readonly { text: string; box: Box }[];
  segments: readonly { x1: number; x2: number }[];
  fontSize: number;
}

/** The fewest labels in one copy of the header. */
const MIN_LABELS = 3;
/** The space between two copies is at least this many times the widest space inside one. */
const GUTTER_RATIO = 1.5;
/** Labels of two copies stand at the same offsets from their copy's first label within this many ems. */
const OFFSET_SLACK = 0.3;

interface RepeatedHeader<W> {
  /** Where the line splits into its copies, left to right. */
  cuts: number[];
  /** One copy's labels. */
  labels: string[];
  /** Each copy's words. */
  copies: W[][];
  /** The narrowest space between two copies. */
  gutter: number;
}

/** A grid's lines stand at most this many line heights apart (a blank between weeks, under the header). */
const GRID_GAP = 2.5;

/** One grid under one copy of a repeated header: its lines' words inside its stretch, and its columns. */
export interface HeaderGrid<W> {
  /** Each row's words, top to bottom: the title (when there is one), the header, the rows. */
  rows: W[][];
  /** Each column's stretch, left to right: between the header's labels, halfway. */
  columns: { x1: number; x2: number }[];
}

/**
 * The grids of a page's lines (top to bottom) set side by side under copies of one header: for each line that
 * is one sequence of labels repeated, each copy's stretch of the page is cut from the header line down to a
 * blank of more than a few lines, a line running out of the stretch, or the next grid (a line of the header's
 * labels, or the one-piece title just over it). The one-piece line just over the header is the grid's title.
 * Words beside the copies on the grids' lines (a table's row labels left of a header repeated under group
 * labels) make them one table's column groups, not grids.
 */
export function headerGrids<L extends Line>(lines: readonly L[]): HeaderGrid<L["words"][number]>[] {
  type W = L["words"][number];
  const grids: HeaderGrid<W>[] = [];
  const headers = lines.map(copies);
  for (const [h, header] of headers.entries()) {
    if (!header) continue;
    const isHeader = (k: number) => headers[k]?.labels.join(" ") === header.labels.join(" ");
    const half = header.gutter / 2;
    const last = header.copies.length - 1;
    const left = header.copies[0][0].box.x1 - half;
    const right = header.copies[last][header.copies[last].length - 1].box.x2 + half;
    let end = h;
    const found: HeaderGrid<W>[] = [];
    const bodies: string[] = [];
    for (const [k, copy] of header.copies.entries()) {
      const x1 = k === 0 ? left : header.cuts[k - 1];
      const x2 = k === last ? right : header.cuts[k];
      const inside = (line: L): W[] =>
        line.words.filter((w) => box.centerX(w.box) > x1 && box.centerX(w.box) < x2);
      const outside = (words: readonly W[]) => words.some((w) => w.box.x1 < x1 - 1 || w.box.x2 > x2 + 1);
      const height = copy[0].box.y2 - copy[0].box.y1;
      const rows: W[][] = [];
      const above = h > 0 ? inside(lines[h - 1]) : [];
      const titled =
        above.length > 0 &&
        lines[h - 1].segments.filter((s) => s.x2 > x1 && s.x1 < x2).length === 1 &&
        !outside(above) &&
        copy[0].box.y1 - Math.max(...above.map((w) => w.box.y2)) <= GRID_GAP * height;
      if (titled) rows.push(above);
      rows.push([...copy]);
      let bottom = copy[0].box.y2;
      for (let j = h + 1; j < lines.length; j++) {
        const words = inside(lines[j]);
        if (words.length === 0) continue;
        const top = Math.min(...words.map((w) => w.box.y1));
        if (top - bottom > GRID_GAP * height || outside(words) || isHeader(j) || isHeader(j + 1)) break;
        rows.push(words);
        bottom = Math.max(bottom, ...words.map((w) => w.box.y2));
        end = Math.max(end, j);
      }
      const columns = copy.map((w, i) => ({
        x1: i === 0 ? x1 : (copy[i - 1].box.x2 + w.box.x1) / 2,
        x2: i === copy.length - 1 ? x2 : (w.box.x2 + copy[i + 1].box.x1) / 2,
      }));
      const body = rows.slice(titled ? 2 : 1);
      if (body.length < MIN_ROWS) continue;
      found.push({ rows, columns });
      bodies.push(body.map((row) => row.map((w) => w.text).join(" ")).join("\n"));
    }
    const beside = lines
      .slice(h, end + 1)
      .some((line) => line.words.some((w) => box.centerX(w.box) < left || box.centerX(w.box) > right));
    // Copies of one thing (a sheet of identical cards) repeat their rows too; grids under one header differ.
    if (!beside && new Set(bodies).size === bodies.length) grids.push(...found);
  }
  return grids;
}

/** The fewest rows under a header that make a grid. */
const MIN_ROWS = 2;

/** A line of one sequence of words repeated: its copies, their labels and the middles of the spaces between. */
function copies<L extends Line>(line: L): RepeatedHeader<L["words"][number]> | null {
  const words = line.words;
  const em = line.fontSize;
  for (let count = 2; count * MIN_LABELS <= words.length; count++) {
    if (words.length % count !== 0) continue;
    const size = words.length / count;
    const all = Array.from({ length: count }, (_, k) => words.slice(k * size, (k + 1) * size));
    const [first] = all;
    const alike = all.every((c) =>
      c.every(
        (w, i) =>
          w.text === first[i].text &&
          Math.abs(w.box.x1 - c[0].box.x1 - (first[i].box.x1 - first[0].box.x1)) <= OFFSET_SLACK * em,
      ),
    );
    if (!alike) continue;
    const inner = Math.max(...all.flatMap((c) => c.slice(1).map((w, i) => w.box.x1 - c[i].box.x2)));
    const between = all.slice(1).map((c, k) => ({ x1: all[k][size - 1].box.x2, x2: c[0].box.x1 }));
    if (between.every((gap) => gap.x2 - gap.x1 >= GUTTER_RATIO * inner)) {
      return {
        cuts: between.map((gap) => (gap.x1 + gap.x2) / 2),
        labels: first.map((w) => w.text),
        copies: all,
        gutter: Math.min(...between.map((gap) => gap.x2 - gap.x1)),
      };
    }
  }
  return null;
}
