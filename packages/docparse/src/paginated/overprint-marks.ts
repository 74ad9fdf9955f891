import type { TextRun } from "./geometry.ts";

/** A mark's size against the word it is drawn over, at most (a third, a little more). */
const MARK_SIZE = 0.4;
/** Characters a mark holds, at most. */
const MARK_LENGTH = 3;
/** Ems of the word's size a mark stands inside its ends, at least: over its letters, not beside them. */
const INSIDE = 0.2;

/**
 * Marks drawn over a word's letters: a run of one to three characters at a third of the size of a run whose box
 * holds it, inside both its ends and between its top and bottom (a critical edition's small `s` set over a
 * chapter title's hyphenated word). Read in place, the mark lands inside that word (`Вто-s`), and the word no
 * longer joins its other half on the next line. A footnote mark or a superscript stands after its word, past its
 * end, and stays where it is. Marks are read after the page's text, as a strip of their own (text is never
 * dropped). Only the few small runs are tried against the others.
 */
export function overprintMarks(runs: readonly TextRun[]): Set<TextRun> {
  const found = new Set<TextRun>();
  const maxSize = Math.max(0, ...runs.map((run) => run.fontSize));
  const marks = runs.filter(
    (run) =>
      !run.vertical &&
      run.text.trim().length > 0 &&
      run.text.trim().length <= MARK_LENGTH &&
      run.fontSize <= maxSize * MARK_SIZE,
  );
  if (marks.length === 0) return found;
  // Only runs large enough to hold the smallest mark are tried as its word.
  const smallest = Math.min(...marks.map((mark) => mark.fontSize));
  const words = runs.filter((run) => !run.vertical && run.fontSize * MARK_SIZE >= smallest);
  for (const mark of marks) {
    const host = words.find(
      (run) =>
        run !== mark &&
        mark.fontSize <= run.fontSize * MARK_SIZE &&
        mark.box.x1 >= run.box.x1 + run.fontSize * INSIDE &&
        mark.box.x2 <= run.box.x2 - run.fontSize * INSIDE &&
        mark.box.y1 >= run.box.y1 &&
        mark.box.y2 <= run.box.y2,
    );
    if (host) found.add(mark);
  }
  return found;
}
