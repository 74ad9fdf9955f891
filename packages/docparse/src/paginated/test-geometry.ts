import type { Box } from "../model.ts";
import type { PageGeometry, Rule, TextRun } from "./geometry.ts";

/**
 * Page geometry built by hand for the layout and table tests: text runs, rules and pages as a PDF's text layer
 * and drawing would give them, in the model's coordinates (points from the page's top left).
 */

/** A run of `text` in `box`: upright 10 pt Helvetica, left to right, not bold or italic, fully confident. */
export function textRun(text: string, box: Box, options: Partial<TextRun> = {}): TextRun {
  return {
    text,
    box,
    fontName: "Helvetica",
    fontSize: 10,
    bold: false,
    italic: false,
    dir: "ltr",
    confidence: 1,
    ...options,
  };
}

/** A horizontal rule at `y` from `x1` to `x2`. */
export const hRule = (y: number, x1: number, x2: number, width = 0.5): Rule => ({
  x1,
  y1: y,
  x2,
  y2: y,
  width,
  orientation: "h",
});

/** A vertical rule at `x` from `y1` to `y2`. */
export const vRule = (x: number, y1: number, y2: number, width = 0.5): Rule => ({
  x1: x,
  y1,
  x2: x,
  y2,
  width,
  orientation: "v",
});

/** Page 1 of Letter size read from its text layer, with what `parts` give and nothing else on it. */
export function pageGeometry(parts: Partial<PageGeometry> = {}): PageGeometry {
  return {
    pageNumber: 1,
    width: 612,
    height: 792,
    runs: [],
    rules: [],
    rects: [],
    images: [],
    textSource: "text-layer",
    warnings: [],
    ...parts,
  };
}

/** Two columns of plain prose, a line an entry, for pages of two columns made in tests. */
export const LEFT_COLUMN = [
  "the left column opens with a sentence",
  "about the first part of the description",
  "which runs on down the column below",
  "and keeps going over several lines of",
  "plain text set in one narrow measure",
  "with nothing special about its words",
  "until the left column finally reaches",
  "its very last line here at the bottom.",
];
export const RIGHT_COLUMN = [
  "the right column tells how the vest is",
  "worn with pockets for small pets which",
  "crawl along the passages in the cloth",
  "where rodents may be seen moving, such",
  "as hamsters or mice, by a spectator who",
  "watches them go round the wearer and",
  "back again along the tunnels of the vest",
  "and that is the end of the right column.",
];

/** Hebrew lines of a right-to-left column, for pages of two scripts made in tests. */
export const HEBREW_COLUMN = [
  "בפנות התוריות שהם יסודות ועמודים",
  "אשר בית אלהים נכון עליהם ובמציאותם",
  "מציאות התורה מסדרת ממנו יתברך ואלו",
  "העדר אחת מהם תפל התורה בכללה חלילה",
];

/**
 * A parallel edition's page as its text layer gives it: `left` lines of a left-to-right column from x 90 to 300
 * (its first line run 3 pt long, into the gutter), the Hebrew column's lines beside its first rows from x 306 to
 * 520, 12 pt apart; with `numbers`, each left line numbered in 7 pt 12 pt off, at the left margin (1, 2, 3…) and each
 * Hebrew line at the right one (1R, 2R…), on their lines' baselines.
 */
export function parallelPageRuns(left: readonly string[], numbers: boolean): TextRun[] {
  const runs: TextRun[] = [];
  left.forEach((text, i) => {
    const y = 100 + 12 * i;
    runs.push(textRun(text, { x1: 90, y1: y, x2: i === 0 ? 303 : 300, y2: y + 10 }));
    if (numbers)
      runs.push(textRun(String(i + 1), { x1: 75, y1: y + 2, x2: 78.5, y2: y + 9 }, { fontSize: 7 }));
  });
  HEBREW_COLUMN.forEach((text, i) => {
    const y = 100 + 12 * i;
    runs.push(textRun(text, { x1: 306, y1: y, x2: 520, y2: y + 10 }, { dir: "rtl" }));
    if (numbers) runs.push(textRun(`${i + 1}R`, { x1: 532, y1: y + 2, x2: 539, y2: y + 9 }, { fontSize: 7 }));
  });
  return runs;
}
