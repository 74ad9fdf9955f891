import type { Box } from "../model.ts";
import { box, type DetectedTable, type PageGeometry, type TextRun } from "../paginated/geometry.ts";
import {
  finishTable,
  groupLines,
  hasVisibleText,
  isNumeric,
  type Lattice,
  latticeRegions,
  runWords,
  type TextPiece,
} from "./cells.ts";
import { besideBlock, valueLines } from "./value-lines.ts";

/**
 * Key-value tables without rules: a column of bold labels (an infobox's `Developer(s)`, `Initial release`, a
 * form's `Name`) each beside the first line of its value, the values set at one left edge to the right of every
 * label, wrapping over lines of their own below. Read as blocks, the labels make one paragraph and the values
 * another; read as the table they are, each label sits beside its value. Four labels at least, set apart from
 * their values by a gap, with nothing else in the labels' column between them.
 */

/** Runs of text on a page, upright and visible. */
interface Piece {
  run: TextRun;
  bold: boolean;
}

const MIN_ROWS = 4;

/** `a` and `b` within `tolerance` points. */
const near = (a: number, b: number, tolerance: number) => Math.abs(a - b) <= tolerance;

/** Pieces on the line of `label` (their vertical middles within half its height), to its right. */
function besideOnLine(label: TextRun, pieces: readonly Piece[]): Piece[] {
  const middle = box.centerY(label.box);
  const half = (label.box.y2 - label.box.y1) / 2;
  return pieces.filter(
    (p) =>
      p.run !== label && p.run.box.x1 >= label.box.x2 && Math.abs(box.centerY(p.run.box) - middle) <= half,
  );
}

/**
 * A label's run: bold, a few words, no sentence; or a word or three ended by a colon (`IBAN:`, `e-mail:`). Where
 * the page's text has no known weight (read by OCR, which tells no bold), a phrase of a word or three starting
 * with a capital letter and ending no sentence stands in for the bold one.
 */
function labelLike(run: TextRun, weightKnown: boolean): boolean {
  const text = run.text.trim();
  // A mark alone (a list's bullet or dash, set bold or in a colour font) labels nothing: its items are a list.
  if (!/[\p{L}\p{N}]/u.test(text)) return false;
  const words = text.split(/\s+/).length;
  if (colonLabel(run)) return true;
  if (!weightKnown) return words <= 3 && text.length <= 30 && /^\p{Lu}/u.test(text) && !/[.!?;,]$/.test(text);
  return run.bold && words <= 4 && text.length <= 40 && !/[.!?;]$/.test(text);
}

/** Word spaces of OCR text, in ems: wider is the gap between a label and its value (at least half an em). */
const OCR_WORD_SPACE = 0.45;

/**
 * OCR's words joined into the phrases they make on their line (words a word space apart): what a text layer's
 * runs are, so that a label of two words and a value of several are one piece each.
 */
function ocrPhrases(runs: readonly TextRun[]): TextRun[] {
  const phrases: TextRun[] = [];
  for (const line of groupLines(runs)) {
    const start = phrases.length;
    for (const run of line) {
      const last = phrases.length > start ? phrases[phrases.length - 1] : undefined;
      const size = Math.max(run.fontSize, last?.fontSize ?? 0);
      if (last && run.box.x1 - last.box.x2 <= OCR_WORD_SPACE * size) {
        phrases[phrases.length - 1] = {
          ...last,
          text: `${last.text} ${run.text}`,
          box: box.union([last.box, run.box]),
          fontSize: size,
        };
      } else {
        phrases.push(run);
      }
    }
  }
  return phrases;
}

/** A label ended by a colon: a word or three, in any weight. */
function colonLabel(run: TextRun): boolean {
  const text = run.text.trim();
  return text.length >= 2 && text.length <= 30 && text.endsWith(":") && text.split(/\s+/).length <= 3;
}

export function detectKeyValueTables(page: PageGeometry, exclude: readonly Box[] = []): DetectedTable[] {
  const weightKnown = page.textSource !== "ocr";
  const runs = page.runs
    .filter((run) => !run.vertical && hasVisibleText(run.text))
    .filter((run) => !exclude.some((b) => box.containsCenter(b, run.box, 1)));
  const pieces: Piece[] = (weightKnown ? runs : ocrPhrases(runs)).map((run) => ({ run, bold: run.bold }));
  // Candidate labels: bold runs whose line goes on, after a gap, in runs that are not bold (the value).
  const labels = pieces
    .filter((p) => labelLike(p.run, weightKnown))
    .map((p) => {
      const beside = besideOnLine(p.run, pieces).sort((a, b) => a.run.box.x1 - b.run.box.x1);
      const first = beside[0];
      // A bold label's value is not bold (but for an amount set bold); a colon label's value is no label.
      if (!first) return null;
      if (colonLabel(p.run) ? colonLabel(first.run) : first.bold && !isNumeric(first.run.text)) return null;
      const gap = first.run.box.x1 - p.run.box.x2;
      const size = p.run.fontSize;
      if (gap < size * 0.4 || gap > size * 12) return null;
      return { label: p.run, valueX: first.run.box.x1 };
    })
    .filter((l) => l !== null)
    .sort((a, b) => a.label.box.y1 - b.label.box.y1);
  const tables: DetectedTable[] = [];
  const used = new Set<TextRun>();
  for (const start of labels) {
    if (used.has(start.label)) continue;
    const size = start.label.fontSize;
    // The labels of one table: one left edge, their values at one left edge right of every label.
    const group = labels.filter(
      (l) =>
        !used.has(l.label) &&
        near(l.label.box.x1, start.label.box.x1, size * 0.3) &&
        near(l.valueX, start.valueX, size * 0.3) &&
        l.label.box.y1 >= start.label.box.y1,
    );
    const rows = consecutive(group, pieces, size);
    // Labels ended by colons say what they are: three make a table.
    if (rows.length < (rows.every((row) => colonLabel(row.label)) ? MIN_ROWS - 1 : MIN_ROWS)) continue;
    const table = keyValueTable(rows, pieces);
    if (!table) continue;
    for (const row of rows) used.add(row.label);
    tables.push(table);
  }
  return tables;
}

