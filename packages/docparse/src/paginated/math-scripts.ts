import { box, type TextRun } from "./geometry.ts";

/**
 * Sub- and superscripts a formula sets beside its letters (`c_i`, `k_x`, `a_ij`, `c_i^†`). A script shares too
 * little height with its base's line to be grouped with it by height alone when it hangs well below or above it,
 * or when its row opened with a run on the other side of the line (a superscript sorting first, the subscripts
 * then meeting neither it nor the band it started): the scripts make a line of their own (`i i+1 i i+1` under
 * `tc †c + ∆c c`). A smaller run that starts where a larger run of a row nearby ends, touching it or a small gap
 * after it, and that overlaps that run's height while standing out of it on one side, raised or lowered, is that
 * run's script: it joins the run's row, read in x order, glued to its base as pdftotext reads it (`ci`, `aij`).
 * Runs after it in its own row, as small and as close, go with it (`i` then `+1`). Where a base would take a raised
 * and a lowered run from other rows that lie over each other and do not start together, they are a stacked
 * fraction's parts, not its scripts, and both stay where they are; a subscript under a superscript that starts
 * with it (`x_j^{(k)}`) is taken alone, as pdftotext reads it (`xj`).
 */

/**
 * How much smaller than its base a script is set: TeX's script size is 0.7 of the text's (a second level 0.7 of
 * the first's), a word processor's two thirds. Half the size or less is no script: ruby over Japanese (`き` over
 * `鬼`), or the text beside a drop initial.
 */
const SCRIPT_SIZE = 0.8;
const SCRIPT_SIZE_MIN = 0.55;
/** The widest gap between a base's end and its script, in the base's ems (a script space, an italic correction). */
const SCRIPT_GAP = 0.25;
/** The widest gap between a script taken and a run that goes with it, in the script's ems: a word space (`4, †`). */
const FOLLOWER_GAP = 0.5;
/** How far into its base's run a script may start, in the base's ems (a negative kern under an italic letter). */
const SCRIPT_INSET = 0.3;
/** How far a script stands out of its base's height, at most, in its own heights: it shares a third at least. */
const STAND_OUT = 0.7;
/** Rows searched for a base on each side of a script's row (rows are sorted by their middles). */
const NEIGHBOUR_ROWS = 3;

type Side = "raised" | "lowered";

/** Which side of `base` the smaller `run` stands out on as its script, or null when it is no script of it. */
function scriptSide(base: TextRun, run: TextRun): Side | null {
  // OCR sizes a word by its box's height, its letters', not by a font: a smaller OCR word is no smaller type.
  if (base.fontName === "ocr" || run.fontName === "ocr") return null;
  if (run.fontSize > SCRIPT_SIZE * base.fontSize || run.fontSize < SCRIPT_SIZE_MIN * base.fontSize)
    return null;
  const gap = run.box.x1 - base.box.x2;
  if (gap > SCRIPT_GAP * base.fontSize || gap < -SCRIPT_INSET * base.fontSize || run.box.x1 <= base.box.x1)
    return null;
  if (Math.abs(box.centerY(run.box) - box.centerY(base.box)) <= 0.15 * base.fontSize) return null;
  const height = run.box.y2 - run.box.y1;
  if (run.box.y2 > base.box.y2 && run.box.y1 > base.box.y1 && run.box.y1 < base.box.y2) {
    return run.box.y2 - base.box.y2 <= STAND_OUT * height ? "lowered" : null;
  }
  if (run.box.y1 < base.box.y1 && run.box.y2 < base.box.y2 && run.box.y2 > base.box.y1) {
    return base.box.y1 - run.box.y1 <= STAND_OUT * height ? "raised" : null;
  }
  return null;
}

interface Attachment {
  run: TextRun;
  base: TextRun;
  side: Side;
  /** The runs after it in its row that go with it. */
  followers: TextRun[];
}

/**
 * Rows (lists of runs, sorted by their middles) with the scripts standing in rows of their own moved into the rows
 * of their bases. Rows left empty are dropped.
 */
