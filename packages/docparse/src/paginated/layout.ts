import type { Box } from "../model.ts";
import { median } from "../statistics.ts";
import { backdropRuns, stampRuns } from "./backdrop-text.ts";
import { type Block, buildBlocks, typicalLineGap } from "./blocks.ts";
import { splitHandBrokenLines } from "./card-lines.ts";
import { chartAreas, gatherChartLabels } from "./chart-labels.ts";
import { joinContinuedParagraphs } from "./continued-paragraphs.ts";
import { dottedRule } from "./dotted-rules.ts";
import { drawnBullets } from "./drawn-bullets.ts";
import { box, type DetectedTable, type PageGeometry, type TextRun } from "./geometry.ts";
import { gutterLineNumbers, marginLineNumbers, rulers } from "./gutter-numbers.ts";
import { splitIndentedParagraphs } from "./indent-paragraphs.ts";
import { buildLines, type Line, makeLine } from "./lines.ts";
import { blocksBesideLabels } from "./margin-labels.ts";
import { blocksBesideMargin } from "./margin-text.ts";
import { cardParents, uniqueBoxes } from "./nested-cards.ts";
import { answerRows } from "./option-columns.ts";
import { overprintMarks } from "./overprint-marks.ts";
import { splitPageNumbers } from "./page-number-phrase.ts";
import { printoutLines } from "./printout-rows.ts";
import { lineOrder, readingOrderGroups } from "./reading-order.ts";
import { tableReader } from "./table-leftovers.ts";

/** One thing on a page, in reading order: a block of text, a table or a figure. */
export type PageEntry =
  | { kind: "block"; block: Block; box: Box }
  | { kind: "table"; table: DetectedTable; box: Box }
  | { kind: "figure"; box: Box /** A data: URI of the figure's image (include_images). */; image?: string }
  | { kind: "barcode"; box: Box; text: string; format: string }
  | { kind: "signature"; box: Box };

export interface PageLayout {
  page: PageGeometry;
  entries: PageEntry[];
  /** Most of the page's text reads right to left. */
  rtl: boolean;
  /** Struck-through runs left out (remove_strikethrough_lines). */
  droppedStruck: number;
}

export interface LayoutStages {
  /** Tables of a page; none when table detection is off. */
  detectTables(page: PageGeometry): DetectedTable[];
  /** Runs drawn through are dropped (parsing_options.remove_strikethrough_lines). */
  dropStruck: boolean;
  /** Signatures of a page; none when signature detection is off. */
  detectSignatures?(page: PageGeometry): Box[];
}

/** Images smaller than this share of the page (or thinner than this many points) are decoration, not figures. */
const MIN_FIGURE_SHARE = 0.01;
const MIN_FIGURE_SIDE = 24;

/** The figures of a page: images large enough to matter, merged where they overlap (a figure made of tiles). */
function figureBoxes(page: PageGeometry): Box[] {
  const pageArea = page.width * page.height;
  const boxes = page.images
    .map((image) => ({
      x1: Math.max(0, image.box.x1),
      y1: Math.max(0, image.box.y1),
      x2: Math.min(page.width, image.box.x2),
      y2: Math.min(page.height, image.box.y2),
    }))
    .filter(
      (b) =>
        box.width(b) >= MIN_FIGURE_SIDE &&
        box.height(b) >= MIN_FIGURE_SIDE &&
        box.area(b) >= pageArea * MIN_FIGURE_SHARE,
    );
  const merged: Box[] = [];
  for (const b of boxes) {
    // Tiles of one picture overlap a lot; pictures side by side whose (clipped) edges touch stay apart.
    const overlapping = merged.findIndex(
      (m) => box.intersection(m, b) > Math.min(box.area(m), box.area(b)) * 0.3,
    );
    if (overlapping >= 0) merged[overlapping] = box.union([merged[overlapping], b]);
    else merged.push(b);
  }
  return merged;
}

