import type { Box } from "../model.ts";
import { box, type Rule, type TextRun } from "../paginated/geometry.ts";

/**
 * Stacked fractions set inline in text: a short rule (the fraction bar) with a short text just above it (the
 * numerator) and one just below (the denominator), each within the bar's extent and the wider of them as wide as
 * the bar. Read as drawn, the numerators of a line of answers make one line and the denominators another (and a
 * table of both); read as a reader says them, each is `a/b` in its line. Here each such fraction becomes one run,
 * `a/b` (a part of several terms in parentheses), one line tall on the bar, and its bar is no rule any more.
 */

/** The longest bar of a fraction in ems of its text: a few terms over a few terms. */
const MAX_BAR_EMS = 10;
/** The farthest a numerator's or denominator's box stands off the bar, in ems: they touch it, give or take. */
const BAR_GAP = 0.25;
/** The most characters of a numerator or a denominator. */
const MAX_PART = 24;

/** The runs of a fraction's part: centred above (or below) the bar, within its extent, their near edge at it. */
function partRuns(bar: Rule, runs: readonly TextRun[], side: "above" | "below"): TextRun[] {
  const y = (bar.y1 + bar.y2) / 2;
  const x1 = Math.min(bar.x1, bar.x2);
  const x2 = Math.max(bar.x1, bar.x2);
  const onSide = runs.filter((run) => {
    if (run.vertical) return false;
    const slack = 0.15 * run.fontSize;
    if (run.box.x1 < x1 - slack || run.box.x2 > x2 + slack) return false;
    return side === "above" ? box.centerY(run.box) < y : box.centerY(run.box) > y;
  });
  const core = onSide.filter((run) => {
    const gap = BAR_GAP * run.fontSize;
    return Math.abs((side === "above" ? run.box.y2 : run.box.y1) - y) <= gap;
  });
  if (core.length === 0) return [];
  // Exponents and indices of the part stand higher or lower than its line, their middles within its height; and
  // a part whose index hangs down to the bar stands its letters higher, off the bar, level with the index
  // (`c` over `c_j`'s `j`): a run standing at half its height or more level with a run of the part is in it.
  const part = new Set(core);
  const level = (run: TextRun, other: TextRun) => {
    const overlap = Math.min(run.box.y2, other.box.y2) - Math.max(run.box.y1, other.box.y1);
    return overlap >= 0.5 * Math.min(run.box.y2 - run.box.y1, other.box.y2 - other.box.y1);
  };
  for (let grown = true; grown; ) {
    grown = false;
    const top = Math.min(...[...part].map((run) => run.box.y1));
    const bottom = Math.max(...[...part].map((run) => run.box.y2));
    for (const run of onSide) {
      if (part.has(run)) continue;
      const middle = box.centerY(run.box);
      if ((middle > top && middle < bottom) || [...part].some((other) => level(run, other))) {
        part.add(run);
        grown = true;
      }
    }
  }
  return onSide.filter((run) => part.has(run));
}

/** A part's text: its runs left to right, a space where they stand apart; in parentheses when it has terms. */
function partText(runs: readonly TextRun[]): string {
  const sorted = [...runs].sort((a, b) => a.box.x1 - b.box.x1);
  let text = "";
  let right = Number.NEGATIVE_INFINITY;
  for (const run of sorted) {
    const size = Math.max(...sorted.map((r) => r.fontSize));
    text += text !== "" && run.box.x1 - right > 0.08 * size ? ` ${run.text.trim()}` : run.text.trim();
    right = Math.max(right, run.box.x2);
  }
  return /\s/.test(text) ? `(${text})` : text;
}

/** The union of some boxes. */
function union(boxes: readonly Box[]): Box {
  return {
    x1: Math.min(...boxes.map((b) => b.x1)),
    y1: Math.min(...boxes.map((b) => b.y1)),
    x2: Math.max(...boxes.map((b) => b.x2)),
    y2: Math.max(...boxes.map((b) => b.y2)),
  };
}

/** Whether a rule touches either end of a bar (within a point): the bar is a piece of ruling, not a fraction's. */
function meetsEnd(rule: Rule, bar: Rule): boolean {
  const y = (bar.y1 + bar.y2) / 2;
  const ends = [Math.min(bar.x1, bar.x2), Math.max(bar.x1, bar.x2)];
  const lo = (a: number, b: number) => Math.min(a, b) - 1;
  const hi = (a: number, b: number) => Math.max(a, b) + 1;
  return ends.some(
    (x) =>
      x >= lo(rule.x1, rule.x2) &&
      x <= hi(rule.x1, rule.x2) &&
      y >= lo(rule.y1, rule.y2) &&
      y <= hi(rule.y1, rule.y2),
  );
}