export function joinScripts(rows: TextRun[][]): TextRun[][] {
  const rowOf = new Map<TextRun, number>();
  for (const [index, row] of rows.entries()) for (const run of row) rowOf.set(run, index);
  const attachments: Attachment[] = [];
  for (const [index, row] of rows.entries()) {
    const sorted = [...row].sort((a, b) => a.box.x1 - b.box.x1);
    let last: Attachment | null = null;
    let previous: TextRun | null = null;
    for (const run of sorted) {
      // A run set on after a script taken, a word space apart at most, goes with it (`+1` after `i`, `†` after an
      // author's `4,`), if it is no larger.
      if (
        last &&
        previous &&
        run.fontSize <= previous.fontSize * 1.05 &&
        run.box.x1 - previous.box.x2 <= FOLLOWER_GAP * previous.fontSize &&
        scriptSide(last.base, { ...run, box: { ...run.box, x1: last.base.box.x2 } }) === last.side
      ) {
        last.followers.push(run);
        previous = run;
        continue;
      }
      last = null;
      // A run set on from the run before it in its own row, touching it or as close as a script to its base, goes
      // on that row's line: two lines of different sizes overlapping (a heading over a heading) are no scripts.
      if (previous && run.box.x1 - previous.box.x2 <= SCRIPT_GAP * run.fontSize) {
        previous = run;
        continue;
      }
      let best: { base: TextRun; side: Side; gap: number } | null = null;
      for (let other = index - NEIGHBOUR_ROWS; other <= index + NEIGHBOUR_ROWS; other++) {
        if (other === index || other < 0 || other >= rows.length) continue;
        for (const base of rows[other]) {
          const side = scriptSide(base, run);
          const gap = Math.abs(run.box.x1 - base.box.x2);
          if (side && (!best || gap < best.gap)) best = { base, side, gap };
        }
      }
      if (best) {
        last = { run, base: best.base, side: best.side, followers: [] };
        attachments.push(last);
      }
      previous = run;
    }
  }
  // A base taking a raised and a lowered run that lie over each other: a stacked fraction's parts beside it, or a
  // subscript under its superscript when both start together. The other part may already share the base's row.
  const byBase = new Map<TextRun, Attachment[]>();
  for (const a of attachments) byBase.set(a.base, [...(byBase.get(a.base) ?? []), a]);
  const dropped = new Set<Attachment>();
  for (const [base, list] of byBase) {
    const inRow = rows[rowOf.get(base) ?? 0].flatMap((run) => {
      const side = scriptSide(base, run);
      return side ? [{ run, base, side, followers: [] }] : [];
    });
    const all = [...list, ...inRow];
    for (const raised of all.filter((a) => a.side === "raised")) {
      for (const lowered of all.filter((a) => a.side === "lowered")) {
        const { run: up } = raised;
        const { run: down } = lowered;
        if (Math.min(up.box.x2, down.box.x2) <= Math.max(up.box.x1, down.box.x1)) continue;
        dropped.add(raised);
        if (Math.abs(up.box.x1 - down.box.x1) > 0.1 * base.fontSize) dropped.add(lowered);
      }
    }
  }
  // A base may itself be a script moved (a second-level script on a first): follow it to its row.
  const target = new Map<TextRun, number>();
  const moves = new Map<TextRun, TextRun>();
  for (const a of attachments) {
    if (dropped.has(a)) continue;
    for (const run of [a.run, ...a.followers]) moves.set(run, a.base);
  }
  const rowFor = (run: TextRun, depth = 0): number => {
    const base = moves.get(run);
    if (!base || depth > 4) return rowOf.get(run) ?? -1;
    return rowFor(base, depth + 1);
  };
  for (const run of moves.keys()) target.set(run, rowFor(run));
  if (target.size === 0) return rows;
  const out: TextRun[][] = rows.map((row) => row.filter((run) => !target.has(run)));
  for (const [run, index] of target) out[index].push(run);
  return out.filter((row) => row.length > 0);
}
