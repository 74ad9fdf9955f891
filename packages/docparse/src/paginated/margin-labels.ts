import type { Block } from "./blocks.ts";
import { LIST_MARKER } from "./blocks.ts";
import { REFERENCE } from "./bullet-marks.ts";
import { type Line, makeLine } from "./lines.ts";

/** A label of this many words or fewer; a longer text beside the prose is a column of its own. */
const LABEL_WORDS = 3;

/**
 * The left edge most of `lines` start at, to a point: five lines or more and half of them at least, or null. A
 * column of prose shows one.
 */
function proseEdge(lines: readonly Line[]): number | null {
  const counts = new Map<number, number>();
  for (const line of lines)
    counts.set(Math.round(line.box.x1), (counts.get(Math.round(line.box.x1)) ?? 0) + 1);
  let edge: number | null = null;
  let most = 0;
  for (const [x, n] of counts) {
    // A point's rounding can part one edge in two: count the neighbour's lines too.
    const near = n + (counts.get(x - 1) ?? 0) + (counts.get(x + 1) ?? 0);
    if (near > most) {
      most = near;
      edge = x;
    }
  }
  return most >= 5 && most * 2 >= lines.length ? edge : null;
}

/**
 * A line's label set in the margin beside the prose, and the prose the line holds: its runs left of `edge`, a
 * word or up to three holding a letter, ended half an em or more before it, and its runs from `edge` on, the
 * first starting there. A list's or a reference's marker hanging before its text is no label.
 */
function marginLabel(line: Line, edge: number): { label: Line; prose: Line } | null {
  if (line.vertical || line.dir !== "ltr" || line.box.x1 > edge - line.fontSize) return null;
  const runs = [...line.runs].sort((a, b) => a.box.x1 - b.box.x1);
  const first = runs.findIndex((run) => run.box.x1 > edge - 1.5);
  if (first <= 0 || Math.abs(runs[first].box.x1 - edge) > 1.5) return null;
  const label = makeLine(runs.slice(0, first));
  if (label.box.x2 > edge - label.fontSize * 0.5) return null;
  const text = label.text.trim();
  if (!/\p{L}/u.test(text) || text.split(/\s+/).length > LABEL_WORDS) return null;
  if (LIST_MARKER.test(text) || REFERENCE.test(text)) return null;
  return { label, prose: makeLine(runs.slice(first)) };
}

/**
 * Paragraphs of lines in reading order, labels set in the left margin beside them set apart (a manual's command
 * names, `\calday` beside the paragraph that describes it, set closer to the prose than a column gutter and on its
 * baselines, so read as the first word of its line): each run of labels is a block before the paragraph holding
 * the lines they stand on. Labels stand on a third of the prose's lines at most; where more lines carry one, the
 * text beside them is a table's or a list's.
 */
export function blocksBesideLabels(lines: readonly Line[], build: (lines: Line[]) => Block[]): Block[] {
  const edge = proseEdge(lines);
  if (edge === null) return build([...lines]);
  const labelled = new Map<Line, Line>();
  const prose = lines.map((line) => {
    const split = marginLabel(line, edge);
    if (!split) return line;
    labelled.set(split.prose, split.label);
    return split.prose;
  });
  if (labelled.size === 0 || labelled.size * 3 > prose.length) return build([...lines]);
  const out: Block[] = [];
  for (const block of build(prose)) {
    const labels = block.lines.flatMap((line) => {
      const label = labelled.get(line);
      return label ? [label] : [];
    });
    if (labels.length > 0) out.push(...build(labels));
    out.push(block);
  }
  return out;
}