/**
 * Lays out one page: drops text that belongs to tables or figures, builds lines, orders lines, tables and
 * figures by recursive XY-cut, and groups consecutive lines into blocks.
 */
export function layoutPage(page: PageGeometry, stages: LayoutStages): PageLayout {
  // Struck runs take part in building lines (their hole must not split a line) and are dropped from the lines.
  // Bullets drawn as shapes are read as the `•` they show (see drawnBullets).
  // Dotted rules set as text across the page (a brochure's fold lines) are lines, not text (see dottedRule).
  const runs = [...page.runs, ...drawnBullets(page)].filter((run) => !dottedRule(run));
  let droppedStruck = 0;
  const tables = stages.detectTables(page);
  const pageArea = page.width * page.height;
  // A background image under the whole page is not a figure. Text drawn over a figure (a card's photo, a
  // diagram's labels, a banner) is never dropped: it stays text, read in order with the figure.
  const figures = figureBoxes(page).filter((b) => box.area(b) < pageArea * 0.6);
  const inTable = tableReader(tables);
  const free = runs.filter((run) => !inTable(run));
  const rtlChars = free.filter((run) => run.dir === "rtl").reduce((n, run) => n + run.text.length, 0);
  const allChars = free.reduce((n, run) => n + run.text.length, 0);
  const rtl = rtlChars * 2 > allChars;
  const size = median(
    free.map((run) => run.fontSize),
    10,
  );

  // Reading order over runs (not lines), so that lines never bridge a column gutter; lines are built per region.
  type Float = PageEntry & { kind: "table" | "figure" | "barcode" | "signature" };
  type Placed = {
    box: Box;
    float?: boolean;
    aside?: boolean;
    card?: boolean;
    run?: TextRun;
    text?: string;
    answerRow?: boolean;
    printoutRow?: boolean;
    entry?: Float;
  };
  const signatures = stages.detectSignatures?.(page) ?? [];
  // Text inside a card (a box drawn around it) is read as one piece, the card placed as a whole.
  const cards = uniqueBoxes(cardBoxes(page, free));
  const cardRuns = new Map<Box, TextRun[]>(cards.map((card) => [card, []]));
  // A card inside a card (a note box in a page's frame) is read among its parent's text, in its place.
  const parents = cardParents(cards);
  const loose: TextRun[] = [];
  // Line numbers in a column gutter would close it, and a margin's ruler of line numbers (pleading paper) would
  // land inside the lines it overlaps: both are read after the page's text, as a strip of their own.
  const gutterNumbers = new Set([...gutterLineNumbers(free, size), ...marginLineNumbers(free, size)]);
  // Letters far larger than the text with text drawn over them (a watermark) would close the gutters they lie
  // under: they are read after the page's text too (see backdropRuns).
  const backdrop = backdropRuns(free, size);
  // A small mark drawn over a word's letters would land inside the word: read after the page's text (see
  // overprintMarks).
  for (const mark of overprintMarks(free)) backdrop.add(mark);
  // A large slanted word across the page (a diagonal `SCANNED COPY` or `DRAFT` stamp) is no part of the text it
  // crosses: read after it too (see stampRuns).
  for (const run of stampRuns(free, size)) backdrop.add(run);
  for (const run of free) {
    if (gutterNumbers.has(run) || backdrop.has(run)) continue;
    const card = innermost(cards, run.box);
    if (card && !run.vertical) cardRuns.get(card)?.push(run);
    else loose.push(run);
  }
  // A card is read where it stands when it holds text of its own; a card inside it (a note box in a page's frame)
  // among that text, in its place. A frame holding nothing but another card leaves it where it is.
  const withText = new Set(cards.filter((card) => (cardRuns.get(card) ?? []).length > 0));
  const host = (card: Box): Box | null => {
    let parent = parents.get(card) ?? null;
    while (parent && !withText.has(parent)) parent = parents.get(parent) ?? null;
    return parent;
  };
  // A table inside a card with text (a key-figures table in a sidebar's shaded box) is read among that text, in
  // its place, not after the card. A card that is only the table's own frame holds no text of its own; a table
  // set beside the card's text (a recipe's ingredients beside its steps) stays a whole placed beside that text,
  // as before: inside, the card's lines would be sorted around it.
  const tableCards = new Map<Box, Placed[]>();
  const looseTables: Placed[] = [];
  for (const table of tables) {
    const placedTable = {
      box: table.box,
      float: true,
      entry: { kind: "table" as const, table, box: table.box },
    };
    const card = innermost([...withText], table.box);
    if (card && box.iou(card, table.box) < 0.8 && box.width(table.box) >= box.width(card) * TABLE_ACROSS_CARD)
      tableCards.set(card, [...(tableCards.get(card) ?? []), placedTable]);
    else looseTables.push(placedTable);
  }
  const placed: Placed[] = [
    ...loose.map((run) => ({
      box: run.box,
      run,
      text: run.text,
      fontName: run.fontName,
      aside: run.vertical === true,
    })),
    ...cards.filter((card) => withText.has(card) && !host(card)).map((card) => ({ box: card, card: true })),
    ...looseTables,
    ...figures
      // An image that is a signature or a barcode is reported as that, not as a figure too.
      .filter(
        (figure) =>
          ![...signatures, ...(page.barcodes ?? []).map((b) => b.box)].some((s) => box.iou(s, figure) > 0.5),
      )
      .map((figure) => ({ box: figure, float: true, entry: { kind: "figure" as const, box: figure } })),
    ...(page.barcodes ?? []).map((code) => ({
      box: code.box,
      float: true,
      entry: { kind: "barcode" as const, ...code },
    })),
    ...signatures.map((signature) => ({
      box: signature,
      float: true,
      entry: { kind: "signature" as const, box: signature },
    })),
  ];
  const orderOptions = {
    minGutter: Math.max(5, size * 0.9),
    minGap: 0.5,
    minColumnWidth: size * 4,
    rtl,
    textSize: size,
    pageMiddle: page.width / 2,
  };
  // Each card's text (and the cards inside it) is ordered on its own, and its groups take the card's place.
  const expand = (source: Placed[][]): Placed[][] => {
    const out: Placed[][] = [];
    for (const group of source) {
      let pending: Placed[] = [];
      for (const p of group) {
        if (!p.card) {
          pending.push(p);
          continue;
        }
        if (pending.length > 0) out.push(pending);
        pending = [];
        const inside: Placed[] = [
          ...(cardRuns.get(p.box) ?? []).map((run) => ({ box: run.box, run, text: run.text })),
          ...(tableCards.get(p.box) ?? []),
          ...cards
            .filter((card) => withText.has(card) && host(card) === p.box)
            .map((card) => ({ box: card, card: true })),
        ];
        out.push(...expand(readingOrderGroups<Placed>(inside, orderOptions)));
      }
      if (pending.length > 0) out.push(pending);
    }
    return out;
  };
  const groups: Placed[][] = expand(readingOrderGroups(placed, orderOptions));
  for (const ruler of rulers(gutterNumbers, size, rtl))
    groups.push(ruler.map((run) => ({ box: run.box, run })));
  if (backdrop.size > 0) groups.push([...backdrop].map((run) => ({ box: run.box, run })));
  type Ordered = { line: Line } | { entry: Float };
  const ordered: Ordered[] = [];
  for (const group of groups) {
    const runs = group.flatMap((p) => (p.run ? [p.run] : []));
    const lines: Line[] = [];
    // A question and its answers on one baseline make one line (see answerRows), a printout's fields too (see
    // printoutLines).
    const joinRow = (row: Line[]) => makeLine(row.flatMap((l) => l.runs));
    const rowLines = group.some((p) => p.printoutRow)
      ? printoutLines(buildLines(runs), joinRow)
      : !group.some((p) => p.answerRow)
        ? buildLines(runs)
        : answerRows(buildLines(runs), joinRow);
    for (const built of sortLines(rowLines, rtl)) {
      let line: Line | null = built;
      if (stages.dropStruck && built.runs.some((run) => run.struck)) {
        const kept = built.runs.filter((run) => !run.struck);
        droppedStruck += built.runs.length - kept.length;
        line = kept.length > 0 ? makeLine(kept) : null;
      }
      if (line) lines.push(line);
    }
    // Floats that start above the group's text come first (a figure before the labels drawn on it); the others
    // after it, so that a float never splits the text of its group. A line below the bottom of the group's
    // tables is read after them: it shares their group only because a table's box (its cell padding) reaches
    // it, which depends on the font's line height.
    const top = Math.min(...lines.map((line) => line.box.y1));
    const floats = group.flatMap((p) => (p.entry ? [p.entry] : []));
    const tablesOnly = floats.every((entry) => entry.kind === "table");
    const bottom = tablesOnly
      ? floats.reduce((y, entry) => Math.max(y, entry.box.y2), Number.NEGATIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
    const below = (line: Line) => box.centerY(line.box) > bottom;
    for (const entry of floats) if (entry.box.y1 <= top) ordered.push({ entry });
    for (const line of lines) if (!below(line)) ordered.push({ line });
    for (const entry of floats) if (entry.box.y1 > top) ordered.push({ entry });
    for (const line of lines) if (below(line)) ordered.push({ line });
  }

  const entries: PageEntry[] = [];
  const lineGap = typicalLineGap(ordered.flatMap((p) => ("line" in p ? [p.line] : [])));
  const rules = page.rules.filter((rule) => rule.orientation === "h");
  let pending: Line[] = [];
  const flush = () => {
    const build = (lines: Line[]) =>
      splitPageNumbers(
        splitIndentedParagraphs(splitHandBrokenLines(buildBlocks(lines, { lineGap, rules }))),
        page.height,
      );
    for (const block of blocksBesideMargin(pending, (lines) => blocksBesideLabels(lines, build)))
      entries.push({ kind: "block", block, box: block.box });
    pending = [];
  };
  for (const p of ordered) {
    if ("line" in p) {
      pending.push(p.line);
      continue;
    }
    flush();
    entries.push(p.entry);
  }
  flush();
  // A chart drawn as shapes keeps its labels together, after it (chart-labels.ts).
  const charted = gatherChartLabels(entries, chartAreas(page));
  return { page, entries: rtl ? charted : joinContinuedParagraphs(charted), rtl, droppedStruck };
}

/** A table this share of its card's width or wider runs across the card, with no text of the card beside it. */
const TABLE_ACROSS_CARD = 0.8;

/** Cards smaller than this share of the page hold a label, not a piece of text; larger ones frame the page. */
const CARD_SHARE = { min: 0.01, max: 0.6 };

/**
 * The cards of a page: filled or stroked rectangles of a card's size with text inside, and no larger than a
 * card would be. A rectangle around a single run (a highlighted word) is no card.
 */
function cardBoxes(page: PageGeometry, runs: readonly TextRun[]): Box[] {
  const pageArea = page.width * page.height;
  return page.rects.filter((rect) => {
    const area = box.area(rect);
    if (area < pageArea * CARD_SHARE.min || area > pageArea * CARD_SHARE.max) return false;
    return runs.filter((run) => box.containsCenter(rect, run.box)).length >= 2;
  });
}

/** The smallest of the boxes that holds the middle of `inner`. */
function innermost(boxes: readonly Box[], inner: Box): Box | null {
  let best: Box | null = null;
  for (const b of boxes) {
    if (box.containsCenter(b, inner) && (best === null || box.area(b) < box.area(best))) best = b;
  }
  return best;
}

/** Lines of one region top to bottom; lines side by side along the reading direction. */
function sortLines(lines: Line[], rtl: boolean): Line[] {
  return lines.sort((a, b) => lineOrder(a.box, b.box, rtl));
}
