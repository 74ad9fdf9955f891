import type { Box } from "../model.ts";
import { closeColumnGutters } from "./close-columns.ts";
import { gapUnderColumnTag } from "./column-tag.ts";
import { detailColumns } from "./detail-columns.ts";
import { box, type Gap } from "./geometry.ts";
import { labelStrip } from "./label-strip.ts";
import { bandBeforeColumns } from "./later-column.ts";
import { logoColumnsLast } from "./logo-column.ts";
import { narrowList } from "./narrow-list.ts";
import { answerColumns } from "./option-columns.ts";
import { letteredRowAcrossGutter, optionsAcrossGutter } from "./option-rows.ts";
import { overfullGutters } from "./overfull-lines.ts";
import { centredTitle, titleBeside } from "./page-title.ts";
import { printoutColumns } from "./printout-rows.ts";
import { scriptGutters } from "./script-columns.ts";
import { blockBesideLine } from "./side-block.ts";
import { stackedLines } from "./stacked-lines.ts";
import { wordSpacesRemoved } from "./word-spaces.ts";

/** Anything placed on a page that reading order sorts. */
export interface Placed {
  box: Box;
  /**
   * A figure or table: it does not block a column gutter (images often overhang theirs), and it goes with the
   * column that holds its middle.
   */
  float?: boolean;
  /**
   * Text set sideways (a margin stamp running up the page): it blocks neither a column gutter nor a cut across
   * the region, and goes with the part that holds its start.
   */
  aside?: boolean;
  /** A card: a box drawn around text. A region of cards only is read row by row, like a grid. */
  card?: boolean;
  /** The text it holds, when it is text (a run): answer columns are told by their few words (see answerColumns). */
  text?: string;
  /** It stands in a region of questions and answer columns, read along its rows (see answerColumns). */
  answerRow?: boolean;
  /** The font of its text, when it is text: a printout's fixed-width fields are read along rows (printoutColumns). */
  fontName?: string;
  /** It stands in a printout's fields, read along its rows, each row one line (see printoutColumns). */
  printoutRow?: boolean;
}

export interface ReadingOrderOptions {
  /** Narrowest vertical whitespace (points) that separates columns. */
  minGutter: number;
  /** Smallest horizontal whitespace (points) worth cutting at. */
  minGap: number;
  /** Narrowest column (points): narrower strips (bullets, line numbers) stay with their neighbour. */
  minColumnWidth: number;
  /** Columns are read right to left (a right-to-left page). */
  rtl: boolean;
  /** Points: the height of the page's usual text (its median font size), which a title's dwarfs. */
  textSize?: number;
  /** Points: the page's middle across (a title centred on the page is read before the columns under it). */
  pageMiddle?: number;
}

/** Gaps of at least `min` in the projection of the boxes on one axis, between the first and the last box. */
function projectionGaps(boxes: readonly Box[], axis: "x" | "y", min: number): Gap[] {
  if (boxes.length === 0) return [];
  const spans = boxes.map((b) => (axis === "x" ? [b.x1, b.x2] : [b.y1, b.y2])).sort((a, b) => a[0] - b[0]);
  const gaps: Gap[] = [];
  let reach = spans[0][1];
  for (const [start, end] of spans.slice(1)) {
    if (start - reach >= min) gaps.push({ start: reach, end: start });
    reach = Math.max(reach, end);
  }
  return gaps;
}

/**
 * Recursive XY-cut: columns first (vertical whitespace running through the whole region, each column wide
 * enough to hold text, not a strip of bullets or line numbers), then the widest horizontal gap, until nothing
 * splits. Returns the regions that did not split, in reading order, each sorted top to bottom and then along
 * the line. Works on any placed elements: runs, lines, tables, figures.
 */
