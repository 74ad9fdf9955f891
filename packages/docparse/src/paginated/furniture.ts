import type { Box, PageSize } from "../model.ts";
import { detailsBlock } from "./contact-details.ts";
import { cornerFolio } from "./corner-folio.ts";
import { documentNumberHead } from "./document-number.ts";
import { folioLineMates } from "./folio-line.ts";
import { footnotes } from "./footnotes.ts";
import { furniturePattern } from "./furniture-patterns.ts";
import { box } from "./geometry.ts";
import { headerBlockParts } from "./header-block.ts";
import { addressHead, headsMemo } from "./letterhead.ts";
import { nearPageEdge, PAGE_NUMBER_PHRASE } from "./page-number-phrase.ts";
import { runningFoot } from "./running-foot.ts";
import { indexesByPage, splitRunningHeads } from "./split-head.ts";

/** A block as furniture detection sees it. */
export interface FurnitureCandidate {
  page: number;
  pageSize: PageSize;
  box: Box;
  text: string;
  fontSize: number;
  /** Labeled a heading or title by its look: not furniture unless it repeats. */
  heading: boolean;
  /** Already known to be a page number by its text. */
  pageNumber: boolean;
  /** The block is on the page's first (last) line of text, set apart from what follows (precedes) it. */
  edge: "top" | "bottom" | null;
  /** The block's text runs up or down the page. */
  sideways?: boolean;
  /** Ruled on its left and right along its whole height: a cell of a drawn form, not a margin stamp. */
  boxed?: boolean;
  /** The smallest box drawn around it (drawn-box.ts), for blocks near the page's top or foot; null: none. */
  drawnBox?: Box | null;
  /** Labeled a figure or table caption: content, never furniture. */
  caption?: boolean;
  /** The block's lines, when it has several (footnotes are told apart by them). */
  lines?: readonly string[];
  /** The block's first line opens with a note mark set smaller and raised (see note-marker.ts). */
  noteMarked?: boolean;
}

export type FurnitureKind = "page_header" | "page_footer" | "page_number";

/** A number alone: a page number, or one tick of a chart's axis. */
const NUMBER_ONLY = /^[-–—−]?\s*\d{1,6}(?:[.,]\d+)?\s*[-–—]?$/;

/**
 * Tick labels of a chart's axis: a number alone with two more numbers alone on the same page, side by side on its
 * line or stacked at its right edge. A page number stands alone in its band; axis ticks come in rows and columns.
 */
function axisTick(c: FurnitureCandidate, all: readonly FurnitureCandidate[]): boolean {
  if (!NUMBER_ONLY.test(c.text.trim())) return false;
  const size = Math.max(c.fontSize, 1);
  const others = all.filter((o) => o !== c && o.page === c.page && NUMBER_ONLY.test(o.text.trim()));
  const row = others.filter((o) => Math.abs(box.centerY(o.box) - box.centerY(c.box)) <= size * 0.5);
  const column = others.filter(
    (o) => Math.abs(o.box.x2 - c.box.x2) <= size * 0.5 && Math.abs(o.box.y1 - c.box.y1) <= size * 8,
  );
  return row.length >= 2 || column.length >= 2;
}

/**
 * A block set close under a heading in the bottom band (an address under a company's name or logo, closing a
 * leaflet) is what the heading heads: content, not a footer.
 */
function underHeading(c: FurnitureCandidate, all: readonly FurnitureCandidate[]): boolean {
  return all.some(
    (h) =>
      h !== c &&
      h.heading &&
      h.page === c.page &&
      h.box.x1 < c.box.x2 &&
      c.box.x1 < h.box.x2 &&
      c.box.y1 >= h.box.y2 - 1 &&
      c.box.y1 - h.box.y2 <= c.fontSize * 1.2,
  );
}

/**
 * A block in the bottom band that the body runs into: the line just above it (its column, its size, at a line's
 * spacing) is body text starting above the band or runs on itself from such text (the last item of a list, the
 * last row of a column), or body text of that kind stands level with it on its line. A footer is a line of its
 * own at the page's foot, set apart from the body; a line the body goes on to is body, however small or low.
 */
