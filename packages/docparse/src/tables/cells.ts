import type { Box } from "../model.ts";
import { box, type DetectedTable, type TextRun } from "../paginated/geometry.ts";
import { hangulMeet } from "../paginated/hangul-wrap.ts";
import { meetsUnspaced } from "../paginated/unspaced-wrap.ts";
import { isQuantity } from "./quantity.ts";

/**
 * What both table detectors share: text pieces (a run, a word of a run, or a run cut at a column boundary),
 * text lines, cell text, and the step from a lattice of row and column boundaries to cells with spans.
 */

/** A piece of one run: the whole run, one of its words, or the part of it on one side of a column boundary. */
export interface TextPiece {
  text: string;
  box: Box;
  fontName: string;
  fontSize: number;
  bold: boolean;
  italic: boolean;
  vertical: boolean;
  dir: "ltr" | "rtl";
}

type Cell = DetectedTable["cells"][number];

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** False for text of only spaces and control characters (symbol-font glyphs such as check boxes often map there). */
export function hasVisibleText(text: string): boolean {
  return text.replace(CONTROL, "").trim() !== "";
}

/** A whole run as a piece. */
export function runPiece(run: TextRun): TextPiece {
  return {
    text: run.text,
    box: run.box,
    fontName: run.fontName,
    fontSize: run.fontSize,
    bold: run.bold,
    italic: run.italic,
    vertical: run.vertical === true,
    dir: run.dir,
  };
}

/**
 * The characters [from, to) of a run, placed by proportional character widths (the run's width over its
 * length): pdf.js gives no glyph positions, and the estimate is close enough to place words in columns.
 */
function slice(run: TextRun, from: number, to: number): TextPiece {
  const piece = runPiece(run);
  const step = box.width(run.box) / run.text.length;
  const { x1, x2 } = run.box;
  piece.text = run.text.slice(from, to);
  piece.box =
    run.dir === "rtl"
      ? { x1: x2 - to * step, y1: run.box.y1, x2: x2 - from * step, y2: run.box.y2 }
      : { x1: x1 + from * step, y1: run.box.y1, x2: x1 + to * step, y2: run.box.y2 };
  return piece;
}

/** The words of a run (split at whitespace), each with its estimated box. Vertical runs stay whole. */
export function runWords(run: TextRun): TextPiece[] {
  if (!hasVisibleText(run.text)) return [];
  if (run.vertical || !/\s/.test(run.text.trim())) return [runPiece(run)];
  const words: TextPiece[] = [];
  for (const match of run.text.matchAll(/\S+/g)) {
    if (hasVisibleText(match[0])) words.push(slice(run, match.index, match.index + match[0].length));
  }
  return words;
}

/**
 * A run cut where column boundaries cross it. A cut snaps to a space within two characters of the boundary, so a
 * run holding two cells ("0.965 0.969") splits between them rather than inside a word; at a `soft` boundary (one
 * read from text alignment, not drawn) a cut with no space near is not made. Empty parts are dropped.
 */
export function cutRun(run: TextRun, cuts: readonly number[], soft: readonly number[] = []): TextPiece[] {
  if (cuts.length + soft.length === 0 || run.vertical || run.text.length < 2) return [runPiece(run)];
  const step = box.width(run.box) / run.text.length;
  if (step <= 0) return [runPiece(run)];
  const indexes: number[] = [];
  for (const x of [...cuts, ...soft]) {
    const offset = run.dir === "rtl" ? (run.box.x2 - x) / step : (x - run.box.x1) / step;
    let index = Math.round(offset);
    let atSpace = false;
    for (let d = 0; d <= 2 && !atSpace; d++) {
      if (run.text[index - d - 1] === " " || run.text[index - d] === " ") {
        index -= d;
        atSpace = true;
      } else if (run.text[index + d - 1] === " " || run.text[index + d] === " ") {
        index += d;
        atSpace = true;
      }
    }
    // A boundary read from text alignment is not sure enough to cut a word: the word goes whole.
    if (!atSpace && soft.includes(x)) continue;
    if (index > 0 && index < run.text.length) indexes.push(index);
  }
  indexes.sort((a, b) => a - b);
  const pieces: TextPiece[] = [];
  let from = 0;
  for (const index of [...indexes, run.text.length]) {
    if (index <= from) continue;
    const part = run.text.slice(from, index);
    if (part.trim() !== "") {
      const lead = part.length - part.trimStart().length;
      const trail = part.length - part.trimEnd().length;
      pieces.push(slice(run, from + lead, index - trail));
    }
    from = index;
  }
  return pieces;
}