export function readingOrderGroups<T extends Placed>(
  elements: readonly T[],
  options: ReadingOrderOptions,
): T[][] {
  if (elements.length === 0) return [];
  if (elements.length === 1) return [[...elements]];
  // A title set level with the top of a column beside it is read before that column (see titleBeside).
  const titled = titleBeside(elements, options.textSize);
  if (titled) return [titled[0], ...readingOrderGroups(titled[1], options)];
  if (elements.every((e) => e.card)) {
    // A grid of cards is read row by row: cut across first wherever a gap runs between rows of cards.
    const rows = projectionGaps(
      elements.map((e) => e.box),
      "y",
      options.minGap,
    );
    if (rows.length > 0) {
      const widest = rows.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
      return splitAt(elements, [widest], "y").flatMap((part) => readingOrderGroups(part, options));
    }
  }
  const columns = columnsOf(elements, options);
  if (columns.length > 1) {
    // A larger title centred over the columns, nothing beside it, is read before them (see centredTitle).
    const centred = centredTitle(
      elements,
      projectionGaps(
        elements.filter((e) => !e.aside).map((e) => e.box),
        "y",
        options.minGap,
      ),
      options.textSize ?? 10,
      options.pageMiddle,
    );
    if (centred) return [centred[0], ...readingOrderGroups(centred[1], options)];
    // Columns that do not start together: the band across the region above the later one is cut first.
    const columnBoxes = columns.map((part) => part.filter((e) => !e.float && !e.aside).map((e) => e.box));
    const across = projectionGaps(
      elements.filter((e) => !e.aside).map((e) => e.box),
      "y",
      options.minGap,
    );
    // A tag alone at a column's top, level with the line above the columns, is read with that line (see
    // column-tag.ts).
    const band =
      bandBeforeColumns(columnBoxes, across, options.textSize ?? 10) ??
      gapUnderColumnTag(columnBoxes, across, options.textSize ?? 10);
    if (band) return splitAt(elements, [band], "y").flatMap((part) => readingOrderGroups(part, options));
    // A logo beside a centred title block is read after the block (see logo-column.ts).
    const ordered = logoColumnsLast(options.rtl ? columns.reverse() : columns, options.pageMiddle);
    return ordered.flatMap((part) => readingOrderGroups(part, options));
  }
  // The region itself, its elements marked when they are read along answer rows.
  const region = columns[0] ?? elements;
  const rows = projectionGaps(
    region.filter((e) => !e.aside).map((e) => e.box),
    "y",
    options.minGap,
  );
  if (rows.length > 0) {
    const cut = rowCut(region, rows, options);
    return splitAt(region, [cut], "y").flatMap((part) => readingOrderGroups(part, options));
  }
  return [sortLeaf(region, options.rtl)];
}

/** The columns of a region (one part when it has none). */
function columnsOf<T extends Placed>(elements: readonly T[], options: ReadingOrderOptions): T[][] {
  // A printout's fields, once found, are cut across into records but never into columns again.
  if (elements.every((e) => e.printoutRow)) return [[...elements]];
  const text = elements.filter((e) => !e.float && !e.aside).map((e) => e.box);
  const wide =
    text.length > 0
      ? wordSpacesRemoved(
          spannedGapsRemoved(projectionGaps(text, "x", options.minGutter), elements, text),
          text,
        )
      : [];
  // Without a gutter of the usual width, columns set close together are told by their edge (see close-columns.ts),
  // or by their scripts' directions (a parallel edition's Russian beside its Hebrew, see script-columns.ts).
  const size = options.textSize ?? 10;
  const narrowGutters = () => {
    const narrow = projectionGaps(text, "x", size * 0.2);
    const close = closeColumnGutters(narrow, text, size);
    const scripts = scriptGutters(
      narrow.filter((gap) => !close.includes(gap)),
      elements.filter((e) => !e.float && !e.aside),
    );
    return [...close, ...scripts].sort((a, b) => a.start - b.start);
  };
  // A line of the left column set past its edge into the gutter does not close it (see overfull-lines.ts).
  const overfull = () =>
    options.rtl
      ? []
      : wordSpacesRemoved(spannedGapsRemoved(overfullGutters(text, options.minGutter), elements, text), text);
  const gutters =
    wide.length > 0 || text.length < 10
      ? wide
      : firstFound(overfull, () => spannedGapsRemoved(narrowGutters(), elements, text));
  const parts = columnParts(elements, gutters, options.minColumnWidth, options.rtl);
  // Answers on the baselines of their questions, details on those of their entries, a row of options numbered on
  // across the gutter, a printout's fields, are read along the rows (see answerColumns, detailColumns,
  // optionsAcrossGutter, printoutColumns).
  const texts = parts.map((part) =>
    part.flatMap((e) =>
      !e.float && !e.aside && e.text !== undefined
        ? [{ box: e.box, text: e.text, fontName: e.fontName }]
        : [],
    ),
  );
  if (
    parts.length > 1 &&
    !options.rtl &&
    (answerColumns(texts) ||
      detailColumns(texts) ||
      optionsAcrossGutter(texts) ||
      letteredRowAcrossGutter(texts))
  )
    return [elements.map((e) => ({ ...e, answerRow: true }))];
  if (parts.length > 1 && !options.rtl && printoutColumns(texts))
    return [elements.map((e) => ({ ...e, printoutRow: true }))];
  return parts;
}

