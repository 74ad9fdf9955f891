import { median } from "../statistics.ts";

/**
 * Letters and marks that reach below the baseline (`g`, `p`, `y`, a comma, brackets): a line's box spans its type
 * size only when it holds one of them.
 */
const DESCENDING = /[gjpqyQJ,;()[\]{}|@$§µçşţ_]/u;

/** How much of the type size a line without descenders measures, ascender to baseline, in common faces. */
const UNDESCENDED_SHARE = 0.8;

/**
 * A line's type size from the height of its box as OCR measured it. The box of a line of lowercase text with no
 * descending letter (`Helvetica`, `Results`) stops at the baseline, a fifth short of the size its neighbours are
 * measured at: it is scaled up, or a title line with no `g` or `y` reads as set smaller than the body beside it.
 * A line of capitals and figures alone (`14/09/16 20:42`, `IV`) is left as measured: the stamps, folios and
 * labels set that way are compared by their height as before.
 */
export function lineTypeSize(heightPx: number, text: string): number {
  return DESCENDING.test(text) || !/\p{Ll}/u.test(text) ? heightPx : heightPx / UNDESCENDED_SHARE;
}

/** Letters and figures that reach the cap or ascender height. */
const ASCENDING = /[\p{Lu}\p{N}bdfhklt]/u;
/** A word's estimate counts when it has two letters or figures at least (not a mark, a bullet or a lone letter). */
const WORD = /[\p{L}\p{N}].*[\p{L}\p{N}]/u;
/** A line's own words measure it when there are this many of them with an estimate. */
const MIN_MEASURED_WORDS = 3;
/** A row is inflated when it measures over this many times what its words say, beyond the page's usual ratio. */
const INFLATED = 4 / 3;

/** An OCR line as its type size is measured: its row's height and its words' texts and heights, in pixels. */
export interface MeasuredLine {
  rowHeightPx: number;
  words: readonly { text: string; heightPx: number }[];
}

/**
 * The type size its words give a line: a word with ascending and descending letters spans the size, one with
 * ascending letters alone four fifths of it; the median of three such words or more, else null.
 */
function wordsMeasure(words: MeasuredLine["words"]): number | null {
  const measured: number[] = [];
  for (const { text, heightPx } of words) {
    if (!WORD.test(text) || !ASCENDING.test(text)) continue;
    measured.push(DESCENDING.test(text) ? heightPx : heightPx / UNDESCENDED_SHARE);
  }
  return measured.length < MIN_MEASURED_WORDS ? null : median(measured);
}

/**
 * The type size of each line of a page, in pixels: its row's (`lineTypeSize`), unless the row is inflated. OCR's
 * row spans all the ink it grouped into the line: a raised reference mark (`[8]` over a web print's line, or
 * `Routern,[7]` read as one word), a speck or a stroke above it makes the row taller than the type, and a body
 * line then reads as set larger, a heading. The words' own boxes measure the type too (`wordsMeasure`). How rows
 * compare with their words is the page's own (its scan, its face): where a line's row stands clearly further
 * over its words than the page's lines do in the median, it is inflated, and its size is its words' measure at
 * the page's ratio, so that it reads at its neighbours' size.
 */
export function lineTypeSizes(lines: readonly MeasuredLine[]): number[] {
  const rows = lines.map((line) =>
    lineTypeSize(line.rowHeightPx, line.words.map((word) => word.text).join(" ")),
  );
  const measures = lines.map((line) => wordsMeasure(line.words));
  const ratios = rows.flatMap((row, i) => {
    const measure = measures[i];
    return measure === null ? [] : [row / measure];
  });
  if (ratios.length === 0) return rows;
  const usual = median(ratios);
  return rows.map((row, i) => {
    const measure = measures[i];
    return measure !== null && row > measure * usual * INFLATED ? measure * usual : row;
  });
}
