import type { Box } from "../model.ts";
import { unspacedScript } from "../ocr/languages.ts";
import { BULLET, ENUMERATOR, NOTE_MARK, REFERENCE } from "./bullet-marks.ts";
import { dropInitials, wordInitials } from "./drop-initial.ts";
import { joinFontPieces } from "./font-pieces.ts";
import { box, type TextRun } from "./geometry.ts";
import { logoLetters } from "./logo-letters.ts";
import { joinScripts } from "./math-scripts.ts";
import { ocrBarText } from "./ocr-bars.ts";

/** Runs that share a baseline and sit close enough to be read as one line of text. */
export interface Line {
  runs: TextRun[];
  box: Box;
  text: string;
  /** The size most of the line's characters are set in. */
  fontSize: number;
  /** Most of the line's characters are bold (italic). */
  bold: boolean;
  italic: boolean;
  dir: "ltr" | "rtl";
  vertical: boolean;
  /** The dominant font's name. */
  fontName: string;
}

/** The value most characters have: the weighted mode, ties to the larger. */
function dominant<T>(runs: readonly TextRun[], pick: (run: TextRun) => T): T {
  const weight = new Map<T, number>();
  for (const run of runs) weight.set(pick(run), (weight.get(pick(run)) ?? 0) + run.text.length);
  let best = pick(runs[0]);
  let bestWeight = -1;
  for (const [value, w] of weight) {
    if (w > bestWeight) {
      best = value;
      bestWeight = w;
    }
  }
  return best;
}

const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;

/**
 * Whether `before` ends in a letter of one direction and `after` starts with a letter of the other: a Latin word
 * and a Hebrew or Arabic word never make one word, even set with no visible gap (`Python` beside `من`).
 */
function scriptsMeet(before: string, after: string): boolean {
  const last = before.at(-1) ?? "";
  const first = after[0] ?? "";
  return /\p{L}/u.test(last) && /\p{L}/u.test(first) && RTL_LETTER.test(last) !== RTL_LETTER.test(first);
}

/**
 * Two words OCR told apart: a space between them, however close they stand (an OCR run's size is its line's
 * height, so a tight word space falls under the gap that spaces text-layer runs). So is a word OCR read beside a
 * text-layer run: OCR reads whole words, in an image or outlines the text layer does not cover, and the two can
 * touch or overlap (a title's last word over the edge of a banner image holding the next). Scripts written without
 * spaces (Chinese, Japanese, Thai) aside.
 */
function ocrWords(previous: TextRun, run: TextRun, before: string): boolean {
  return (
    (previous.fontName === "ocr" || run.fontName === "ocr") &&
    !(unspacedScript(before.at(-1)) && unspacedScript(run.text[0]))
  );
}

/** A note's mark or an affiliation's letters (`a`, `a,b`). */
const OPENING_MARK = new RegExp(String.raw`^(?:${NOTE_MARK}|\p{Ll}{1,2}(?:,\p{Ll}{1,2})*)$`, "u");

/**
 * A note's marker opening a line: a superscript number, sign or small letter (`¹`, `*`, `†`, an affiliation's
 * `ᵃ` or `ᵃ,ᵇ`) set smaller than the text after it and raised above its baseline. It is a word of its own
 * (`1 Diese Metrik …`, `a Department of Physics`), though set with no gap; a marker after a word (`Metrik¹`) stays
 * attached, and a drop initial, larger than its text, is no marker.
 */
function openingMarker(marker: TextRun, next: TextRun): boolean {
  return (
    OPENING_MARK.test(marker.text.trim()) &&
    marker.fontSize < next.fontSize * 0.85 &&
    marker.box.y2 < next.box.y2 - next.fontSize * 0.15 &&
    /^\p{L}/u.test(next.text)
  );
}

/**
 * An exponent or index set against its base (`z⁵`, `i²`): smaller, raised or lowered, its box starting inside the
 * base's. It is part of the base's word, whatever space glyph a math typesetter drew between them.
 */
function attachedScript(base: TextRun, script: TextRun): boolean {
  return (
    script.fontSize <= 0.8 * base.fontSize &&
    script.box.x1 < base.box.x2 &&
    Math.abs(box.centerY(script.box) - box.centerY(base.box)) > 0.15 * base.fontSize
  );
}

/**
 * A subscript and a superscript set on one base start at one x, one over the other (`x_j^{(k)}`): the index is
 * read first, glued to its base (`xj(k)`), as pdftotext reads it. Runs of other sizes starting together keep the
 * order they were drawn in (a note mark and the text after it, drawn from one point), and so do glyphs drawn
 * over each other (TeX's `≠`, a slash over `=`).
 */
function stackedScripts(a: TextRun, b: TextRun): boolean {
  return (
    a.fontName !== "ocr" &&
    b.fontName !== "ocr" &&
    Math.abs(a.box.x1 - b.box.x1) <= 0.01 &&
    Math.abs(a.fontSize - b.fontSize) <= 0.2 * Math.max(a.fontSize, b.fontSize) &&
    box.verticalOverlap(a.box, b.box) < 0.5
  );
}

