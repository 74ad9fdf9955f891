/**
 * Text rows inside one band between two horizontal rules: when a band holds several rows (rules drawn around a
 * group of rows, a header of wrapped labels, a cell that runs on past the band, paragraphs side by side), which
 * of its text lines start a row. Also the tests frame-table.ts uses to keep a text boundary: a column gap in a
 * row, words centered apart in a multi-level header.
 */
import { box } from "../paginated/geometry.ts";
import { isProse, type WordLine } from "./aligned.ts";
import { bandIndex, groupLines, isNumeric, type TextPiece, wrapsFrom } from "./cells.ts";
import type { Interval } from "./grid.ts";
import { covered, EDGE_COVER } from "./rule-segments.ts";
import { type Frame, ruledV } from "./ruled-frame.ts";

export interface RowWords {
  y0: number;
  y1: number;
  words: TextPiece[];
}

/**
 * Text rows inside one band between two horizontal boundaries. The band splits at its text lines when every line
 * stands apart (no line straddles two others, as a label centered beside a pair of rows does); a line with text
 * in one column only, under text in that column, continues the row above (a wrapped cell), unless that column is
 * the first in the line's reading direction (the last for right-to-left text): a row's label column. Returns the inner boundaries; none when the band holds fewer than two rows of two or more cells, unless the one such row
 * comes under headings: label lines alone, each set out before the line under it (a statement's group label,
 * "Items that may be reclassified", over its first item, in one band between two rules).
 */
export function textRowCuts(lines: readonly WordLine[], xs: readonly number[]): number[] {
  if (lines.length < 2) return [];
  const cuts: number[] = [];
  let groupColumns = new Set<number>();
  let groupLines = 0;
  let multi = 0;
  let headings = 0;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    const columns = new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))));
    if (k > 0) {
      const prev = lines[k - 1];
      const overlap = box.overlapY(prev, line);
      const smaller = Math.min(prev.y2 - prev.y1, line.y2 - line.y1);
      if (overlap > 0.3 * smaller) return [];
      const [only] = columns;
      const rtl = line.words.filter((w) => w.dir === "rtl").length * 2 > line.words.length;
      const label = rtl ? xs.length - 2 : 0;
      const continues =
        (columns.size === 1 && only !== label && groupColumns.has(only)) ||
        wrapsOn(prev, line, xs, lines) ||
        (runsAcross(prev, xs) && runsAcross(line, xs));
      if (!continues) {
        cuts.push((Math.min(prev.y2, line.y1) + Math.max(prev.y2, line.y1)) / 2);
        if (groupColumns.size >= 2) multi++;
        else if (groupLines === 1 && groupColumns.has(label) && setOutBefore(prev, line, rtl)) headings++;
        groupColumns = new Set();
        groupLines = 0;
      }
    }
    for (const c of columns) groupColumns.add(c);
    groupLines++;
  }
  const last = groupColumns.size >= 2;
  if (last) multi++;
  return multi >= 2 || (multi === 1 && last && headings === cuts.length && headings > 0) ? cuts : [];
}

/** Whether a line starts before the line under it by more than a small step: outdented (indented, right to left). */
function setOutBefore(above: WordLine, below: WordLine, rtl: boolean): boolean {
  if (above.words.length === 0 || below.words.length === 0) return false;
  if (rtl)
    return Math.max(...above.words.map((w) => w.box.x2)) > Math.max(...below.words.map((w) => w.box.x2)) + 2;
  return Math.min(...above.words.map((w) => w.box.x1)) < Math.min(...below.words.map((w) => w.box.x1)) - 2;
}

/**
 * A line of prose set across the band's columns (a declaration under a form's item table): it crosses an inner
 * column boundary with no column gap there. Two such lines in a row are one paragraph, not a row per line.
 */
function runsAcross(line: WordLine, xs: readonly number[]): boolean {
  if (line.words.length === 0) return false;
  const left = Math.min(...line.words.map((w) => w.box.x1));
  const right = Math.max(...line.words.map((w) => w.box.x2));
  const inner = xs.slice(1, -1).filter((x) => x > left && x < right);
  return inner.length > 0 && inner.every((x) => !columnGapAt(line.words, x, left, right));
}

/**
 * A band whose every column holds running text (see `isProse`): paragraphs side by side in one ruled cell each, a
 * column of do's beside a column of don'ts, not rows.
 */
export function proseBand(bandLines: readonly WordLine[], xs: readonly number[]): boolean {
  const columns = new Map<number, TextPiece[][]>();
  for (const line of bandLines) {
    const cells = new Map<number, TextPiece[]>();
    for (const w of line.words) {
      const c = bandIndex(xs, box.centerX(w.box));
      cells.set(c, [...(cells.get(c) ?? []), w]);
    }
    for (const [c, cell] of cells) columns.set(c, [...(columns.get(c) ?? []), cell]);
  }
  if (columns.size === 0) return false;
  for (const cells of columns.values()) {
    const left = Math.min(...cells.map((cell) => cell[0].box.x1));
    const right = Math.max(...cells.map((cell) => cell[cell.length - 1].box.x2));
    const words = cells.reduce((n, cell) => n + cell.reduce((m, w) => m + w.text.split(/\s+/).length, 0), 0);
    const full = cells.filter(
      (cell) => cell[cell.length - 1].box.x2 - cell[0].box.x1 >= 0.8 * (right - left),
    ).length;
    if (!isProse({ filled: cells.length, words, full, numeric: 0, markers: 0 })) return false;
  }
  return true;
}

