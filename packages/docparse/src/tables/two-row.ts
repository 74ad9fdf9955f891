/**
 * Two-row tables: a header row over one row of values (letters over figures, years over amounts, days over
 * dates), which the three-row minimum of aligned tables leaves out. Two lines make a table only on evidence two
 * lines of prose or of labels and values never give: four columns or more, every cell on both rows one short
 * token, each column's two cells aligned on each other (left, right or centre), and the columns set far wider
 * apart than the space between two words.
 */
import type { Box } from "../model.ts";

/** A line of words as the aligned-table finder groups them (aligned.ts `WordLine`, which imports this file). */
interface Line {
  words: readonly { text: string; box: Box }[];
  fontSize: number;
}

/** A column's extent across the page. */
interface Interval {
  x1: number;
  x2: number;
}

/** The fewest columns two rows need to be read as a table. */
const MIN_COLUMNS = 4;
/** The longest token a cell of a two-row table holds (a figure, a year, a short label). */
const MAX_TOKEN = 8;
/** Columns stand at least this many ems apart: a word space is a third of an em, a column gap more than twice it. */
const COLUMN_GAP = 1;
/** The two cells of a column share an edge or their middle within this many ems. */
const ALIGN = 0.5;

/** The columns of two lines read as a two-row table, left to right, or null when they are not one. */
export function twoRowColumns(lines: readonly Line[]): Interval[] | null {
  if (lines.length !== 2) return null;
  const [top, bottom] = lines.map(tokens);
  const count = top.length;
  if (count < MIN_COLUMNS || bottom.length !== count) return null;
  const size = Math.max(lines[0].fontSize, lines[1].fontSize);
  for (const [k, line] of [top, bottom].entries()) {
    if (line.some((t) => [...t.text].length > MAX_TOKEN)) return null;
    if (!spreadApart(line, COLUMN_GAP * lines[k].fontSize)) return null;
  }
  const columns: Interval[] = [];
  for (let k = 0; k < count; k++) {
    const a = top[k];
    const b = bottom[k];
    const aligned =
      Math.abs(a.x1 - b.x1) <= ALIGN * size ||
      Math.abs(a.x2 - b.x2) <= ALIGN * size ||
      Math.abs(a.x1 + a.x2 - b.x1 - b.x2) / 2 <= ALIGN * size;
    if (!aligned) return null;
    const column = { x1: Math.min(a.x1, b.x1), x2: Math.max(a.x2, b.x2) };
    // Each column clear of the one before it by more than a word space: the cells of one column are no
    // neighbours' cells.
    if (columns.length > 0 && column.x1 - columns[columns.length - 1].x2 < 0.5 * COLUMN_GAP * size)
      return null;
    columns.push(column);
  }
  return columns;
}

/** Pieces closer than this many ems are one token (a figure's digits and point drawn as separate runs). */
const TOUCH = 0.15;

interface Token {
  text: string;
  x1: number;
  x2: number;
}

/** The line's tokens: its words with the pieces that touch joined, left to right. */
function tokens(line: Line): Token[] {
  const out: Token[] = [];
  for (const w of line.words) {
    const last = out[out.length - 1];
    if (last && w.box.x1 - last.x2 < TOUCH * line.fontSize) {
      last.text += w.text.trim();
      last.x2 = Math.max(last.x2, w.box.x2);
    } else out.push({ text: w.text.trim(), x1: w.box.x1, x2: w.box.x2 });
  }
  return out;
}

/** Tokens set left to right with at least `gap` between each and the next. */
function spreadApart(line: readonly Token[], gap: number): boolean {
  return line.every((t, k) => k === 0 || t.x1 - line[k - 1].x2 >= gap);
}
