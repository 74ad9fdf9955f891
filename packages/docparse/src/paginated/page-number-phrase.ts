import type { Block } from "./blocks.ts";
import { box } from "./geometry.ts";
import { type Line, makeLine } from "./lines.ts";

/**
 * The word for a page and the word between a page's number and the count of pages, in the languages of the
 * documents read: `Page 1 of 2`, `Seite 1 von 2`, `Página 1 de 2`, `1 sur 3`, `Strona 1 z 4`, `Стр. 1 из 5`.
 */
export const PAGE_WORD = String.raw`(?:page|pg\.?|seite|página|pagina|strona|sida|стр\.?|сторінка|страница)`;
export const OF_WORD = "(?:of|von|sur|de|di|van|av|af|из|з|z|ze)";
export const OF_PAGES = String.raw`(?:${OF_WORD}|\/)`;

/**
 * A page number that names itself: `Page 3`, `Page 1 of 1`, `Pg: 2 of 7`, `Page 4/9`, `Seite 1 von 2`. A bare
 * number may be a table's figure or an axis tick; with its word it is a page number wherever it stands near the
 * top or foot.
 */
export const PAGE_NUMBER_PHRASE = new RegExp(
  String.raw`^${PAGE_WORD}\s*:?\s*\d{1,4}(?:\s*${OF_PAGES}\s*\d{1,4})?$`,
  "iu",
);

/** The top and bottom shares of the page where a page number is looked for (as labels.ts looks for one). */
const TOP_SHARE = 0.2;
const BOTTOM_SHARE = 0.85;

/** Whether a box lies near the page's top or foot, where page numbers stand. */
export function nearPageEdge(b: { y1: number; y2: number }, pageHeight: number): boolean {
  return b.y2 < pageHeight * TOP_SHARE || b.y1 > pageHeight * BOTTOM_SHARE;
}

/** Ems: a page number set this far from the text beside it on its line stands apart from it (twice a word space). */
const APART = 0.5;

/**
 * Blocks with a page number that shares a one-line block near the page's top or foot with other text (a report's
 * subtitle, `(All figures in dollars)   Page 1 of 1`) split into two blocks, the page number's and the rest's, so
 * that the page number is labelled and left out as furniture while the rest of the line stays text. The phrase
 * must be runs of its own at the line's end or start, set apart from the rest by more than a word space.
 */
export function splitPageNumbers(blocks: readonly Block[], pageHeight: number): Block[] {
  return blocks.flatMap((block) => {
    if (!nearPageEdge(block.box, pageHeight)) return [block];
    if (block.lines.length > 1) return phraseLineApart(block);
    const parts = phraseApart(block.lines[0]);
    return parts ? parts.map((line) => ({ lines: [line], box: { ...line.box } })) : [block];
  });
}

/** Lines at most in a block near the page's edge whose first or last line is a page number of its own. */
const MAX_EDGE_LINES = 3;

/**
 * A short block near the page's top or foot whose first or last line is only a page-number phrase (a printout's
 * `For:1094N` over `Page 1`, a form's `Page 2` under its number) split into that line's block and the rest's, so
 * the page number is left out as furniture and the lines beside it stay text.
 */
function phraseLineApart(block: Block): Block[] {
  const { lines } = block;
  if (lines.length > MAX_EDGE_LINES) return [block];
  const at = [0, lines.length - 1].find(
    (k) => !lines[k].vertical && PAGE_NUMBER_PHRASE.test(lines[k].text.trim()),
  );
  if (at === undefined) return [block];
  const rest = lines.filter((_, k) => k !== at);
  const phrase = { lines: [lines[at]], box: { ...lines[at].box } };
  const others = { lines: rest, box: box.union(rest.map((line) => line.box)) };
  return at === 0 ? [phrase, others] : [others, phrase];
}

/** The line cut in two where a page-number phrase at its end or start stands apart; null when it has none. */
function phraseApart(line: Line): [Line, Line] | null {
  const runs = line.runs;
  if (line.vertical || line.dir !== "ltr" || runs.length < 2) return null;
  // A line that is a page number whole (`Página 1` `de 9`, spaced apart) stays one.
  if (PAGE_NUMBER_PHRASE.test(line.text.trim())) return null;
  const apart = (k: number) => runs[k].box.x1 - runs[k - 1].box.x2 >= line.fontSize * APART;
  for (let k = 1; k < runs.length; k++) {
    if (!apart(k)) continue;
    const head = makeLine(runs.slice(0, k));
    const tail = makeLine(runs.slice(k));
    if (PAGE_NUMBER_PHRASE.test(tail.text) || PAGE_NUMBER_PHRASE.test(head.text)) return [head, tail];
  }
  return null;
}