/**
 * A band ruled around a group of rows (a rule every five rows of a statistics table, a box around a ledger's
 * entries, a price sheet's group under its name): lines each with text in the same three columns or more and a
 * number among them, two or more of them or one under the group's heading. A row whose cells wrap has lines with
 * text in fewer columns than its first (the number, the amount, the date stand on one line only).
 */
export function rowGroup(bandLines: readonly WordLine[], xs: readonly number[]): boolean {
  if (bandLines.length < 2) return false;
  const keys = bandLines.map((line) =>
    [...new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))))].sort((a, b) => a - b),
  );
  // A heading over the group may come first: its name in the label column, set out to the left of the rows'
  // labels, perhaps a note at the row's end.
  const left = (line: WordLine) => Math.min(...line.words.map((w) => w.box.x1));
  const heading =
    keys[0][0] === 0 &&
    keys[0].length <= 2 &&
    keys[1].length >= 3 &&
    left(bandLines[0]) < left(bandLines[1]) - 2;
  const rows = heading ? keys.slice(1) : keys;
  const lines = heading ? bandLines.slice(1) : bandLines;
  // Each a row of data, with a number in it: lines of words alone in the same columns are a wrapped header.
  const data = lines.every((line) => line.words.some((w) => isNumeric(w.text)));
  return data && rows[0].length >= 3 && rows.every((k) => k.join() === rows[0].join());
}

/**
 * The top band of a table is its header of wrapped labels, one row, when its lines hold words and no numbers and
 * its label column (the first in the lines' reading direction) has text on the first line only while other
 * columns go on below it: rows of data stacked in one band would each have a label.
 */
export function wrappedHeader(bandLines: readonly WordLine[], xs: readonly number[]): boolean {
  if (bandLines.length < 2) return false;
  const words = bandLines.flatMap((line) => line.words);
  if (words.some((w) => isNumeric(w.text))) return false;
  const rtl = words.filter((w) => w.dir === "rtl").length * 2 > words.length;
  const label = rtl ? xs.length - 2 : 0;
  const columns = (line: WordLine) => new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))));
  const [first, ...rest] = bandLines.map(columns);
  return first.has(label) && first.size >= 2 && rest.every((cols) => !cols.has(label));
}

/**
 * The columns of band r its rules leave open above or below (a cell running on past the band), when others are
 * closed on both sides and a vertical rule sets the open ones apart (none otherwise: the band is read whole).
 */
export function openColumns(frame: Frame, r: number): Set<number> {
  const { xs, yRules } = frame;
  const open = new Set<number>();
  for (let c = 0; c < xs.length - 1; c++) {
    const above = covered(yRules[r], xs[c], xs[c + 1]) >= EDGE_COVER;
    const below = covered(yRules[r + 1], xs[c], xs[c + 1]) >= EDGE_COVER;
    if (!above || !below) open.add(c);
  }
  if (open.size === xs.length - 1) return new Set();
  // Only a cell boxed apart counts: a vertical rule divides each open column from a closed neighbour.
  for (let i = 1; i < xs.length - 1; i++) {
    if (open.has(i - 1) !== open.has(i) && !ruledV(frame, i, frame.ys[r], frame.ys[r + 1])) return new Set();
  }
  return open;
}

/**
 * The lines of a band with the words of its open columns left out: a cell that runs on past the band (a chart
 * boxed beside the table) is not one of its rows.
 */
export function closedLines(
  bandLines: readonly WordLine[],
  xs: readonly number[],
  open: ReadonlySet<number>,
): readonly WordLine[] {
  if (open.size === 0) return bandLines;
  const out: WordLine[] = [];
  for (const line of bandLines) {
    const words = line.words.filter((w) => !open.has(bandIndex(xs, box.centerX(w.box))));
    if (words.length === 0) continue;
    if (words.length === line.words.length) {
      out.push(line);
      continue;
    }
    const y1 = Math.min(...words.map((w) => w.box.y1));
    const y2 = Math.max(...words.map((w) => w.box.y2));
    out.push({ ...line, words, y1, y2 });
  }
  return out;
}

/**
 * Whether every cell of `line` goes on with the text of the line above in its column (see `wrapsFrom`): lines
 * wrapped in parallel, as the paragraphs of boxes side by side are, make one row, not a row per line.
 */
function wrapsOn(prev: WordLine, line: WordLine, xs: readonly number[], band: readonly WordLine[]): boolean {
  const inColumn = (l: WordLine, c: number) => l.words.filter((w) => bandIndex(xs, box.centerX(w.box)) === c);
  const columns = new Set(line.words.map((w) => bandIndex(xs, box.centerX(w.box))));
  if (columns.size === 0) return false;
  for (const c of columns) {
    const all = band.flatMap((l) => inColumn(l, c));
    const left = Math.min(...all.map((w) => w.box.x1));
    const right = Math.max(...all.map((w) => w.box.x2));
    const above = inColumn(prev, c);
    const here = inColumn(line, c);
    if (!wrapsFrom(above, here, left, right) && !caselessWrap(above, here, left, right)) return false;
  }
  return true;
}

