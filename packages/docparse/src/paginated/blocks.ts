import type { Box } from "../model.ts";
import { median } from "../statistics.ts";
import { BULLET_MARKS, CHECK_MARKS, DASH_MARKS, ENUMERATOR } from "./bullet-marks.ts";
import { brokenAtCapital, joinAtCapital } from "./capital-hyphen.ts";
import { compoundHyphen } from "./compound-hyphen.ts";
import { opensDatedEntry } from "./dated-entries.ts";
import { AFTER_DAY, DAY } from "./day-dates.ts";
import { boxBesideDropInitial } from "./drop-initial.ts";
import { box, type Rule } from "./geometry.ts";
import { wrapsInWord } from "./hangul-wrap.ts";
import type { Line } from "./lines.ts";
import { opensNote } from "./note-marker.ts";
import { widerThanNeighbours } from "./paragraph-gaps.ts";
import { salutationApart } from "./salutation.ts";
import { meetsUnspaced, wrapsUnspaced } from "./unspaced-wrap.ts";

/** Consecutive lines of one paragraph, heading, list item or caption. */
export interface Block {
  lines: Line[];
  box: Box;
}

/**
 * Starts of a list item: a bullet, a dash, a check mark, or an enumerator such as `1.`, `(a)`, `iv)` (the groups
 * of bullet-marks.ts). A telephone number's area code (`(818) 708-8131`) is no enumerator: taken for one, it
 * would be dropped as a marker, nor is a date's day (`30. Juni 2008`, day-dates.ts).
 */
export const LIST_MARKER = new RegExp(
  `^(?:[${BULLET_MARKS}${DASH_MARKS}${CHECK_MARKS}]|${ENUMERATOR})(?=\\s|$)(?!\\s+\\d{3,4}[-.\\s]\\d{4}\\b)(?!(?<=^${DAY})${AFTER_DAY})`,
  "u",
);

/** A contents entry's end: a leader of dots, then a page number (arabic or roman). */
const CONTENTS_ENTRY = /(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlcdm]{1,7})$/i;

/** What paragraph grouping knows of the page. */
export interface BlockContext {
  /** Gap (points) between consecutive lines of one paragraph in this document. */
  lineGap: number;
  /** The page's horizontal rules: a rule drawn between two lines parts them. */
  rules?: readonly Rule[];
}

/**
 * True when a horizontal rule runs between `upper` and `lower` across both (a box's caption row ruled off from
 * its body, a table's or listing's frame): the lines belong to different blocks however close they are. An
 * underline spans its words only, and lies within its line's box.
 */
function ruledApart(upper: Line, lower: Line, rules: readonly Rule[], size: number): boolean {
  const left = Math.min(upper.box.x1, lower.box.x1);
  const right = Math.max(upper.box.x2, lower.box.x2);
  return rules.some(
    (rule) =>
      rule.orientation === "h" &&
      rule.y1 > upper.box.y2 - size * 0.05 &&
      rule.y1 < lower.box.y1 + size * 0.05 &&
      rule.x1 <= left + size * 0.5 &&
      rule.x2 >= right - size * 0.5,
  );
}

/**
 * The usual gap between a line and the next one of the same paragraph: the median of the small positive gaps
 * between vertically consecutive lines of equal size. Paragraph breaks are what exceeds it clearly.
 */
export function typicalLineGap(orderedLines: readonly Line[]): number {
  const gaps: number[] = [];
  for (let i = 1; i < orderedLines.length; i++) {
    const a = orderedLines[i - 1];
    const b = orderedLines[i];
    if (Math.abs(a.fontSize - b.fontSize) > 0.5) continue;
    const gap = b.box.y1 - a.box.y2;
    // Boxes taller than the pitch overlap a little (a font's full height on TeX's 10/12 leading): the lower line
    // still starts below the upper one's middle, where a line beside it on its row does not.
    if (gap > -a.fontSize * 0.3 && gap < a.fontSize * 1.2 && b.box.y1 > box.centerY(a.box)) gaps.push(gap);
  }
  return median(gaps, 2);
}

/** A reference's number in brackets opening a line (`[1] Markus Kohm. …`). */
const REFERENCE_MARK = /^\[\d{1,3}\]\s/;

/**
 * True when `line` opens an item (a list marker, a reference's `[1]`) and `next` hangs under its text, indented
 * past the marker: the item goes on, however its first line is set (a reference whose title is in italics).
 */
function hangsUnder(line: Line, next: Line): boolean {
  if (!LIST_MARKER.test(line.text) && !REFERENCE_MARK.test(line.text)) return false;
  return next.box.x1 > line.box.x1 + line.fontSize * 0.8;
}

function allBold(line: Line): boolean {
  return line.runs.every((run) => run.bold || !/[\p{L}\p{N}]/u.test(run.text));
}

