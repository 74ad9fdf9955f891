import type { Box } from "../model.ts";
import { box } from "./geometry.ts";

/**
 * Answer columns of a form: a column of questions (or items) with, on the baselines of its lines, narrow
 * columns of a few words each (`yes`, `no`, `what?____`, a box's label), which the gutters between them would
 * read as columns of their own, every answer away from its question. They are read along the rows instead. A
 * second column of text (an article's, a sidebar's) is neither so short a line by line nor standing on the
 * first column's baselines only.
 */

/** Bottoms this close (a share of the smaller height) stand on one baseline. */
const BASELINE_TOLERANCE = 0.25;
/** Words an answer row holds at most, all its columns together. */
const MAX_ANSWER_WORDS = 4;

export interface OptionText {
  box: Box;
  text: string;
}

/** Elements grouped into rows: those whose bottoms stand on one baseline, top to bottom. */
function rows(elements: readonly OptionText[]): OptionText[][] {
  const sorted = [...elements].sort((a, b) => a.box.y2 - b.box.y2);
  const out: OptionText[][] = [];
  for (const e of sorted) {
    const last = out.at(-1);
    if (last && onBaseline(last[0].box, e.box)) last.push(e);
    else out.push([e]);
  }
  return out;
}

/** Two boxes overlapping in height whose bottoms stand on one baseline (within a share of the smaller height). */
export function onBaseline(a: Box, b: Box): boolean {
  const smaller = Math.min(a.y2 - a.y1, b.y2 - b.y1);
  const overlap = box.overlapY(a, b);
  return overlap > 0 && Math.abs(a.y2 - b.y2) <= smaller * BASELINE_TOLERANCE;
}

/**
 * Whether columns (the text of each, in reading order) are a column of questions followed by columns of
 * answers on its baselines: each answer row of a few words, facing a line of the first column that holds more
 * words than an answer row (a question, not a label over its value).
 */
export function answerColumns(parts: readonly (readonly OptionText[])[]): boolean {
  if (parts.length < 2 || parts.some((part) => part.length === 0)) return false;
  const [questions, ...answers] = parts;
  const questionRows = rows(questions);
  return rows(answers.flat()).every((row) => {
    const facing = questionRows.find((line) => line.some((q) => onBaseline(q.box, row[0].box)));
    return wordsOf(row) <= MAX_ANSWER_WORDS && wordsOf(facing ?? []) > MAX_ANSWER_WORDS;
  });
}

function wordsOf(elements: readonly OptionText[]): number {
  return elements.reduce((n, e) => n + wordCount(e.text), 0);
}

/**
 * Lines of a region read along answer rows (see answerColumns), each question joined with the answers on its
 * baseline into one line: `Did you drink any alcohol? yes no how much?___`, not the question and a line of
 * answers, which would read as a paragraph of its own or a heading. Other lines are kept as they are.
 */
export function answerRows<L extends OptionText>(lines: L[], join: (row: L[]) => L): L[] {
  if (lines.length < 2) return lines;
  const out: L[] = [];
  for (const row of rows(lines) as L[][]) {
    if (row.length < 2) {
      out.push(...row);
      continue;
    }
    const [question, ...answers] = [...row].sort((a, b) => a.box.x1 - b.box.x1);
    const joins = wordCount(question.text) > MAX_ANSWER_WORDS && wordsOf(answers) <= MAX_ANSWER_WORDS;
    if (joins) out.push(join([question, ...answers]));
    else out.push(...row);
  }
  return out;
}

function wordCount(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}