/**
 * Whether the words `here` go on with the line `above` them in a script without letter case (Korean, Chinese,
 * Japanese), where no lower-case start tells a wrapped line: the line above fills its column (it ends within a
 * tenth of the column's width of its right end, no sentence ended) and `here` opens with a letter of no case or
 * a run of fill dashes (an amendment's "-----" for text left as it is), not with an item's mark (a number, a
 * circled number, a bullet, a bracket, a letter and a stop: `1.`, `⑤`, `<신 설>`, `가.`), which starts a row of its own.
 */
function caselessWrap(
  above: readonly TextPiece[],
  here: readonly TextPiece[],
  left: number,
  right: number,
): boolean {
  if (above.length === 0 || here.length === 0) return false;
  // Right-to-left lines end at their left: their fill and first word are read from the other side (not here).
  if ([...above, ...here].some((w) => w.dir === "rtl")) return false;
  const text = above.map((w) => w.text).join(" ");
  const long = above.length >= 2 || [...text].length >= 10;
  const full = above[above.length - 1].box.x2 >= right - 0.1 * (right - left);
  const first = here[0].text.trim();
  // A letter with a stop or a bracket after it is an item's mark too (`가.`, `イ)`).
  const opens = /^(?:\p{Lo}|[-‐–—]{3,})/u.test(first) && !/^\p{Lo}[.)]/u.test(first);
  return long && full && opens && !/[.!?。]["'”’)]?$/.test(text);
}

/**
 * Whether words of a row stand on both sides of x, between left and right, with no word within a column gap
 * (three quarters of an em) across x: two cells that happen to lack the rule between them.
 */
export function columnGapAt(words: readonly TextPiece[], x: number, left: number, right: number): boolean {
  let before = Number.NEGATIVE_INFINITY;
  let after = Number.POSITIVE_INFINITY;
  let size = 0;
  for (const w of words) {
    const cx = box.centerX(w.box);
    if (cx <= left || cx >= right) continue;
    if (w.box.x1 < x && w.box.x2 > x) return false;
    if (w.box.x2 <= x) before = Math.max(before, w.box.x2);
    else after = Math.min(after, w.box.x1);
    size = Math.max(size, w.fontSize);
  }
  return Number.isFinite(before) && Number.isFinite(after) && after - before >= 0.75 * size;
}

/**
 * Stretches of one text line's words no more than 0.55 em apart (word spaces, not the gap between two cells), for
 * the words of a row: each line of the row apart.
 */
export function stretches(words: readonly TextPiece[]): (Interval & { words: TextPiece[] })[] {
  const out: (Interval & { words: TextPiece[] })[] = [];
  for (const line of groupLines(words)) {
    let current: (Interval & { words: TextPiece[] }) | null = null;
    for (const w of line) {
      if (current && w.box.x1 - current.x2 <= 0.55 * w.fontSize) {
        current.x2 = Math.max(current.x2, w.box.x2);
        current.words.push(w);
      } else {
        current = { x1: w.box.x1, x2: w.box.x2, words: [w] };
        out.push(current);
      }
    }
  }
  return out;
}

/**
 * Whether a stretch of words breaks at boundary xs[i] between two words each inside its own column and centered
 * on that column's text (`middles`, see columnMiddles): the sub-headers of a tightly set multi-level header
 * (`Rhythm`, `With- drawal`, `Folk method` under their group), not a label running across the columns.
 */
export function centeredApart(
  words: readonly TextPiece[],
  xs: readonly number[],
  middles: readonly number[],
  i: number,
): boolean {
  if (words.some((w) => w.box.x1 < xs[i] && w.box.x2 > xs[i])) return false;
  const left = words.filter((w) => w.box.x2 <= xs[i]).at(-1);
  const right = words.find((w) => w.box.x1 >= xs[i]);
  const centered = (w: TextPiece | undefined, c: number) =>
    w !== undefined &&
    w.box.x1 >= xs[c] &&
    w.box.x2 <= xs[c + 1] &&
    Math.abs(box.centerX(w.box) - middles[c]) <= 0.1 * (xs[c + 1] - xs[c]);
  return centered(left, i - 1) && centered(right, i);
}

/** Per column, the middle of the extent of the words that lie wholly inside it (its middle, with none). */
export function columnMiddles(words: readonly TextPiece[], xs: readonly number[]): number[] {
  return xs.slice(0, -1).map((a, c) => {
    const b = xs[c + 1];
    const inside = words.filter((w) => w.box.x1 >= a && w.box.x2 <= b);
    if (inside.length === 0) return (a + b) / 2;
    return (Math.min(...inside.map((w) => w.box.x1)) + Math.max(...inside.map((w) => w.box.x2))) / 2;
  });
}