/**
 * Whether a line's words at both of its ends, as drawn, are right-to-left: its first word is, in whichever
 * direction it reads. A paragraph's direction is its first strong letter's (the bidi algorithm's rule), so such a
 * line reads from the right, however much Latin it holds between (a Persian note naming `\documentclass` and
 * `\begin{document}`). Runs of numbers and signs alone, and runs mixing both scripts, say nothing.
 */
function rightToLeftEnds(runs: readonly TextRun[]): boolean {
  const worded = runs.filter((run) => /\p{L}/u.test(run.text));
  if (worded.length < 2) return false;
  const left = worded.reduce((a, b) => (b.box.x1 < a.box.x1 ? b : a));
  const right = worded.reduce((a, b) => (b.box.x2 > a.box.x2 ? b : a));
  return [left, right].every((run) => RTL_LETTER.test(run.text) && !/[A-Za-z]/.test(run.text));
}

/** A line from runs already in reading order along the line. */
export function makeLine(runs: TextRun[], wordInitial?: ReadonlySet<TextRun>): Line {
  const rtl = runs.filter((run) => run.dir === "rtl").reduce((n, run) => n + run.text.length, 0);
  const total = runs.reduce((n, run) => n + run.text.length, 0);
  const dir = rtl * 2 > total || rightToLeftEnds(runs) ? "rtl" : "ltr";
  let text = "";
  let previous: TextRun | null = null;
  for (const [index, run] of runs.entries()) {
    if (previous) {
      // A space where the runs do not touch, unless one of them already brings it.
      // The distance between the two boxes, whichever side the next run is on (right-to-left lines hold both).
      const gap = Math.max(run.box.x1 - previous.box.x2, previous.box.x1 - run.box.x2);
      const size = Math.min(previous.fontSize, run.fontSize);
      // Right-to-left words (Arabic, Hebrew) set apart by separate runs take a narrower space than Latin kerning
      // allows: a bold Arabic face spaces its words at a tenth of an em, as pdftotext reads them.
      // Across a change of baseline (an exponent, then the text after it: `e^{-2πixζ} dx`) the step is no kerning
      // inside a word: a twentieth of the smaller size apart is a space, as pdftotext reads it. TeX sets half a
      // point (its script space) after a script and an italic letter's correction before one: `B 2 ξ`, `λk ξ`.
      const shifted =
        Math.abs(previous.box.y2 - run.box.y2) > Math.max(previous.fontSize, run.fontSize) * 0.3 &&
        Math.min(previous.box.y2, run.box.y2) > Math.max(previous.box.y1, run.box.y1);
      const space = shifted ? 0.05 : previous.dir === "rtl" && run.dir === "rtl" ? 0.1 : 0.15;
      const apart =
        (gap > size * space && !logoLetters(previous, run, gap, shifted)) ||
        (run.spaceBefore === true && run.box.x1 >= previous.box.x1 && !attachedScript(previous, run)) ||
        ocrWords(previous, run, text) ||
        scriptsMeet(text, run.text) ||
        (previous === runs[0] && openingMarker(previous, run));
      // A drop cap that is its word's first letter meets the rest of the word across the cap's distance.
      const initial = previous === runs[0] && wordInitial?.has(previous) === true && /^\p{L}/u.test(run.text);
      if (apart && !initial && !/\s$/.test(text) && !/^\s/.test(run.text)) text += " ";
    }
    text += ocrBarText(runs, index);
    previous = run;
  }
  return {
    runs,
    box: box.union(runs.map((run) => run.box)),
    text: text.replace(/\s+/g, " ").trim(),
    fontSize: dominant(runs, (run) => Math.round(run.fontSize * 2) / 2),
    bold: runs.filter((run) => run.bold).reduce((n, run) => n + run.text.length, 0) * 2 > total,
    italic: runs.filter((run) => run.italic).reduce((n, run) => n + run.text.length, 0) * 2 > total,
    dir,
    vertical: runs.every((run) => run.vertical === true),
    fontName: dominant(runs, (run) => run.fontName),
  };
}

/**
 * Groups a page's runs into lines: runs whose vertical extents overlap by half, sorted along the line, split
 * where the horizontal gap is wide (a column gutter or a table's cell gap), so that two columns' lines at the
 * same height stay apart. Vertical text (rotated labels) makes lines of its own.
 */