function partOfBody(c: FurnitureCandidate, page: readonly FurnitureCandidate[]): boolean {
  const bandTop = c.pageSize.height * 0.88;
  const runsOn = (b: FurnitureCandidate, seen: Set<FurnitureCandidate>): boolean =>
    page.some((o) => {
      if (o === b || seen.has(o) || o.sideways || o.pageNumber) return false;
      const size = Math.max(b.fontSize, 1);
      const sameSize = Math.abs(o.fontSize - b.fontSize) <= Math.max(0.5, size * 0.06);
      const gap = b.box.y1 - o.box.y2;
      const above = o.box.y1 < b.box.y1 - 1 && gap >= -size * 0.3 && gap <= size * 0.8;
      const column = o.box.x1 < b.box.x2 && b.box.x1 < o.box.x2;
      if (!sameSize || !above || !column) return false;
      seen.add(o);
      return o.box.y1 < bandTop || runsOn(o, seen);
    });
  if (runsOn(c, new Set([c]))) return true;
  const middle = box.centerY(c.box);
  return page.some(
    (o) =>
      o !== c &&
      !o.sideways &&
      !o.pageNumber &&
      (o.box.x2 <= c.box.x1 || o.box.x1 >= c.box.x2) &&
      o.box.y1 <= middle &&
      o.box.y2 >= middle &&
      (o.box.y1 < bandTop || runsOn(o, new Set([o]))),
  );
}

/** The band of the page a block lies in where furniture is looked for: its top or bottom 12%. */
export function edgeBand(b: Box, pageHeight: number): "top" | "bottom" | null {
  if (b.y2 < pageHeight * 0.12) return "top";
  if (b.y1 > pageHeight * 0.88) return "bottom";
  return null;
}

/** Boxes drawn around furniture are no taller than this share of the page (a frame around the page is no form). */
const MAX_CONTENT_BOX_SHARE = 0.3;

/**
 * Whether `c` stands in a drawn box (a form's field, a framed title block) that also holds another block outside
 * the page's margins, or in a cell of a ruled grid whose neighbouring cell (sharing a side with it) holds one (a
 * title block's number cell over its revision cell): a running head's frame or bar stays in the margin with it.
 */
function sharesBoxWithBody(c: FurnitureCandidate, page: readonly FurnitureCandidate[]): boolean {
  const frame = c.drawnBox;
  const height = c.pageSize.height;
  if (!frame || box.height(frame) > height * MAX_CONTENT_BOX_SHARE) return false;
  const inBody = (o: FurnitureCandidate) => o.box.y2 >= height * 0.08 && o.box.y1 <= height * 0.92;
  return page.some(
    (o) =>
      o !== c &&
      !o.sideways &&
      inBody(o) &&
      (box.containsCenter(frame, o.box) ||
        (o.drawnBox != null &&
          box.height(o.drawnBox) <= height * MAX_CONTENT_BOX_SHARE &&
          sharesSide(frame, o.drawnBox))),
  );
}

/** How far apart two cells' touching sides may be drawn, in points (one rule, or two strokes over each other). */
const SIDE_GAP = 2;

/** Whether two drawn boxes are neighbouring cells: one's side lies on the other's, along part of its length. */
function sharesSide(a: Box, b: Box): boolean {
  const acrossOverlap = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const downOverlap = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  const stacked = Math.abs(a.y2 - b.y1) <= SIDE_GAP || Math.abs(b.y2 - a.y1) <= SIDE_GAP;
  const beside = Math.abs(a.x2 - b.x1) <= SIDE_GAP || Math.abs(b.x2 - a.x1) <= SIDE_GAP;
  return (stacked && acrossOverlap > SIDE_GAP) || (beside && downOverlap > SIDE_GAP);
}

/** Digits stand for any number, so `Page 3 of 9` on one page matches `Page 4 of 9` on the next. */
function signature(text: string): string {
  return text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
}

/**
 * Page headers, footers and page numbers. A block in the top or bottom band of its page is furniture when the
 * same text (numbers aside) comes back at about the same height on other pages; a small block hugging the
 * page's edge is furniture even on a single page. Returns the kind of each furniture candidate by index.
 */
