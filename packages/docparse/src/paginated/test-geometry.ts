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