/** The first of the ways to find gutters that finds any. */
function firstFound(...ways: (() => Gap[])[]): Gap[] {
  for (const way of ways) {
    const gaps = way();
    if (gaps.length > 0) return gaps;
  }
  return [];
}

/** Horizontal gaps tried as cuts that could free columns: the widest ones, a bounded number. */
const ROW_CUT_CANDIDATES = 16;

/**
 * Where a region without columns is cut across. Horizontal cuts alone give the same order whichever is made
 * first, so the choice only decides which columns can be found: a cut that frees most of the region into
 * columns wins (a running foot or a stamp line crossing every gutter at the page's bottom, a full-width
 * paragraph over columns); of cuts that free about as many, the widest (under a two-line title, not inside it).
 * Else the widest gap, which separates a full-width title from columns below it
 * rather than a line from its neighbour.
 */
function rowCut<T extends Placed>(elements: readonly T[], rows: Gap[], options: ReadingOrderOptions): Gap {
  const widest = rows.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
  if (rows.length === 1 || elements.length < 6) return widest;
  const candidates = [...rows]
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, ROW_CUT_CANDIDATES);
  // Text sorted along x once: whether a part has any vertical gap at all is then a linear scan, and only a part
  // that has one is split into columns (a dense page without columns stays cheap).
  const text = elements.filter((e) => !e.float && !e.aside).sort((a, b) => a.box.x1 - b.box.x1);
  const hasGutter = (above: boolean, cut: number) => {
    let reach = Number.NEGATIVE_INFINITY;
    for (const e of text) {
      if (e.box.y1 < cut !== above) continue;
      if (reach !== Number.NEGATIVE_INFINITY && e.box.x1 - reach >= options.minGutter) return true;
      reach = Math.max(reach, e.box.x2);
    }
    return false;
  };
  let best = widest;
  // Only a cut that frees most of the region counts; a few lines side by side are left to the widest gap.
  let bestFreed = Math.floor(elements.length / 2);
  let freeing = false;
  const tops = elements.map((e) => e.box.y1).sort((a, b) => a - b);
  for (const gap of candidates) {
    const aboveCount = countBelow(tops, gap.end);
    for (const [above, count] of [
      [true, aboveCount],
      [false, elements.length - aboveCount],
    ] as const) {
      // Candidates come widest first: a narrower gap wins only by freeing clearly more (a tenth more).
      const needed = freeing ? Math.floor(bestFreed * 1.1) : bestFreed;
      if (count <= needed || count < 4 || !hasGutter(above, gap.end)) continue;
      const part = elements.filter((e) => e.box.y1 < gap.end === above);
      const columns = columnsOf(part, options);
      // Columns that run down the page, not a few label and value lines side by side.
      if (columns.length > 1 && columns.every(tall)) {
        best = gap;
        bestFreed = count;
        freeing = true;
      }
    }
  }
  return best;
}

