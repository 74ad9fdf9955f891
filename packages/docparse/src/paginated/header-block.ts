import type { Box } from "../model.ts";

/** A block of the page as this rule sees it (furniture.ts's candidates). */
interface BandBlock {
  page: number;
  box: Box;
  fontSize: number;
  /** The block is on the page's first (last) line of text, set apart from what follows (precedes) it. */
  edge: "top" | "bottom" | null;
  sideways?: boolean;
  caption?: boolean;
  pageNumber: boolean;
}

/** How far apart in size the parts of one header line may be set, as a share of the larger. */
const SIZE_SHARE = 0.1;

/**
 * A header block's parts set side by side on the first line of text of the document's first page (an exam's
 * course and name field, its title, its number and date): one thing, so labelled together. At the foot a
 * footnote beside a footer is content for a reason of its own. `labels` are the blocks taken for
 * furniture only because they are short lines at the page's edge, with nothing repeated, no page number and no
 * pattern saying what they are; `kinds` holds every block taken for furniture. A label level with a block of
 * about its size on that line that stays content (a `Name:` field, a heading) is content too: a reader keeps the
 * whole head or none of it, and losing text is worse than keeping a running head. Returns the labels to keep.
 */
export function headerBlockParts(
  candidates: readonly BandBlock[],
  labels: ReadonlySet<number>,
  kinds: ReadonlyMap<number, string>,
): number[] {
  const kept: number[] = [];
  const firstPage = Math.min(...candidates.map((c) => c.page));
  for (const i of labels) {
    const c = candidates[i];
    // On a later page the first line is a running head (a data sheet's company, title and date over page 2).
    if (c.edge !== "top" || c.page !== firstPage) continue;
    const mate = candidates.some((o, j) => {
      if (j === i || kinds.has(j) || o.page !== c.page || o.edge !== c.edge) return false;
      if (o.sideways || o.caption || o.pageNumber) return false;
      const overlap = Math.min(o.box.y2, c.box.y2) - Math.max(o.box.y1, c.box.y1);
      const level = overlap >= Math.min(o.box.y2 - o.box.y1, c.box.y2 - c.box.y1) * 0.5;
      const alike = Math.abs(o.fontSize - c.fontSize) <= Math.max(o.fontSize, c.fontSize) * SIZE_SHARE;
      return level && alike;
    });
    if (mate) kept.push(i);
  }
  return kept;
}
