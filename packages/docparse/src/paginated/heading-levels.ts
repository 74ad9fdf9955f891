/**
 * Heading levels set against each other. An unnumbered heading's level comes from its own size and weight
 * against the body (labels.ts `levelBySize`), on a fixed scale, which can flatten a document's hierarchy in two
 * ways: two heading styles that differ clearly fall into one step of the scale (a CV's job title in 12 points
 * over its company in bold 10, both `###`), and a document's opening heading, set smaller than the sections under
 * it, sits below them (a report's title in bold 12 over sections in 13.5). Here, after every block is labelled:
 * - the first block of the document, when it is an unnumbered heading in a style no other heading has, takes the
 *   highest level any heading has, if it sat one level lower: a title, set once, is never under its own sections
 *   (two levels or more lower, it is a label: a form's first field);
 * - within one level, each heading style clearly lighter than the level's heaviest (a tenth smaller, or not bold
 *   at the same size) takes the next level down.
 * Numbered headings keep the depth their numbers say.
 */

/** A section header as this pass sees it; `level` is set in place. */
export interface LeveledHeading {
  level: number;
  size: number;
  bold: boolean;
  /** Its level comes from numbering (`2.1`), not from its look. */
  numbered: boolean;
}

/** Sizes this share apart are clearly different styles. */
const SIZE_STEP = 1.1;
/** Sizes this close (points) are one size. */
const SAME_SIZE = 0.5;
const DEEPEST = 6;

/** Whether style `a` is clearly heavier than `b`: larger by a tenth, or bold where `b` is not at the same size. */
function heavier(a: LeveledHeading, b: LeveledHeading): boolean {
  if (a.size >= b.size * SIZE_STEP) return true;
  return Math.abs(a.size - b.size) <= SAME_SIZE && a.bold && !b.bold;
}

/**
 * Levels of `headings` (the document's section headers in reading order) set apart as above; `opening` is the
 * document's first block when it is one of them.
 */
export function separateHeadingLevels(headings: readonly LeveledHeading[], opening?: LeveledHeading): void {
  const styled = headings.filter((h) => !h.numbered);
  const levels = [...new Set(styled.map((h) => h.level))].sort((a, b) => b - a);
  // Deepest level first, so that a style moved down is not compared again at the level it joins.
  for (const level of levels) {
    const at = styled.filter((h) => h.level === level);
    const heaviest = at.reduce((best, h) => (heavier(h, best) ? h : best), at[0]);
    for (const h of at) if (heavier(heaviest, h)) h.level = Math.min(level + 1, DEEPEST);
  }
  // A title is set once: an opening heading sharing its style with another (an invoice's two names) is none.
  const alike = (h: LeveledHeading) =>
    h !== opening &&
    opening !== undefined &&
    Math.abs(h.size - opening.size) <= SAME_SIZE &&
    h.bold === opening.bold;
  if (!opening || opening.numbered || headings.some(alike)) return;
  // One level up at most: an opening two levels or more below the top is a label (a form's first field), no title.
  const top = Math.min(...headings.map((h) => h.level));
  if (opening.level === top + 1) opening.level = top;
}