/** How many of the sorted values are below `limit`. */
function countBelow(sorted: readonly number[], limit: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Gutters a float really spans are no gutters: a figure reaching well into both columns (a quarter of each)
 * sits across them, so the region must be cut above and below it. An image overhanging its column a little does
 * not count.
 */
function spannedGapsRemoved(gaps: Gap[], elements: readonly Placed[], text: readonly Box[]): Gap[] {
  // A picture with text drawn over it is a backdrop: the text on it decides the columns.
  const floats = elements.filter(
    (e) =>
      e.float &&
      !text.some((t) => {
        const cx = (t.x1 + t.x2) / 2;
        const cy = (t.y1 + t.y2) / 2;
        return cx > e.box.x1 && cx < e.box.x2 && cy > e.box.y1 && cy < e.box.y2;
      }),
  );
  if (floats.length === 0) return gaps;
  const left = Math.min(...text.map((b) => b.x1));
  const right = Math.max(...text.map((b) => b.x2));
  return gaps.filter((gap, index) => {
    const before = index > 0 ? gaps[index - 1].end : left;
    const after = index < gaps.length - 1 ? gaps[index + 1].start : right;
    const reach = Math.min(gap.start - before, after - gap.end) * 0.25;
    return !floats.some((f) => f.box.x1 <= gap.start - reach && f.box.x2 >= gap.end + reach);
  });
}

/** Elements in reading order (the groups of readingOrderGroups, concatenated). */
export function readingOrder<T extends Placed>(elements: readonly T[], options: ReadingOrderOptions): T[] {
  return readingOrderGroups(elements, options).flat();
}

/**
 * Top to bottom; elements on the same line along the line (see `lineOrder`). Two cards one over the other (a
 * card's title band drawn over its top edge, overlapping it) are no line: the higher one first.
 */
function sortLeaf<T extends Placed>(elements: readonly T[], rtl: boolean): T[] {
  return [...elements].sort((a, b) =>
    a.card && b.card && stacked(a.box, b.box) ? a.box.y1 - b.box.y1 : lineOrder(a.box, b.box, rtl),
  );
}

/** Boxes sharing most of their width, one's top above the other's. */
function stacked(a: Box, b: Box): boolean {
  const shared = box.overlapX(a, b);
  return shared > 0.8 * Math.min(a.x2 - a.x1, b.x2 - b.x1) && a.y1 !== b.y1;
}

/**
 * The order of two boxes in a region read top to bottom: along the line when they share half the smaller one's
 * height, or a fifth of it when one stands wholly before the other along the line (a label centered beside a
 * two-line text, a coloured tag before its description, comes before both its lines); else the higher first.
 */
export function lineOrder(a: Box, b: Box, rtl: boolean): number {
  const overlap = box.overlapY(a, b);
  const smaller = Math.min(a.y2 - a.y1, b.y2 - b.y1);
  const apart = a.x2 <= b.x1 || b.x2 <= a.x1;
  if (smaller > 0 && overlap > smaller * (apart ? 0.2 : 0.5)) return rtl ? b.x1 - a.x1 : a.x1 - b.x1;
  return a.y1 - b.y1;
}

/**
 * The columns the gaps make, after merging away columns narrower than `minWidth` into their neighbour, so a
 * strip of bullets or numbers stays with its text. One part means no column split.
 */
function columnParts<T extends Placed>(
  elements: readonly T[],
  gaps: Gap[],
  minWidth: number,
  rtl: boolean,
): T[][] {
  let kept = [...gaps];
  const textOf = (part: readonly T[] | undefined) =>
    (part ?? []).filter((e) => !e.float && !e.aside).map((e) => e.box);
  for (;;) {
    if (kept.length === 0) return [[...elements]];
    const parts = splitAt(elements, kept, "x");
    if (parts.length !== kept.length + 1) return [[...elements]];
    const narrow = parts.findIndex((part, index) => {
      const text = textOf(part);
      if (text.length === 0) return false;
      const width = Math.max(...text.map((b) => b.x2)) - Math.min(...text.map((b) => b.x1));
      // A strip of labels off the lines of the column it follows is a column of its own (see labelStrip).
      // So is a narrow list with its marks and items together (see narrowList).
      return (
        width < minWidth && !labelStrip(text, textOf(parts[rtl ? index + 1 : index - 1])) && !narrowList(text)
      );
    });
    // A narrow part that shares no height with its neighbours (a page number under the gutter) is not a strip
    // beside them: the region is cut across first.
    if (narrow >= 0 && !sharesHeight(parts[narrow], [parts[narrow - 1], parts[narrow + 1]]))
      return [[...elements]];
    if (narrow < 0) {
      // Parts side by side share height somewhere: blocks that only take turns down the page (a letter's sender
      // block at the top right, its address window on the left, its date on the right again) stand one under
      // another, and are read top to bottom, not as a left and a right column. A part wholly above the other (a
      // notice at the top right over a title on the left) takes no turns and is still a column of its own.
      if (parts.some((part, index) => index > 0 && takeTurns(parts[index - 1], part))) return [[...elements]];
      // A gutter also needs height: at least two parts of two lines or more, or parts that run down the page, or
      // a block of lines beside a single line level with its later lines (see side-block.ts).
      if (parts.filter(severalLines).length >= 2 || parts.every(tall) || blockBesideLine(parts.map(textOf)))
        return parts;
      return [[...elements]];
    }
    // Drop the gap on the narrow part's side that is narrower (the one closer to its neighbour).
    const left = narrow - 1 >= 0 ? kept[narrow - 1] : null;
    const right = narrow < kept.length ? kept[narrow] : null;
    const drop =
      left && right ? (left.end - left.start <= right.end - right.start ? left : right) : (left ?? right);
    kept = kept.filter((gap) => gap !== drop);
  }
}

/**
 * Two parts side by side whose spans down the page overlap while none of their elements shares height with one of
 * the other's: their blocks take turns, one part's block under the other's and over another of it.
 */
function takeTurns(a: readonly Placed[], b: readonly Placed[]): boolean {
  const top = (part: readonly Placed[]) => Math.min(...part.map((e) => e.box.y1));
  const bottom = (part: readonly Placed[]) => Math.max(...part.map((e) => e.box.y2));
  const spansOverlap = Math.min(bottom(a), bottom(b)) > Math.max(top(a), top(b));
  return spansOverlap && !sharesHeight(a, [b]);
}

function sharesHeight(
  part: readonly Placed[],
  neighbours: readonly (readonly Placed[] | undefined)[],
): boolean {
  return part.some((e) =>
    neighbours.some((n) => n?.some((o) => Math.min(e.box.y2, o.box.y2) > Math.max(e.box.y1, o.box.y1))),
  );
}

/**
 * The part holds more than one line: some horizontal whitespace runs across it, or (small print set solid, its
 * boxes taller than its line pitch, so that no whitespace runs between lines) two of its boxes share less than
 * half the smaller one's height, as lines one above the other do and runs of one line never do.
 */
function severalLines(part: readonly Placed[]): boolean {
  if (part.length < 2) return false;
  const boxes = part.map((e) => e.box);
  return projectionGaps(boxes, "y", 0.5).length > 0 || stackedLines(boxes);
}

function tall(part: readonly Placed[]): boolean {
  const top = Math.min(...part.map((e) => e.box.y1));
  const bottom = Math.max(...part.map((e) => e.box.y2));
  return bottom - top > 100;
}

function splitAt<T extends Placed>(elements: readonly T[], gaps: readonly Gap[], axis: "x" | "y"): T[][] {
  const parts: T[][] = Array.from({ length: gaps.length + 1 }, () => []);
  for (const element of elements) {
    const start =
      axis === "x"
        ? element.float || element.aside
          ? (element.box.x1 + element.box.x2) / 2
          : element.box.x1
        : element.box.y1;
    let index = 0;
    while (index < gaps.length && start >= gaps[index].end) index++;
    parts[index].push(element);
  }
  return parts.filter((part) => part.length > 0);
}