const SENTENCE_END = /[.!?:;]["”’)]*$/;

/**
 * Whether the words `here` go on with the line `above` them in one column whose text spans [left, right]: the line
 * above is full (it ends near the column's right end, so the text wrapped), holds two words at least, ends no
 * sentence, and `here` starts in lower case.
 */
export function wrapsFrom(
  above: readonly TextPiece[],
  here: readonly TextPiece[],
  left: number,
  right: number,
): boolean {
  if (above.length < 2 || here.length === 0) return false;
  const last = above[above.length - 1];
  return (
    /^\p{Ll}/u.test(here[0].text) &&
    !SENTENCE_END.test(last.text) &&
    last.box.x2 >= right - 0.3 * (right - left)
  );
}

/**
 * Groups boxes into text lines: sorted by vertical center, an item joins the current line when its center is
 * within a third of the taller height of the line's center. Lines come top to bottom, each sorted left to right.
 */
export function groupLines<T extends { box: Box }>(items: readonly T[]): T[][] {
  const sorted = [...items].sort((a, b) => box.centerY(a.box) - box.centerY(b.box));
  const lines: T[][] = [];
  let current: T[] = [];
  let centerSum = 0;
  let height = 0;
  for (const item of sorted) {
    const cy = box.centerY(item.box);
    const h = box.height(item.box);
    if (current.length > 0 && Math.abs(cy - centerSum / current.length) <= Math.max(h, height) / 3) {
      current.push(item);
      centerSum += cy;
      height = Math.max(height, h);
      continue;
    }
    if (current.length > 0) lines.push(current);
    current = [item];
    centerSum = cy;
    height = h;
  }
  if (current.length > 0) lines.push(current);
  for (const line of lines) line.sort((a, b) => a.box.x1 - b.box.x1);
  return lines;
}

/**
 * Pieces of a right-to-left line in reading order: right to left, except that a sequence of left-to-right pieces
 * (a number split into runs, a Latin word) reads left to right within.
 */
function rightToLeft(line: readonly TextPiece[]): TextPiece[] {
  const sorted = [...line].sort((a, b) => b.box.x2 - a.box.x2);
  const out: TextPiece[] = [];
  let ltr: TextPiece[] = [];
  for (const piece of sorted) {
    if (piece.dir === "ltr") {
      ltr.push(piece);
      continue;
    }
    out.push(...ltr.reverse(), piece);
    ltr = [];
  }
  out.push(...ltr.reverse());
  return out;
}

/**
 * One line's text: pieces in reading order (right to left when most of the line's characters are right-to-left),
 * a space between two when they do not touch.
 */
function lineText(line: readonly TextPiece[]): string {
  let rtl = 0;
  let total = 0;
  for (const piece of line) {
    total += piece.text.length;
    if (piece.dir === "rtl") rtl += piece.text.length;
  }
  const ordered = 2 * rtl > total ? rightToLeft(line) : line;
  let text = "";
  let prev: TextPiece | null = null;
  for (const piece of ordered) {
    const part = piece.text.replace(CONTROL, "").trim();
    if (part === "") continue;
    if (prev) {
      const gap = Math.max(piece.box.x1 - prev.box.x2, prev.box.x1 - piece.box.x2);
      text += gap > 0.12 * Math.min(piece.fontSize, prev.fontSize) ? ` ${part}` : part;
    } else {
      text = part;
    }
    prev = piece;
  }
  return text;
}

/**
 * Lines of small raised text (a footnote mark, `(1)` after a header's word) joined to the line they are set
 * against: text under two thirds the line's size whose box overlaps the line's box by half its height, touching a
 * word of the line at its end. Read as a line of its own, the mark would come before the word it marks.
 */
function withRaisedMarks(lines: readonly TextPiece[][]): TextPiece[][] {
  const out: TextPiece[][] = lines.map((line) => [...line]);
  const size = (line: readonly TextPiece[]) => Math.max(...line.map((p) => p.fontSize));
  const top = (line: readonly TextPiece[]) => Math.min(...line.map((p) => p.box.y1));
  const bottom = (line: readonly TextPiece[]) => Math.max(...line.map((p) => p.box.y2));
  for (let k = 0; k < out.length; k++) {
    const mark = out[k];
    const attached = (line: readonly TextPiece[]) => {
      if (line === mark || size(mark) >= (2 / 3) * size(line)) return false;
      const overlap = Math.min(bottom(mark), bottom(line)) - Math.max(top(mark), top(line));
      if (overlap < 0.5 * (bottom(mark) - top(mark))) return false;
      const em = size(line);
      return mark.every((m) =>
        line.some((p) => m.box.x1 >= p.box.x2 - 0.1 * em && m.box.x1 - p.box.x2 <= 0.3 * em),
      );
    };
    const target = [out[k + 1], out[k - 1]].find((line) => line !== undefined && attached(line));
    if (!target) continue;
    target.push(...mark);
    target.sort((a, b) => a.box.x1 - b.box.x1);
    out.splice(k, 1);
    k--;
  }
  return out;
}

/**
 * A cell's text: its lines top to bottom, joined with spaces, but for Chinese or Japanese wrapped inside a word,
 * which joins without one (`扣除非经常性损` + `益的净利润`); a line stopping three characters short of the cell's
 * widest line ended there on purpose and keeps its space. Vertical text reads in its own order.
 */
export function cellText(pieces: readonly TextPiece[]): string {
  return cellTextBreaks(pieces).text;
}

/**
 * A cell's text as {@link cellText} joins it, with where a wrapped line ending in a Hangul syllable met the next
 * line's Hangul syllable: a Korean word may go on past such a break, which only the document's vocabulary tells
 * (hangul-wrap.ts), so the space stays and its place is kept for the assembly.
 */
export function cellTextBreaks(pieces: readonly TextPiece[]): { text: string; hangulBreaks: number[] } {
  const vertical = pieces.filter((p) => p.vertical);
  const horizontal = pieces.filter((p) => !p.vertical);
  const lines = withRaisedMarks(groupLines(horizontal));
  const reach = Math.max(...lines.map((line) => Math.max(...line.map((p) => p.box.x2))));
  let text = "";
  const hangulBreaks: number[] = [];
  let previous: readonly TextPiece[] | null = null;
  for (const line of lines) {
    const part = lineText(line);
    if (part === "") continue;
    const full = previous !== null && wrapped(previous, reach);
    if (text === "") text = part;
    else if (full && meetsUnspaced(text, part)) text += part;
    else {
      if (full && hangulMeet(text, part)) hangulBreaks.push(text.length);
      text += ` ${part}`;
    }
    previous = line;
  }
  const parts = [text];
  for (const piece of vertical.sort((a, b) => a.box.x1 - b.box.x1)) parts.push(piece.text.trim());
  return { text: parts.filter((p) => p !== "").join(" "), hangulBreaks };
}

/** Whether a cell's line runs to within three characters of the cell's widest line, as a wrapped line does. */
function wrapped(line: readonly TextPiece[], reach: number): boolean {
  const size = Math.max(...line.map((p) => p.fontSize));
  return Math.max(...line.map((p) => p.box.x2)) >= reach - 3 * size;
}

const NUMERIC =
  /^[([]?[-+−–]?[$€£¥]?\s?[-+−–]?(\d[\d,.\s']*|\.\d+)(%|[kKmMbB]|[eE][-+]?\d+)?[)\]]?[*†‡]*$|^[-–—]$/;

/**
 * A number as tables print them: signs, currency, thousands separators, percent, parentheses, a dash; or a
 * quantity, an amount with its unit (`200 ml`, `1/2 tsp`: quantity.ts).
 */
export function isNumeric(text: string): boolean {
  const t = text.trim();
  return t !== "" && t.length <= 24 && (NUMERIC.test(t) || isQuantity(t));
}

/** Index of the interval [bounds[i], bounds[i+1]) holding v, clamped to the ends. */
export function bandIndex(bounds: readonly number[], v: number): number {
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * A table's skeleton: column boundaries `xs` and row boundaries `ys` (ascending), and whether each interior
 * boundary separates the two cells on either side of it. Where it does not, the cells merge into a spanning cell.
 */
export interface Lattice {
  xs: number[];
  ys: number[];
  /** Whether the boundary xs[i] (0 < i < cols) separates the cells of row r. */
  vSplit: (i: number, r: number) => boolean;
  /** Whether the boundary ys[j] (0 < j < rows) separates the cells of column c. */
  hSplit: (j: number, c: number) => boolean;
  /** Whether the boundary xs[i] is drawn (a rule) rather than read from text alignment; drawn when not said. */
  drawn?: (i: number) => boolean;
}

export interface Region {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
}

/**
 * The cells of a lattice with their spans: from the top left, a cell grows right while no boundary separates it
 * from its neighbour, then down while no boundary separates its whole width from the row below.
 * Returns the regions and, per lattice slot, the index of the region covering it.
 */
export function latticeRegions(lattice: Lattice): { regions: Region[]; owner: Int32Array } {
  const cols = lattice.xs.length - 1;
  const rows = lattice.ys.length - 1;
  const owner = new Int32Array(rows * cols).fill(-1);
  const regions: Region[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (owner[r * cols + c] >= 0) continue;
      let colSpan = 1;
      while (c + colSpan < cols && !lattice.vSplit(c + colSpan, r) && owner[r * cols + c + colSpan] < 0)
        colSpan++;
      let rowSpan = 1;
      grow: while (r + rowSpan < rows) {
        const below = r + rowSpan;
        for (let k = c; k < c + colSpan; k++) {
          if (lattice.hSplit(below, k) || owner[below * cols + k] >= 0) break grow;
          if (k > c && lattice.vSplit(k, below)) break grow;
        }
        rowSpan++;
      }
      const index = regions.length;
      regions.push({ row: r, col: c, rowSpan, colSpan });
      for (let rr = r; rr < r + rowSpan; rr++) {
        for (let cc = c; cc < c + colSpan; cc++) owner[rr * cols + cc] = index;
      }
    }
  }
  return { regions, owner };
}

/**
 * Places runs into the regions of a lattice: a run crossing a boundary between two different cells of its row is
 * cut there; each piece goes to the cell holding its center. Runs whose center is outside the lattice are skipped.
 */
export function assignRuns(
  lattice: Lattice,
  regions: readonly Region[],
  owner: Int32Array,
  runs: readonly TextRun[],
): TextPiece[][] {
  const { xs, ys } = lattice;
  const cols = xs.length - 1;
  const rows = ys.length - 1;
  const contents: TextPiece[][] = regions.map(() => []);
  const place = (piece: TextPiece) => placePiece(lattice, owner, contents, piece);
  for (const run of runs) {
    const cx = box.centerX(run.box);
    const cy = box.centerY(run.box);
    if (cx < xs[0] || cx > xs[cols] || cy < ys[0] || cy > ys[rows]) continue;
    if (run.vertical) {
      place(runPiece(run));
      continue;
    }
    const r = bandIndex(ys, cy);
    const first = bandIndex(xs, run.box.x1 + 1);
    const last = bandIndex(xs, run.box.x2 - 1);
    const cuts: number[] = [];
    const soft: number[] = [];
    for (let c = first; c < last; c++) {
      if (owner[r * cols + c] !== owner[r * cols + c + 1])
        (lattice.drawn?.(c + 1) === false ? soft : cuts).push(xs[c + 1]);
    }
    if (cuts.length === 0 && soft.length === 0) place(runPiece(run));
    else for (const piece of cutRun(run, cuts, soft)) place(piece);
  }
  return contents;
}

/** Puts a piece into the region holding its center; a piece outside the lattice is skipped. */
function placePiece(lattice: Lattice, owner: Int32Array, contents: TextPiece[][], piece: TextPiece): void {
  const { xs, ys } = lattice;
  const cols = xs.length - 1;
  const cx = box.centerX(piece.box);
  const cy = box.centerY(piece.box);
  if (cx < xs[0] || cx > xs[cols] || cy < ys[0] || cy > ys[ys.length - 1]) return;
  const index = owner[bandIndex(ys, cy) * cols + bandIndex(xs, cx)];
  if (index >= 0) contents[index].push(piece);
}

/** The dominant style of some pieces, weighted by characters: `bold|italic|font|size`. */
function dominantStyle(pieces: readonly TextPiece[]): { key: string; share: number } | null {
  const weights = new Map<string, number>();
  let total = 0;
  for (const p of pieces) {
    const key = `${p.bold}|${p.italic}|${p.fontName}|${Math.round(p.fontSize)}`;
    const n = p.text.trim().length;
    weights.set(key, (weights.get(key) ?? 0) + n);
    total += n;
  }
  let best: { key: string; share: number } | null = null;
  for (const [key, n] of weights) if (!best || n / total > best.share) best = { key, share: n / total };
  return best;
}

/** A slot of a table being finished: the pieces and text of the cell starting there (empty elsewhere). */
export interface SlotText {
  pieces: TextPiece[];
  text: string;
}

/**
 * How many rows at the top are column headers, from the text alone: leading rows set entirely in bold (when the
 * body is not), a first row set in another style than the body of its columns, or a first row with a word above a
 * column of numbers.
 */
export function headerRowsFromText(grid: readonly SlotText[][]): number {
  const rows = grid.length;
  if (rows < 2) return 0;
  const rowPieces = grid.map((row) => row.flatMap((slot) => slot.pieces));
  let bold = 0;
  while (bold < rows && rowPieces[bold].length > 0 && rowPieces[bold].every((p) => p.bold)) bold++;
  if (bold > 0 && bold <= Math.max(1, Math.floor(rows / 2))) return bold;
  if (bold >= rows) return 0;
  const cols = grid[0].length;
  let styled = 0;
  let differs = 0;
  let wordOverNumbers = false;
  for (let c = 0; c < cols; c++) {
    const head = grid[0][c];
    const body = grid.slice(1).map((row) => row[c]);
    const values = body.map((slot) => slot.text).filter((t) => t !== "");
    const numeric = values.length >= 2 && values.filter(isNumeric).length >= 0.6 * values.length;
    if (numeric && head.text !== "" && !isNumeric(head.text)) wordOverNumbers = true;
    if (head.text === "") continue;
    const headStyle = dominantStyle(head.pieces);
    const bodyStyle = dominantStyle(body.flatMap((slot) => slot.pieces));
    if (!headStyle || !bodyStyle) continue;
    styled++;
    if (headStyle.key !== bodyStyle.key && headStyle.share >= 0.6 && bodyStyle.share >= 0.6) differs++;
  }
  if (styled > 0 && differs >= 0.6 * styled) return 1;
  return rows >= 3 && wordOverNumbers ? 1 : 0;
}

export interface TableDraft {
  lattice: Lattice;
  regions: Region[];
  contents: TextPiece[][];
  /** Rows known to be headers from the ruling (a booktabs header rule); null to infer from the text. */
  headerRows: number | null;
  method: DetectedTable["method"];
  /**
   * Whether every row and column boundary is drawn by a rule across the whole table (frame-table.ts): a form's
   * grid, whose empty rows under a header are cells to fill in.
   */
  drawnGrid?: boolean;
}

/**
 * The finished table: empty rows and columns at the edges dropped, cell texts and boxes, header flags.
 * Null when fewer than two rows hold two or more cells with text: a ruled box around a paragraph is not a table.
 * A drawn grid whose only text is its top rows, a header of two cells or more, keeps its empty rows under them
 * (a form's table left blank): it is a table all the same.
 */
export function finishTable(draft: TableDraft): DetectedTable | null {
  const { lattice, regions, contents } = draft;
  const joined = contents.map(cellTextBreaks);
  const texts = joined.map((j) => j.text);
  let r0 = Number.POSITIVE_INFINITY;
  let r1 = -1;
  let c0 = Number.POSITIVE_INFINITY;
  let c1 = -1;
  const filledRows = new Set<number>();
  const filledCols = new Set<number>();
  regions.forEach((region, i) => {
    if (texts[i] === "") return;
    r0 = Math.min(r0, region.row);
    r1 = Math.max(r1, region.row + region.rowSpan - 1);
    c0 = Math.min(c0, region.col);
    c1 = Math.max(c1, region.col + region.colSpan - 1);
    filledRows.add(region.row);
    filledCols.add(region.col);
  });
  if (filledCols.size < 2) return null;
  // A table has at least two rows of two or more cells: a frame of stacked boxes (a diagram) has none.
  const cellsPerRow = new Map<number, number>();
  regions.forEach((region, i) => {
    if (texts[i] !== "") cellsPerRow.set(region.row, (cellsPerRow.get(region.row) ?? 0) + 1);
  });
  const rowsOfCells = [...cellsPerRow.values()].filter((n) => n >= 2).length;
  if (filledRows.size < 2 || rowsOfCells < 2) {
    const rows = lattice.ys.length - 1;
    const blankForm = draft.drawnGrid === true && rowsOfCells >= 1 && r0 === 0 && r1 < rows - 1;
    if (!blankForm) return null;
    r1 = rows - 1;
  }
  const numRows = r1 - r0 + 1;
  const numCols = c1 - c0 + 1;
  const kept: { region: Region; index: number }[] = [];
  regions.forEach((region, index) => {
    const top = Math.max(region.row, r0);
    const bottom = Math.min(region.row + region.rowSpan - 1, r1);
    const left = Math.max(region.col, c0);
    const right = Math.min(region.col + region.colSpan - 1, c1);
    if (top > bottom || left > right) return;
    kept.push({
      region: { row: top - r0, col: left - c0, rowSpan: bottom - top + 1, colSpan: right - left + 1 },
      index,
    });
  });
  kept.sort((a, b) => a.region.row - b.region.row || a.region.col - b.region.col);
  let headerRows = draft.headerRows;
  if (headerRows !== null) headerRows = Math.max(0, headerRows - r0);
  if (headerRows === null || headerRows >= numRows) {
    const grid: SlotText[][] = Array.from({ length: numRows }, () =>
      Array.from({ length: numCols }, () => ({ pieces: [], text: "" })),
    );
    for (const { region, index } of kept)
      grid[region.row][region.col] = { pieces: contents[index], text: texts[index] };
    headerRows = headerRowsFromText(grid);
  }
  const { xs, ys } = lattice;
  const cells: Cell[] = kept.map(({ region, index }) => {
    const row = region.row + r0;
    const col = region.col + c0;
    return {
      row: region.row,
      col: region.col,
      rowSpan: region.rowSpan,
      colSpan: region.colSpan,
      text: texts[index],
      box: box.round({
        x1: xs[col],
        y1: ys[row],
        x2: xs[col + region.colSpan],
        y2: ys[row + region.rowSpan],
      }),
      columnHeader: region.row < (headerRows ?? 0),
      rowHeader: false,
      ...(joined[index].hangulBreaks.length > 0 ? { hangulBreaks: joined[index].hangulBreaks } : {}),
    };
  });
  return {
    box: box.round({ x1: xs[c0], y1: ys[r0], x2: xs[c1 + 1], y2: ys[r1 + 1] }),
    numRows,
    numCols,
    cells,
    method: draft.method,
  };
}