export function buildLines(runs: readonly TextRun[]): Line[] {
  const horizontal = runs.filter((run) => run.vertical !== true);
  const lines: Line[] = runs.filter((run) => run.vertical === true).map((run) => makeLine([run]));
  // Rows: runs sorted by their vertical middle, added to the row whose band they overlap. A drop initial sorts
  // with the first line beside it (its own middle lies lower, by the lines it reaches down beside).
  const initials = dropInitials(horizontal);
  const glued = wordInitials(initials, horizontal);
  const middle = (run: TextRun) => box.centerY(initials.get(run) ?? run.box);
  const sorted = [...horizontal].sort((a, b) => middle(a) - middle(b));
  const rows: TextRun[][] = [];
  let current: TextRun[] = [];
  let band: Box = { x1: 0, y1: 0, x2: 0, y2: 0 };
  for (const run of sorted) {
    // Half the smaller height shared: a raised superscript or a lowered subscript stays on its line. The run must
    // also meet the row's first run, so that a tall run (a big number in a banner) does not chain the line
    // below into this one.
    if (current.length > 0 && initials.has(run) && middle(run) >= band.y1 && middle(run) <= band.y2) {
      // The initial joins the line without growing its band: the lines below it stay lines of their own.
      current.push(run);
      continue;
    }
    if (
      current.length > 0 &&
      box.verticalOverlap(band, run.box) >= 0.5 &&
      Math.min(current[0].box.y2, run.box.y2) > Math.max(current[0].box.y1, run.box.y1)
    ) {
      current.push(run);
      const y1 = Math.min(band.y1, run.box.y1);
      // Keep the band about the height of its runs: a tall run must not swallow the next line.
      const tallest = Math.max(run.box.y2 - run.box.y1, current[0].box.y2 - current[0].box.y1);
      band = { ...band, y1, y2: Math.min(Math.max(band.y2, run.box.y2), y1 + tallest * 1.2) };
    } else {
      if (current.length > 0) rows.push(current);
      current = [run];
      // An initial opening a row gives it the height of the first line beside it, not its own.
      const first = initials.get(run);
      band = first ? { ...run.box, y1: first.y1, y2: first.y2 } : { ...run.box };
    }
  }
  if (current.length > 0) rows.push(current);

  for (const row of joinScripts(joinFontPieces(rows))) {
    row.sort((a, b) => (stackedScripts(a, b) ? b.box.y2 - a.box.y2 : a.box.x1 - b.box.x1));
    const hanging = hangingNumber(row);
    let segment: TextRun[] = [];
    for (const run of row) {
      const last = segment.at(-1);
      if (last) {
        const gap = run.box.x1 - last.box.x2;
        const size = Math.max(1, Math.min(last.fontSize, run.fontSize));
        // Word spaces are a third of an em; justified text stretches them to about one em. Wider is a gutter,
        // except after a bullet opening the line: a slide's list sets its items up to a few ems from their marks,
        // a list of references its entries from their `[1]` hanging in the margin; so does a heading its hanging
        // number (see hangingNumber).
        const mark = last.text.trim();
        const marker =
          segment.length === 1 && (BULLET.test(mark) || REFERENCE.test(mark) || last === hanging);
        if (gap > size * (marker ? 3 : 1.6)) {
          lines.push(lineInReadingOrder(segment, glued));
          segment = [];
        }
      }
      segment.push(run);
    }
    if (segment.length > 0) lines.push(lineInReadingOrder(segment, glued));
  }
  return lines;
}

/** A heading's number alone: `I.`, `IV.`, `2.`, `3)`. */
const HEADING_NUMBER = new RegExp(`^(?:${ENUMERATOR})$`);

/**
 * The number opening a row (its runs left to right) when it hangs before a heading: an enumerator alone, then
 * after a gap the row's only other text, bold like it and of its size (`I.` set 3 ems before `My Very Own Science:
 * Rationale`, a programme's part heading whose wider numbers, `III.`, meet their text at a word space). A number
 * before the cells of a table row has more than one gap after it, or cells not all bold.
 */
function hangingNumber(row: readonly TextRun[]): TextRun | null {
  const [number, ...rest] = row;
  if (rest.length === 0 || !number.bold || !HEADING_NUMBER.test(number.text.trim())) return null;
  const size = number.fontSize;
  if (!rest.every((run) => run.bold && Math.abs(run.fontSize - size) < 0.5)) return null;
  for (let i = 1; i < rest.length; i++) if (rest[i].box.x1 - rest[i - 1].box.x2 > size * 1.6) return null;
  return number;
}

/**
 * Runs sorted left to right become a line. A right-to-left line reads its runs from the right, except that a
 * stretch of left-to-right runs inside it (numbers, Latin words) keeps its own order, as the bidi rules read it.
 */
function lineInReadingOrder(runs: TextRun[], wordInitial: ReadonlySet<TextRun>): Line {
  const line = makeLine(runs, wordInitial);
  if (line.dir !== "rtl") return line;
  const segments: TextRun[][] = [];
  for (const run of runs) {
    const previous = segments.at(-1);
    if (run.dir !== "rtl" && previous && previous[0].dir !== "rtl") previous.push(run);
    else segments.push([run]);
  }
  return makeLine(segments.reverse().flat());
}