/**
 * Whether text stands beside the fraction on its line, within two ems, its middle at the bar's height (a line's
 * math axis, where a fraction's bar stands): it is inline. An underline stands at its line's foot.
 */
function inLine(
  area: Box,
  y: number,
  runs: readonly TextRun[],
  parts: ReadonlySet<TextRun>,
  size: number,
): boolean {
  return runs.some(
    (run) =>
      !parts.has(run) &&
      Math.abs(box.centerY(run.box) - y) <= 0.3 * run.fontSize &&
      (Math.abs(run.box.x2 - area.x1) <= 2 * size || Math.abs(run.box.x1 - area.x2) <= 2 * size),
  );
}

/**
 * The page's runs with each inline stacked fraction made one run `a/b`, and the rules less the fractions' bars.
 *
 * @example
 * const { runs, rules } = stackedFractions(page.runs, page.rules); // "6" over "7" -> one run "6/7"
 */
export function stackedFractions(
  runs: readonly TextRun[],
  rules: readonly Rule[],
): { runs: TextRun[]; rules: Rule[] } {
  const taken = new Set<TextRun>();
  const bars = new Set<Rule>();
  const made: TextRun[] = [];
  // A fraction's size is that of its parts, at most the page's largest text: a bar too long or too thick for that
  // size is no fraction's, and is passed before its parts are looked for (each look scans every run of the page,
  // and a table's rules are many and long).
  let largest = 0;
  for (const run of runs) if (!run.vertical) largest = Math.max(largest, run.fontSize);
  for (const bar of rules) {
    if (bar.orientation !== "h") continue;
    const length = Math.abs(bar.x2 - bar.x1);
    if (length > MAX_BAR_EMS * largest || bar.width > 0.15 * largest) continue;
    const above = partRuns(bar, runs, "above").filter((run) => !taken.has(run));
    const below = partRuns(bar, runs, "below").filter((run) => !taken.has(run));
    if (above.length === 0 || below.length === 0) continue;
    const size = Math.max(...above.map((run) => run.fontSize), ...below.map((run) => run.fontSize));
    if (length > MAX_BAR_EMS * size || bar.width > 0.15 * size) continue;
    const top = union(above.map((run) => run.box));
    const bottom = union(below.map((run) => run.box));
    // The bar is about as wide as the wider part (more with a drawn root sign): a fraction, not a rule under a heading.
    if (Math.max(top.x2 - top.x1, bottom.x2 - bottom.x1) < 0.5 * length) continue;
    // Both parts centred on the bar, and the bar standing free: no rule meets its ends (a grid's or a table's).
    const middle = (bar.x1 + bar.x2) / 2;
    const off = Math.max(0.25 * length, 0.3 * size);
    if (Math.abs(box.centerX(top) - middle) > off || Math.abs(box.centerX(bottom) - middle) > off) continue;
    if (rules.some((rule) => rule !== bar && meetsEnd(rule, bar))) continue;
    const numerator = partText(above);
    const denominator = partText(below);
    if (numerator.length > MAX_PART || denominator.length > MAX_PART) continue;
    const area = union([top, bottom]);
    const parts = new Set([...above, ...below]);
    if (!inLine(area, (bar.y1 + bar.y2) / 2, runs, parts, size)) continue;
    for (const run of parts) taken.add(run);
    bars.add(bar);
    // On its line, the fraction stands as tall as one line of its text, centred on the bar (the line's axis).
    const y = (bar.y1 + bar.y2) / 2;
    const half = Math.max(...[...parts].map((run) => run.box.y2 - run.box.y1)) / 2;
    const place = { x1: area.x1, y1: y - half, x2: area.x2, y2: y + half };
    made.push({ ...above[0], text: `${numerator}/${denominator}`, box: place, fontSize: size });
  }
  if (made.length === 0) return { runs: [...runs], rules: [...rules] };
  return {
    runs: [...runs.filter((run) => !taken.has(run)), ...made],
    rules: rules.filter((rule) => !bars.has(rule)),
  };
}
