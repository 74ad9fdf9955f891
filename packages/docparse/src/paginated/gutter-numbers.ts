import type { TextRun } from "./geometry.ts";

/** Fewest numbers that make a strip of line numbers (one or two are a page number, a footnote mark). */
const MIN_NUMBERS = 3;

/**
 * Line numbers set in the gutter between two columns (patents, legal pleadings: 5, 10, 15 … beside the text).
 * Found from position, not from one document: runs of one to three digits, at least three of them stacked in a
 * strip no wider than a few digits, their values mostly rising down the page, most of them with text on both
 * sides on their own line, and no other text across the strip's column (a gutter is empty). Left in place they close the gutter (the columns are then read across, line by line) and
 * land inside the sentences of a column. Numbers at the page's margin (a transcript's) have no text on one side
 * and are left alone.
 */
export function gutterLineNumbers(runs: readonly TextRun[], size: number): Set<TextRun> {
  const numbers = runs.filter((run) => !run.vertical && /^\d{1,3}$/.test(run.text.trim()));
  if (numbers.length < MIN_NUMBERS) return new Set();
  // Sideways text (a stamp up the margin) is on no line: it stands beside no number.
  const others = runs.filter((run) => !numbers.includes(run) && !run.vertical);
  const between = (n: TextRun) => {
    const sameLine = others.filter((o) => Math.min(o.box.y2, n.box.y2) > Math.max(o.box.y1, n.box.y1));
    return sameLine.some((o) => o.box.x2 <= n.box.x1) && sameLine.some((o) => o.box.x1 >= n.box.x2);
  };
  // Strips: numbers whose middles lie within a digit's width or so of each other.
  const found = new Set<TextRun>();
  const byMiddle = [...numbers].sort((a, b) => middle(a) - middle(b));
  let start = 0;
  for (let i = 1; i <= byMiddle.length; i++) {
    if (i < byMiddle.length && middle(byMiddle[i]) - middle(byMiddle[i - 1]) <= size) continue;
    const strip = byMiddle.slice(start, i).sort((a, b) => a.box.y1 - b.box.y1);
    start = i;
    // Most of the strip stands between text (a number beside a blank line of one column still belongs).
    if (strip.length < MIN_NUMBERS || strip.filter(between).length * 2 < strip.length) continue;
    // A gutter is empty down its length: lines of text that run across the strip's place (a code listing's
    // `pxc 1 create`, `port 1/1` under it) make the numbers words of their lines, not a strip beside them.
    if (crossings(strip, others) * 2 > strip.length) continue;
    const values = strip.map((run) => Number(run.text.trim()));
    const rising = values.slice(1).filter((value, k) => value > values[k]).length;
    // OCR misreads a digit now and then: most steps rise, not all.
    if (rising < (strip.length - 1) * 0.6) continue;
    for (const run of strip) found.add(run);
  }
  return found;
}

/** Runs of other text lying across a strip's column, between its first number and its last. */
function crossings(strip: readonly TextRun[], others: readonly TextRun[]): number {
  const x1 = Math.min(...strip.map((run) => run.box.x1));
  const x2 = Math.max(...strip.map((run) => run.box.x2));
  const top = strip[0].box.y1;
  const bottom = strip[strip.length - 1].box.y2;
  return others.filter((o) => {
    const mid = (o.box.y1 + o.box.y2) / 2;
    return mid > top && mid < bottom && o.box.x1 < x2 && o.box.x2 > x1;
  }).length;
}

function middle(run: TextRun): number {
  return (run.box.x1 + run.box.x2) / 2;
}

/** Fewest numbers that make a margin's ruler of line numbers (pleading paper numbers 25 or 28 lines a page). */
const MIN_RULER = 8;
/** Fewest numbers that make a ruler when each carries the same side letter (a parallel edition's 1R, 2R…). */
const MIN_LETTERED_RULER = 4;

/** A line number: one to three digits, with a side letter after them (`2R`, `12a`) or none. */
const LINE_NUMBER = /^(\d{1,3})([A-Za-z]?)$/;