/** True when `next` continues the paragraph whose lines are `block` (read in order, its box their union). */
function continues(block: Block, next: Line, after: Line | undefined, context: BlockContext): boolean {
  const last = block.lines[block.lines.length - 1];
  if (next.vertical || last.vertical) return false;
  const size = Math.max(last.fontSize, next.fontSize);
  // Measured from the line's text, not from a drop initial reaching down beside the next lines.
  const gap = next.box.y1 - boxBesideDropInitial(last).y2;
  if (gap < -size * 0.5 || gap > Math.max(context.lineGap, 0) + size * 0.45) return false;
  if (context.rules && ruledApart(last, next, context.rules, size)) return false;
  if (widerThanNeighbours(block.lines, next, after)) return false;
  if (salutationApart(block.lines, next, after, context.lineGap)) return false;
  // A word broken at the line's end runs on into the next line whatever sizes the two are read at (OCR sizes a
  // line by its letters: a short last line of x-height letters, `nition.`, reads smaller than `… a defi-`).
  const startsLower = /^\p{Ll}/u.test(next.text);
  const brokenWord = /\p{L}-$/u.test(last.text) && startsLower;
  // The sentence runs on: the line ends in a lower-case word, a comma or a word broken at its end, and the next
  // line goes on in lower case.
  const runsOn = startsLower && /(?:\p{Ll}|,|\p{L}-)$/u.test(last.text);
  if (!brokenWord && Math.abs(last.fontSize - next.fontSize) > size * 0.12) return false;
  // A lone line in another font, set larger than the line below, is a heading above its text; not when the
  // sentence runs on from a lower-case word into one (`is used by the` + `leaflet class.`, its name in sans).
  if (
    block.lines.length === 1 &&
    last.fontSize >= next.fontSize * 1.05 &&
    last.fontName !== next.fontName &&
    !runsOn
  )
    return false;
  // A line set all in bold above one that is not is a heading above its text; inline bold does not split.
  if (allBold(last) !== allBold(next)) return false;
  // A lone italic line is a heading above its text, unless it opens an item its next line hangs under.
  if (
    last.italic &&
    !next.italic &&
    block.lines.length === 1 &&
    last.text.length <= 80 &&
    !hangsUnder(last, next)
  )
    return false;
  // The lines must share horizontal extent: one column.
  if (next.box.x1 > last.box.x2 || next.box.x2 < last.box.x1) return false;
  if (LIST_MARKER.test(next.text) || opensNote(next)) return false;
  if (opensDatedEntry(block.lines[0], next)) return false;
  // A contents entry ends at its page number: each entry is a block of its own.
  if (CONTENTS_ENTRY.test(last.text)) return false;
  // The block's box is the union of its lines' boxes (buildBlocks keeps it so).
  const left = block.box.x1;
  const right = block.box.x2;
  const width = right - left;
  // A list item's continuation is indented under its text; anything else starting left of the item is new,
  // unless the sentence runs on into it (`(c) Excepted position shall have the` + `same meaning as …`, or
  // `… the competitive serv-` + `ice that …`: a paragraph opening with its letter on an indented first line, as
  // regulations set them; in Chinese or Japanese, a line filled to its end that stops mid-sentence).
  if (
    LIST_MARKER.test(block.lines[0].text) &&
    next.box.x1 < block.lines[0].box.x1 - size * 0.3 &&
    !runsOn &&
    !wrapsUnspaced(last, next)
  )
    return false;
  // Chinese and Japanese wrap anywhere: a wrapped line fills its column to within a character or two. A line
  // stopping three characters short of where the next line (or the block) reaches was not wrapped: it ends a heading
  // or paragraph, and joined to the next line without a space its last word would run into the next one's first.
  if (meetsUnspaced(last.text, next.text)) {
    const reach = Math.max(next.box.x2, right);
    if (last.box.x2 < reach - size * 3) return false;
  }
  if (next.dir === "ltr" && block.lines.length >= 2) {
    // A short last line ending a sentence closes the paragraph; an indented first line opens a new one.
    const ended =
      /[.!?:。)]["'”’]?$/.test(last.text) && last.box.x2 < right - Math.max(width * 0.15, size * 3);
    const indented = next.box.x1 > left + size * 0.8 && Math.abs(block.lines[1].box.x1 - left) < size * 0.5;
    if (ended && indented) return false;
    if (ended && gap > context.lineGap + size * 0.2) return false;
  }
  return true;
}

/** Groups lines already in reading order into blocks. */
export function buildBlocks(orderedLines: readonly Line[], context: BlockContext): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  for (const [i, line] of orderedLines.entries()) {
    if (current && continues(current, line, orderedLines[i + 1], context)) {
      current.lines.push(line);
      current.box = box.union([current.box, line.box]);
    } else {
      current = { lines: [line], box: { ...line.box } };
      blocks.push(current);
    }
  }
  return blocks;
}

/**
 * The text of a block: lines joined by spaces; a word hyphenated across a line break is joined again
 * (`ver-` + `sion` → `version`, the Armenian hyphen too) when the next line goes on in lower case, a compound's own hyphen kept
 * (`year-over-` + `year` → `year-over-year`); before a capital, joined without a space with its hyphen
 * (`Anglo-` + `Saxon`), which {@link spelledBlockText} drops when the document spells the word without it.
 */
export function blockText(block: Block): string {
  return spelledBlockText(block, NO_WORDS);
}

const NO_WORDS: ReadonlySet<string> = new Set();

/**
 * A lowercase letter and a hyphen ending a line: `-`, U+2010, or the Armenian hyphen U+058A, which Armenian
 * typesetting puts at a line end where a word breaks (`թողարկ֊` + `ման`), as the hyphen is put in Latin text.
 */
const LINE_END_HYPHEN = /\p{Ll}[-\u2010\u058A]$/u;

/**
 * A block's text as {@link blockText} joins it, a word broken before a capital, or a Korean word broken at a line
 * end, checked against `spelled`.
 */
export function spelledBlockText(block: Block, spelled: ReadonlySet<string>): string {
  let text = "";
  for (const line of block.lines) {
    if (text === "") {
      text = line.text;
    } else if (LINE_END_HYPHEN.test(text) && /^\p{Ll}/u.test(line.text)) {
      text = (compoundHyphen(text, line.text) ? text : text.slice(0, -1)) + line.text;
    } else if (brokenAtCapital(text, line.text)) {
      text = joinAtCapital(text, line.text, spelled);
    } else if (meetsUnspaced(text, line.text) || wrapsInWord(text, line.text, spelled)) {
      // Chinese and Japanese lines wrap without spaces between words; Korean ones inside a word too.
      text += line.text;
    } else {
      text += ` ${line.text}`;
    }
  }
  return text;
}
