import { box } from "../paginated/geometry.ts";
import type { WordLine } from "./aligned.ts";
import { bandIndex, wrapsFrom } from "./cells.ts";

/** Row boundaries found inside one ruled band, and the columns whose cells run on across them. */
export interface AlignedRows {
  cuts: number[];
  spanning: Set<number>;
}

/**
 * Rows inside a band ruled only around a group (a park's sites under one cluster label): two columns or more hold
 * entries line by line, each line of one column beside a line of the others (a code beside its site name), while
 * another column's text stands off those lines, a label set between the rows (centered, or wrapped over two
 * lines). The band splits between the aligned lines; the label columns span the rows. Lines that wrap in
 * parallel (a paragraph's next line starting in lower case, under a full line) are one row, not several.
 */
export function alignedRowCuts(lines: readonly WordLine[], xs: readonly number[]): AlignedRows | null {
  if (lines.length < 3) return null;
  const columnOf = (x: number) => bandIndex(xs, x);
  const linesOf = new Map<number, number[]>();
  lines.forEach((line, k) => {
    for (const c of new Set(line.words.map((w) => columnOf(box.centerX(w.box))))) {
      linesOf.set(c, [...(linesOf.get(c) ?? []), k]);
    }
  });
  // The columns sharing one set of two lines or more: the most columns, then the most lines.
  const byLines = new Map<string, number[]>();
  for (const [c, ks] of linesOf) {
    if (ks.length < 2) continue;
    const key = ks.join();
    byLines.set(key, [...(byLines.get(key) ?? []), c]);
  }
  let rowColumns: number[] = [];
  let rowLines: number[] = [];
  for (const [key, columns] of byLines) {
    const ks = key.split(",").map(Number);
    if (
      columns.length > rowColumns.length ||
      (columns.length === rowColumns.length && ks.length > rowLines.length)
    ) {
      rowColumns = columns;
      rowLines = ks;
    }
  }
  if (rowColumns.length < 2) return null;
  const rows = new Set(rowColumns);
  const aligned = new Set(rowLines);
  // Some other column's text stands below the first row: a label set beside the middle of the group (between
  // rows, or on a middle row's line), not the first cell of one row whose other cells wrap.
  const others = [...linesOf.keys()].filter((c) => !rows.has(c));
  const lowered = others.some((c) => (linesOf.get(c) ?? []).every((k) => k > rowLines[0]));
  if (!lowered) return null;
  // Lines off the aligned ones hold no text of the row columns (that would be a wrapped entry).
  for (let k = 0; k < lines.length; k++) {
    if (aligned.has(k)) continue;
    if (lines[k].words.some((w) => rows.has(columnOf(box.centerX(w.box))))) return null;
  }
  const inColumn = (line: WordLine, c: number) =>
    line.words.filter((w) => columnOf(box.centerX(w.box)) === c);
  for (const c of rowColumns) {
    const words = rowLines.flatMap((k) => inColumn(lines[k], c));
    const left = Math.min(...words.map((w) => w.box.x1));
    const right = Math.max(...words.map((w) => w.box.x2));
    let full = 0;
    for (let i = 1; i < rowLines.length; i++) {
      const above = inColumn(lines[rowLines[i - 1]], c);
      if (wrapsFrom(above, inColumn(lines[rowLines[i]], c), left, right)) return null;
      // A line ending in a hyphen or leaving a bracket open goes on below.
      const text = above.map((w) => w.text).join(" ");
      if (/[-‐]$/.test(text) || (text.match(/[([]/g) ?? []).length > (text.match(/[)\]]/g) ?? []).length) {
        return null;
      }
      // The next line opening in capitals starts an entry of its own (a name, a code).
      const next = inColumn(lines[rowLines[i]], c)[0]?.text ?? "";
      if (!/^\p{Lu}/u.test(next) && fullLine(text, above[above.length - 1].box.x2, left, right)) full++;
    }
    // Every line but the last filling the column and the next not opening in capitals: a paragraph wrapped, in
    // any script (a caseless one has no lower case for wrapsFrom to see).
    if (full === rowLines.length - 1) return null;
  }
  // Cut halfway between the row columns' lines, by their centers: tight leading lets glyph boxes overlap.
  const center = (line: WordLine) => {
    const words = rowColumns.flatMap((c) => inColumn(line, c));
    return words.reduce((sum, w) => sum + box.centerY(w.box), 0) / words.length;
  };
  const cuts: number[] = [];
  for (let i = 1; i < rowLines.length; i++) {
    const above = lines[rowLines[i - 1]];
    const below = lines[rowLines[i]];
    if (center(below) - center(above) < 0.6 * Math.max(above.fontSize, below.fontSize)) return null;
    cuts.push((center(above) + center(below)) / 2);
  }
  // Every column but the row columns runs on across the cuts: labels, and columns empty in this band.
  const spanning = new Set<number>();
  for (let c = 0; c < xs.length - 1; c++) if (!rows.has(c)) spanning.add(c);
  return { cuts, spanning };
}

/**
 * A line of running text that fills its column: words or a run of ten characters or more, no sentence ended, its
 * end within a tenth of the column's width of the column's right end.
 */
function fullLine(text: string, end: number, left: number, right: number): boolean {
  const long = text.includes(" ") || [...text].length >= 10;
  return long && !/[.!?。]["'”’)]?$/.test(text) && end >= right - 0.1 * (right - left);
}