/**
 * Line numbers set at the page's margin on a grid of their own (pleading paper: 1 to 28 down the left edge at a
 * fixed pitch, whatever the spacing of the text beside them). Found from position and values, not from one
 * document: runs of one to three digits, at least eight of them stacked at one right edge, nothing set beyond
 * them (to their left at the left margin, to their right at the right one), their values counting up by one,
 * their steps even; and most of them not level with a line of the text beside them. Left in place, each lands
 * inside the line of text it overlaps, in the middle of its sentences. Numbers level with their lines number
 * them: a table's row numbers stay where they are, but a transcript's (its prose running on from one numbered
 * line into the next, or a word broken across them) are taken out too, so that its sentences read whole, not cut
 * by a number at each line's start, nor each line made a paragraph of its own beside its number. Numbers that all
 * carry one side letter after their digits (a critical edition's right-hand text numbered 1R, 2R…: the letter
 * says which text they count) are line numbers however few lines they count and whatever the lines say: four
 * make a ruler. Numbers with text set beyond them (a column's own numbers) stay where they are.
 */
export function marginLineNumbers(runs: readonly TextRun[], size: number): Set<TextRun> {
  const numbers = runs.filter((run) => !run.vertical && LINE_NUMBER.test(run.text.trim()));
  if (numbers.length < MIN_LETTERED_RULER) return new Set();
  const isNumber = new Set(numbers);
  const others = runs.filter((run) => !run.vertical && !isNumber.has(run));
  const found = new Set<TextRun>();
  // Rulers: numbers set flush right at one edge (1 to 9 and 10 to 28 end where each other end), each strip of one
  // side letter or none.
  const letterOf = (run: TextRun) => LINE_NUMBER.exec(run.text.trim())?.[2] ?? "";
  const byEdge = [...numbers].sort((a, b) => letterOf(a).localeCompare(letterOf(b)) || a.box.x2 - b.box.x2);
  let start = 0;
  for (let i = 1; i <= byEdge.length; i++) {
    if (
      i < byEdge.length &&
      letterOf(byEdge[i]) === letterOf(byEdge[i - 1]) &&
      byEdge[i].box.x2 - byEdge[i - 1].box.x2 <= size * 0.3
    )
      continue;
    const strip = byEdge.slice(start, i).sort((a, b) => a.box.y1 - b.box.y1);
    start = i;
    const lettered = letterOf(strip[0]) !== "";
    if (strip.length < (lettered ? MIN_LETTERED_RULER : MIN_RULER) || !counting(strip)) continue;
    const x1 = Math.min(...strip.map((run) => run.box.x1));
    const x2 = Math.max(...strip.map((run) => run.box.x2));
    const top = strip[0].box.y1;
    const bottom = strip[strip.length - 1].box.y2;
    // At a margin: no text set to the left of the strip anywhere down its length (the left margin), or none to
    // its right (the right margin); the text beside the numbers is on the other side.
    const down = (o: TextRun) => o.box.y2 > top && o.box.y1 < bottom;
    const atLeft = !others.some((o) => o.box.x2 <= x1 && down(o));
    const atRight = !atLeft && !others.some((o) => o.box.x1 >= x2 && down(o));
    if (!atLeft && !atRight) continue;
    // On a grid of its own: most numbers that have text beside them are not level with it.
    const beside = strip.map((n) =>
      others.filter(
        (o) =>
          (atLeft ? o.box.x1 >= n.box.x2 : o.box.x2 <= n.box.x1) &&
          Math.min(o.box.y2, n.box.y2) > Math.max(o.box.y1, n.box.y1),
      ),
    );
    const withText = beside.filter((line) => line.length > 0).length;
    if (withText < (lettered ? MIN_LETTERED_RULER : MIN_RULER / 2)) continue;
    if (!lettered) {
      const level = strip.filter((n, k) => beside[k].some((o) => levelWith(n, o))).length;
      // Off the text's lines, the numbers stand on a grid of their own, at an even pitch.
      if (level * 2 <= withText && !evenPitch(strip)) continue;
      // Level with their lines, they number those lines; a transcript's numbers (prose running on from one
      // numbered line into the next) are apparatus beside the text, a table's row numbers (no row runs on) belong
      // to it. Numbering each line of an article (a journal's review copy), they step as its lines do, wider at a
      // heading or a block's edge: uneven, they are taken out when the prose beside them runs on line after line,
      // as a transcript's does and a table's rows do not (a quarter of the numbered lines at least).
      if (level * 2 > withText) {
        const runOns = runsOnCount(beside);
        if (runOns === 0 || (!evenPitch(strip) && runOns * 4 < withText)) continue;
      }
    }
    for (const run of strip) found.add(run);
  }
  return found;
}

