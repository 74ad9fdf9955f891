import type { Box } from "../model.ts";
import { box, type TextRun } from "./geometry.ts";

/** A drop initial is set at least this many times the size of the lines beside it. */
const INITIAL_SCALE = 1.5;

/** A drop initial's text: one or two letters or digits. */
const INITIAL = /^[\p{L}\p{N}]{1,2}$/u;

/**
 * Drop initials, each with the box of the first run beside it: a run of one or two letters or digits set
 * large, with runs of two lines or more of smaller text starting just right of it inside its height (a book's or
 * a magazine's drop cap, a step's big number). Grouped by its own middle it would join the second or third line
 * and be read, with that line, before the first.
 */
export function dropInitials(runs: readonly TextRun[]): Map<TextRun, Box> {
  const initials = new Map<TextRun, Box>();
  // Nothing on the page is small enough beside a run under this size: most runs are skipped without a scan.
  const smallest = runs.reduce((min, run) => Math.min(min, run.fontSize), Infinity);
  for (const run of runs) {
    if (run.fontSize < smallest * INITIAL_SCALE) continue;
    if (!INITIAL.test(run.text.trim())) continue;
    const beside = besideInitial(run, runs);
    if (beside.length < 2) continue;
    const first = beside.reduce((a, b) => (box.centerY(b.box) < box.centerY(a.box) ? b : a));
    const last = beside.reduce((a, b) => (box.centerY(b.box) > box.centerY(a.box) ? b : a));
    // Lines beside it, not words of one line: the lowest stands a line below the first.
    if (box.centerY(last.box) - box.centerY(first.box) < 0.8 * (first.box.y2 - first.box.y1)) continue;
    initials.set(run, first.box);
  }
  return initials;
}

/** Runs of smaller text starting just right of a large run, their middles inside its height. */
function besideInitial(run: TextRun, runs: readonly TextRun[]): TextRun[] {
  return runs.filter(
    (other) =>
      other !== run &&
      other.fontSize * INITIAL_SCALE <= run.fontSize &&
      other.box.x1 >= run.box.x2 - 1 &&
      other.box.x1 <= run.box.x2 + 2 * other.fontSize &&
      box.centerY(other.box) > run.box.y1 &&
      box.centerY(other.box) < run.box.y2,
  );
}

/**
 * Drop initials that are the first letter of the word beside them (`E` of `Every`, set apart from `very` by the
 * drop cap's distance): a single letter whose first line starts where the lines below it beside the initial
 * start. A word of its own (`A` of `A long time`) leaves a space before the first line's text, which then starts
 * a space further right than the lines below; a step's number is no letter.
 */
export function wordInitials(initials: ReadonlyMap<TextRun, Box>, runs: readonly TextRun[]): Set<TextRun> {
  const glued = new Set<TextRun>();
  for (const [initial, first] of initials) {
    if (!/^\p{L}$/u.test(initial.text.trim())) continue;
    const below = besideInitial(initial, runs).filter((run) => box.centerY(run.box) > first.y2);
    if (below.length === 0) continue;
    const start = Math.min(...below.map((run) => run.box.x1));
    const size = Math.min(...below.map((run) => run.fontSize));
    if (Math.abs(first.x1 - start) <= 0.1 * size) glued.add(initial);
  }
  return glued;
}

/**
 * A line's box without its drop initial: a letter or a step's number (`1`, `A`) opening the line, set at least
 * half again as large as the rest of it and reaching down beside the lines below (a recipe's numbered steps, a
 * magazine's drop cap). The paragraph goes on in those lines: measured from the drop initial's foot they would
 * overlap the line they follow, and each step would be cut after its first line (its hyphenated word unjoined).
 * A line without one keeps its box.
 */
export function boxBesideDropInitial(line: { runs: readonly TextRun[]; box: Box }): Box {
  const [first, ...rest] = line.runs;
  if (!first || rest.length === 0 || !INITIAL.test(first.text.trim())) return line.box;
  const text = box.union(rest.map((run) => run.box));
  const size = Math.max(...rest.map((run) => run.fontSize));
  const drops = first.box.y2 > text.y2 + (text.y2 - text.y1) * 0.5;
  const before = first.box.x2 <= text.x1 + 1;
  return first.fontSize >= size * INITIAL_SCALE && drops && before ? text : line.box;
}