/**
 * The labels that follow one another down the column: each within a few lines of the one above (its value's
 * lines between them), with no text in the labels' column between two of them.
 */
function consecutive(
  group: readonly { label: TextRun; valueX: number }[],
  pieces: readonly Piece[],
  size: number,
): { label: TextRun; valueX: number }[] {
  const rows = group.length > 0 ? [group[0]] : [];
  for (let i = 1; i < group.length; i++) {
    const above = rows[rows.length - 1];
    const next = group[i];
    // The distance counts from the end of the value above: a value wraps over as many lines as it needs.
    if (next.label.box.y1 - valueBottom(above, next.label.box.y1, pieces, size) > size * 8) break;
    const left = Math.min(above.label.box.x1, next.label.box.x1);
    const between = pieces.some(
      (p) =>
        p.run !== above.label &&
        p.run !== next.label &&
        p.run.box.y1 >= above.label.box.y2 &&
        p.run.box.y2 <= next.label.box.y1 &&
        p.run.box.x1 < above.valueX - size * 0.3 &&
        p.run.box.x2 > left,
    );
    if (between) break;
    rows.push(next);
  }
  return rows;
}

/** The runs of a label's value: its lines (valueLines) at the values' edge, from the label's line to `limit`. */
function valueRuns(
  row: { label: TextRun; valueX: number },
  limit: number,
  pieces: readonly Piece[],
  size: number,
) {
  const top = row.label.box.y1 - size * 0.3;
  // A line is the row's by its middle, above the next label's top: set solid (a pitch of one em or a little
  // more), a line's box reaches into the next line's, and a test on the whole box would cut the row's last line.
  const own = pieces
    .filter((p) => {
      const middle = box.centerY(p.run.box);
      return p.run.box.x1 >= row.valueX - size * 0.3 && middle >= top && middle < limit;
    })
    .map((p) => p.run);
  return { own, kept: valueLines(own, row.valueX, size, row.label.box.y2) };
}

/** The bottom of a label's value, or of the label when it reaches lower. */
function valueBottom(
  row: { label: TextRun; valueX: number },
  limit: number,
  pieces: readonly Piece[],
  size: number,
): number {
  const { kept } = valueRuns(row, limit, pieces, size);
  return Math.max(row.label.box.y2, ...kept.map((run) => run.box.y2));
}

/** The table of labels and their values: a row per label, down to the next label or the value's last line. */
function keyValueTable(
  rows: readonly { label: TextRun; valueX: number }[],
  pieces: readonly Piece[],
): DetectedTable | null {
  const valueX = rows[0].valueX;
  const labelX = Math.min(...rows.map((r) => r.label.box.x1));
  const size = rows[0].label.fontSize;
  const values: TextPiece[][] = [];
  const besides: TextRun[][] = [];
  let right = valueX;
  let bottom = rows[0].label.box.y2;
  rows.forEach((row, r) => {
    const limit = r + 1 < rows.length ? rows[r + 1].label.box.y1 : Number.POSITIVE_INFINITY;
    // The value's lines: at the values' edge or right of it, each close under the one above.
    const { own, kept } = valueRuns({ label: row.label, valueX }, limit, pieces, size);
    besides.push(kept.length > 0 ? besideBlock(own, kept, size, row.label.box.y1, row.label.box.y2) : []);
    values.push(kept.flatMap(runWords));
    right = Math.max(right, ...kept.map((run) => run.box.x2));
    bottom = Math.max(bottom, row.label.box.y2, ...kept.map((run) => run.box.y2));
  });
  if (values.some((v) => v.length === 0)) return null;
  // Values are short: a prose column beside a list of bold terms is not a table.
  const words = values.reduce((n, v) => n + v.length, 0);
  if (words / values.length > 12) return null;
  // Blocks beside the values at one left edge make a third column; blocks at no common edge stay out, as text.
  const beside = besides.flat();
  const besideX = beside.length > 0 ? Math.min(...beside.map((run) => run.box.x1)) : 0;
  const third = beside.length > 0 && beside.every((run) => run.box.x1 - besideX <= size * 0.3);
  const cols = third ? 3 : 2;
  const ys = rows.map((row) => row.label.box.y1 - size * 0.3);
  ys.push(Math.max(bottom, ...(third ? beside.map((run) => run.box.y2) : [])) + 0.5);
  const xs = [labelX - 0.5, valueX - size * 0.3, right + 0.5];
  if (third) xs.splice(2, 1, (right + besideX) / 2, Math.max(...beside.map((run) => run.box.x2)) + 0.5);
  const lattice: Lattice = { xs, ys, vSplit: () => true, hSplit: () => true, drawn: () => false };
  const { regions, owner } = latticeRegions(lattice);
  const contents: TextPiece[][] = regions.map(() => []);
  rows.forEach((row, r) => {
    contents[owner[r * cols]].push(...runWords(row.label));
    contents[owner[r * cols + 1]].push(...values[r]);
    if (third) contents[owner[r * cols + 2]].push(...besides[r].flatMap(runWords));
  });
  return finishTable({ lattice, regions, contents, headerRows: null, method: "aligned" });
}