/**
 * How many numbered lines of prose run on into the next numbered line: each ends inside a sentence (a lower-case
 * letter, a comma, or a word broken by a hyphen) and the next begins with a lower-case letter.
 */
function runsOnCount(lines: readonly (readonly TextRun[])[]): number {
  const texts = lines.map((line) =>
    [...line]
      .sort((a, b) => a.box.x1 - b.box.x1)
      .map((run) => run.text.trim())
      .join(" "),
  );
  return texts.filter(
    (text, k) => k + 1 < texts.length && /(?:[\p{Ll},]|\p{L}-)$/u.test(text) && /^\p{Ll}/u.test(texts[k + 1]),
  ).length;
}

/** Values counting up by one (OCR misreads one now and then). */
function counting(strip: readonly TextRun[]): boolean {
  const values = strip.map((run) => Number.parseInt(run.text.trim(), 10));
  const steps = values.slice(1).filter((value, k) => value === values[k] + 1).length;
  return steps >= (strip.length - 1) * 0.8;
}

/** Numbers at an even pitch down the page (most steps within 15% of the middle one). */
function evenPitch(strip: readonly TextRun[]): boolean {
  const gaps = strip.slice(1).map((run, k) => centerY(run) - centerY(strip[k]));
  const sorted = [...gaps].sort((a, b) => a - b);
  const pitch = sorted[Math.floor(sorted.length / 2)];
  return pitch > 0 && gaps.filter((gap) => Math.abs(gap - pitch) <= pitch * 0.15).length >= gaps.length * 0.8;
}

/**
 * A number is level with a run of text beside it when their middles meet, or when, set smaller, it stands inside
 * the run's height (a line number in a smaller size shares its line's baseline, its middle lower than the line's).
 */
function levelWith(n: TextRun, o: TextRun): boolean {
  const height = n.box.y2 - n.box.y1;
  if (Math.abs(centerY(o) - centerY(n)) <= height * 0.2) return true;
  const lineHeight = o.box.y2 - o.box.y1;
  const slack = lineHeight * 0.1;
  return height < lineHeight * 0.9 && n.box.y1 >= o.box.y1 - slack && n.box.y2 <= o.box.y2 + slack;
}

function centerY(run: TextRun): number {
  return (run.box.y1 + run.box.y2) / 2;
}

/**
 * The line numbers taken out of the text, as rulers: numbers stacked one above another (their middles within
 * `size` across) make one, read top to bottom, and the rulers follow one another in the page's direction (left
 * to right, or from the right), so that a parallel edition's two rulers read `1 2 … 10` and `1R … 5R`, not
 * `1 1R 2 2R` interleaved by height.
 */
export function rulers(numbers: Iterable<TextRun>, size: number, rtl: boolean): TextRun[][] {
  const byMiddle = [...numbers].sort((a, b) => middle(a) - middle(b));
  const strips: TextRun[][] = [];
  let start = 0;
  for (let i = 1; i <= byMiddle.length; i++) {
    if (i < byMiddle.length && middle(byMiddle[i]) - middle(byMiddle[i - 1]) <= size) continue;
    strips.push(byMiddle.slice(start, i).sort((a, b) => a.box.y1 - b.box.y1));
    start = i;
  }
  return rtl ? strips.reverse() : strips;
}