export function detectFurniture(
  candidates: readonly FurnitureCandidate[],
  bodySize: number,
  pageCount: number,
): Map<number, FurnitureKind> {
  const kinds = new Map<number, FurnitureKind>();
  const bands = candidates.map((c) => {
    // A page number that names itself (`Page 1 of 1`) is one anywhere near the top or foot, under a title and
    // logo that fill the top band.
    const named =
      c.pageNumber && PAGE_NUMBER_PHRASE.test(c.text.trim()) && nearPageEdge(c.box, c.pageSize.height);
    const band = named
      ? box.centerY(c.box) < c.pageSize.height / 2
        ? "top"
        : "bottom"
      : edgeBand(c.box, c.pageSize.height);
    return c.edge === "top" || band === "top"
      ? "top"
      : c.edge === "bottom" || band === "bottom"
        ? "bottom"
        : null;
  });
  // Repetition: the same signature in the same band, at about the same height, on at least two pages (and a third
  // of them for long documents). Heights are compared with a tolerance, not bucketed: scans jitter.
  const seen = new Map<string, { page: number; y: number }[]>();
  const keyOf = (i: number) => `${bands[i]}|${signature(candidates[i].text)}`;
  const heightOf = (c: FurnitureCandidate) => c.box.y1 / c.pageSize.height;
  candidates.forEach((c, i) => {
    if (!bands[i]) return;
    const list = seen.get(keyOf(i)) ?? [];
    list.push({ page: c.page, y: heightOf(c) });
    seen.set(keyOf(i), list);
  });
  const needed = Math.max(2, Math.ceil(pageCount / 3));
  // The rules that compare a candidate with others look at its own page only: grouped once, not searched for.
  const onPage = new Map(
    [...indexesByPage(candidates)].map(([page, indexes]) => [page, indexes.map((i) => candidates[i])]),
  );
  // Blocks taken for furniture only as short or small lines at the page's edge (see header-block.ts).
  const plainLabels = new Set<number>();
  candidates.forEach((c, i) => {
    const band = bands[i];
    const samePage = onPage.get(c.page) ?? [];
    if (!band) return;
    const kind: FurnitureKind = c.pageNumber ? "page_number" : band === "top" ? "page_header" : "page_footer";
    const y = heightOf(c);
    const pages = new Set(
      (seen.get(keyOf(i)) ?? []).filter((o) => Math.abs(o.y - y) <= 0.015).map((o) => o.page),
    );
    const repeated = pageCount > 1 && pages.size >= Math.min(needed, pageCount);
    // Alone (not repeated) it must look like furniture: set smaller than the body and apart from it, or a short
    // label that is not a sentence hugging the page's very edge. Losing text is worse than keeping a footer.
    const margin = c.box.y2 < c.pageSize.height * 0.08 || c.box.y1 > c.pageSize.height * 0.92;
    const small = c.fontSize <= bodySize * 0.95 && (c.edge !== null || margin);
    // A short label set apart at the page's edge, not the first line of a column that goes on below it.
    const label =
      margin &&
      c.edge !== null &&
      c.text.length <= 60 &&
      c.fontSize <= bodySize * 1.05 &&
      !/[.!?,;:]["'”’)]?$/.test(c.text);
    // A line that says what it is may be set a little larger than the body (a journal line in 8 points over a
    // body in 7.5) when it stands apart on the page's first or last line, as a running foot may.
    const patternSize = bodySize * (c.edge !== null ? 1.2 : 1.05);
    const pattern = (c.edge !== null || margin) && c.fontSize <= patternSize && furniturePattern(c.text);
    // The page's first line a document number (a patent's, a report's), in the top band.
    const firstLine =
      band === "top" && !samePage.some((o) => o !== c && !o.sideways && o.box.y1 < c.box.y1 - 1);
    const numberHead = documentNumberHead(c.text, c.fontSize, bodySize, firstLine);
    // A title and its page number in the page's foot margin.
    const atFoot = band === "bottom" && c.box.y1 > c.pageSize.height * 0.92;
    const foot = runningFoot(c.text, atFoot, c.fontSize, bodySize);
    // Alone, a line the body runs into is body (the last item of a list that goes on above it).
    const alone =
      (small || label || pattern || numberHead || foot) && !(band === "bottom" && partOfBody(c, samePage));
    if (c.caption) return;
    if (!repeated && (axisTick(c, samePage) || footnotes(c))) return;
    // A label set sideways in a drawn cell is part of a form, wherever on the page its strip of boxes runs.
    if (!repeated && c.sideways && c.boxed) return;
    if (!repeated && !pattern && band === "bottom" && underHeading(c, samePage)) return;
    // A block of labelled details at the foot (a letter's bank details) is content a reader looks up.
    if (!repeated && !pattern && !c.pageNumber && band === "bottom" && detailsBlock(c.lines ?? [c.text]))
      return;
    // A line in a drawn box that also holds text of the page's body (a test's name field over the class field,
    // a score box at the foot) is a part of that box's content, not a running head or foot.
    if (!repeated && !pattern && !c.pageNumber && sharesBoxWithBody(c, samePage)) return;
    // A letterhead over a memo's fields, or a sender's address block, is the document's own head, however small it
    // is set or read.
    if (
      !repeated &&
      !pattern &&
      !c.pageNumber &&
      band === "top" &&
      (headsMemo(c, samePage) || addressHead(c.lines ?? [c.text]))
    )
      return;
    if (c.heading && !repeated && !c.pageNumber && !pattern && !numberHead && !foot) return;
    // A number in display type (a year on a cover, twice the body's size) is a title, not a page number, unless
    // it stands alone at the page's corner (corner-folio.ts).
    if (c.pageNumber && !repeated && c.fontSize >= bodySize * 2 && !cornerFolio(c, samePage)) return;
    if (c.pageNumber || repeated || alone) kinds.set(i, kind);
    if (!c.pageNumber && !repeated && !pattern && !numberHead && !foot && alone) plainLabels.add(i);
  });
  // A header block's parts on one line are labelled together: a label beside a part that stays content stays too.
  for (const i of headerBlockParts(candidates, plainLabels, kinds)) kinds.delete(i);
  // The rest of a journal line that says what it is (`Journal name … ISSN 1234-5678` at the page's top edge,
  // `Journal of X   Copyright © 2022   PREPRINT / 1` at its foot): the blocks on that edge line with it, the page's
  // title type and footnotes aside. A page number marks its line too: see folio-line.ts.
  candidates.forEach((c, i) => {
    if (kinds.has(i) || c.edge === null || c.caption) return;
    const samePage = onPage.get(c.page) ?? [];
    const largest = Math.max(...samePage.map((o) => o.fontSize));
    const marked = candidates.some(
      (o, j) => j !== i && o.page === c.page && o.edge === c.edge && kinds.has(j) && furniturePattern(o.text),
    );
    if (!marked || c.fontSize >= largest) return;
    if (c.edge === "bottom" && footnotes(c)) return;
    kinds.set(i, c.pageNumber ? "page_number" : c.edge === "top" ? "page_header" : "page_footer");
  });
  // A running head split across the text's first line, a folio at one end (see split-head.ts).
  for (const i of splitRunningHeads(candidates, bodySize))
    if (!kinds.has(i) && !candidates[i].caption) kinds.set(i, "page_header");
  // The rest of a page number's line at the page's top or foot (see folio-line.ts).
  for (const [i, kind] of folioLineMates(candidates, kinds, bodySize)) kinds.set(i, kind);
  // Text set sideways in a side margin (a download stamp, a production line up the page's edge).
  candidates.forEach((c, i) => {
    if (kinds.has(i) || !c.sideways || c.boxed) return;
    const width = c.pageSize.width;
    if (c.box.x2 > width * 0.1 && c.box.x1 < width * 0.9) return;
    kinds.set(i, box.centerY(c.box) < c.pageSize.height / 2 ? "page_header" : "page_footer");
  });
  return kinds;
}

/**
 * Whether vertical rules run beside `b` on both sides, each within `reach` points of it and along its whole
 * height: the block sits in a drawn cell (a form's rotated label in its strip of boxes).
 */
export function ruledBothSides(
  b: Box,
  rules: readonly { x1: number; y1: number; x2: number; y2: number; orientation: "h" | "v" }[],
  reach: number,
): boolean {
  const spans = (r: { y1: number; y2: number }) =>
    Math.min(r.y1, r.y2) <= b.y1 + 1 && Math.max(r.y1, r.y2) >= b.y2 - 1;
  const vertical = rules.filter((r) => r.orientation === "v" && spans(r));
  const left = vertical.some((r) => r.x1 <= b.x1 + 1 && r.x1 >= b.x1 - reach);
  const right = vertical.some((r) => r.x1 >= b.x2 - 1 && r.x1 <= b.x2 + reach);
  return left && right;
}

/**
 * The size most of the document's text is set in, counting every run, table cells' included: on a page whose body
 * is a table, the blocks outside it (a title, a footer) are no measure of what is small. Furniture is told against
 * the larger of this and the blocks' body size, so that a footer under a table is small beside the table's text.
 */
export function textBodySize(
  runs: readonly { text: string; fontSize: number; vertical?: boolean }[],
): number {
  const weight = new Map<number, number>();
  for (const run of runs) {
    if (run.vertical) continue;
    const size = Math.round(run.fontSize * 2) / 2;
    weight.set(size, (weight.get(size) ?? 0) + run.text.trim().length);
  }
  let best = 0;
  let bestWeight = 0;
  for (const [size, w] of weight) {
    if (w > bestWeight || (w === bestWeight && size > best)) {
      best = size;
      bestWeight = w;
    }
  }
  return best;
}

/**
 * Which blocks of one page sit on its first or last line of text, apart from the rest: the top line when it
 * lies in the top fifth of the page and the next block starts clearly below it, the bottom line likewise.
 */
export function edgeBlocks(
  boxes: readonly Box[],
  sizes: readonly number[],
  pageHeight: number,
): ("top" | "bottom" | null)[] {
  const edges: ("top" | "bottom" | null)[] = boxes.map(() => null);
  if (boxes.length < 2) return edges;
  const top = Math.min(...boxes.map((b) => b.y1));
  // The first line: the topmost blocks, and those set level with them (centred within their height: a small
  // ISSN beside a journal's name in larger type).
  const topBottom = Math.max(...boxes.filter((b) => b.y1 <= top + 2).map((b) => b.y2));
  const firstLine = boxes
    .map((b, i) => (b.y1 <= top + 2 || (b.y1 < topBottom && box.centerY(b) <= topBottom) ? i : -1))
    .filter((i) => i >= 0);
  const firstBottom = Math.max(...firstLine.map((i) => boxes[i].y2));
  const below = boxes.filter((_, i) => !firstLine.includes(i)).map((b) => b.y1);
  if (firstBottom < pageHeight * 0.2 && below.length > 0) {
    const size = Math.max(...firstLine.map((i) => sizes[i]));
    if (Math.min(...below) - firstBottom >= size * 0.8) for (const i of firstLine) edges[i] = "top";
  }
  const bottom = Math.max(...boxes.map((b) => b.y2));
  // The last line likewise: the lowest blocks and those set level with them (a folio a little higher than the
  // date stamp beside it on a scan's foot).
  const bottomTop = Math.min(...boxes.filter((b) => b.y2 >= bottom - 2).map((b) => b.y1));
  const lastLine = boxes
    .map((b, i) => (b.y2 >= bottom - 2 || (b.y2 > bottomTop && box.centerY(b) >= bottomTop) ? i : -1))
    .filter((i) => i >= 0);
  const lastTop = Math.min(...lastLine.map((i) => boxes[i].y1));
  const above = boxes.filter((_, i) => !lastLine.includes(i)).map((b) => b.y2);
  if (lastTop > pageHeight * 0.8 && above.length > 0) {
    const size = Math.max(...lastLine.map((i) => sizes[i]));
    if (lastTop - Math.max(...above) >= size * 0.8) for (const i of lastLine) edges[i] ??= "bottom";
  }
  return edges;
}
