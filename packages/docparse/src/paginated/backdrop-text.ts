import { box, type TextRun } from "./geometry.ts";

/** How many times the page's body size a backdrop's letters are set, at least (a drop cap spans two to four lines). */
const BACKDROP_SIZE = 6;

/** Fewest runs of ordinary text a backdrop's letters lie under. */
const MIN_UNDER = 2;

/**
 * Backdrop text: letters set far larger than the page's body text (a watermark, a big word printed behind a poster's
 * boxes) with ordinary text drawn over them. Found from size and overlap, not from one document: runs six times the
 * page's typical size or more whose box holds parts of at least two runs of text no more than twice that size. Left
 * in place they run across the column gutters they lie under, and the columns are read across, line by line; they
 * are read after the page's text, as a strip of their own (text is never dropped). A large title or a big figure
 * set apart from the text overlaps none of it and stays where it is. Large letters touching a backdrop's (the
 * other letters of its word or logo) are part of it.
 */
export function backdropRuns(runs: readonly TextRun[], size: number): Set<TextRun> {
  const found = new Set<TextRun>();
  for (const run of runs) {
    if (run.vertical || run.fontSize < BACKDROP_SIZE * size) continue;
    const under = runs.filter(
      (other) =>
        other !== run &&
        other.fontSize <= 2 * size &&
        box.intersection(other.box, run.box) > 0.5 * box.area(other.box),
    );
    if (under.length >= MIN_UNDER) found.add(run);
  }
  // The rest of the backdrop's letters (a logo's raised letter, a word's first letter set apart) touch it.
  const big = runs.filter((run) => !run.vertical && run.fontSize >= BACKDROP_SIZE * size);
  let grown = true;
  while (grown) {
    grown = false;
    for (const run of big) {
      if (found.has(run)) continue;
      const reach = { ...run.box, x1: run.box.x1 - size, x2: run.box.x2 + size };
      if ([...found].some((b) => box.intersection(reach, b.box) > 0)) {
        found.add(run);
        grown = true;
      }
    }
  }
  return found;
}

/** How many times the page's body size a stamp's letters are set, at least. */
const STAMP_SIZE = 2;

/**
 * Stamp text: runs drawn on a slant (pdf/text.ts `slanted`) at twice the page's body size or more, a diagonal
 * `SCANNED COPY`, `DRAFT` or `CONFIDENTIAL` over the page. Its words are the page's too (pdftotext reads them,
 * letter pair by letter pair), so they are kept, read after the page's text as a plain paragraph: a stamp is
 * neither the page's title nor a part of the text it crosses. A small slanted label (a chart's axis category at
 * 45°) is left where it stands.
 */
export function stampRuns(runs: readonly TextRun[], size: number): TextRun[] {
  return runs.filter((run) => run.slanted === true && run.fontSize >= STAMP_SIZE * size);
}
