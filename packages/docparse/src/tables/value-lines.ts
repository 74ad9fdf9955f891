/**
 * The text of a key-value table's value, and nothing beside it: the lines that start at the values' left edge
 * and, on each, the words that follow on within a column gap. A block set further right on the same lines (a
 * second column of the form: an address, another label and its value) is no part of the value: the table's
 * columns end where the alignment evidence ends.
 */
import type { TextRun } from "../paginated/geometry.ts";
import { groupLines } from "./cells.ts";

/** The widest space between two words of one value line, in ems; wider is the gap to the next column. */
const WORD_GAP = 2;

/**
 * Runs of a value from the runs under and beside its label (`own`, top to bottom): lines starting at `valueX`
 * (within a third of an em), each taken up to its first gap wider than a column gap, while each line stands
 * close under the one above (`start` is the label's bottom).
 */
export function valueLines(own: readonly TextRun[], valueX: number, size: number, start: number): TextRun[] {
  const kept: TextRun[] = [];
  let last = start;
  for (const line of groupLines(own)) {
    const first = line.findIndex((run) => Math.abs(run.box.x1 - valueX) <= size * 0.3);
    // A line that starts elsewhere belongs to a column beside the value.
    if (first < 0 || line.slice(0, first).some((run) => run.box.x2 > valueX)) continue;
    const top = Math.min(...line.map((run) => run.box.y1));
    if (top - last > size * 1.2) break;
    let right = line[first].box.x2;
    kept.push(line[first]);
    for (const run of line.slice(first + 1)) {
      if (run.box.x1 - right > size * WORD_GAP) break;
      kept.push(run);
      right = Math.max(right, run.box.x2);
    }
    last = Math.max(last, ...line.map((run) => run.box.y2));
  }
  return kept;
}

/**
 * The block beside a value (`own` less the value's runs `kept`): lines at one left edge right of the value, the
 * first on the label's line (`labelTop`..`labelBottom`), each close under the one above: the form's second column
 * of fields (`Insurance Company` over its name and address). Empty when there is none.
 */
export function besideBlock(
  own: readonly TextRun[],
  kept: readonly TextRun[],
  size: number,
  labelTop: number,
  labelBottom: number,
): TextRun[] {
  const valueRight = Math.max(...kept.map((run) => run.box.x2));
  const rest = own.filter((run) => !kept.includes(run) && run.box.x1 > valueRight + size * WORD_GAP);
  const lines = groupLines(rest);
  if (lines.length === 0) return [];
  const left = lines[0][0].box.x1;
  const firstMiddle = (lines[0][0].box.y1 + lines[0][0].box.y2) / 2;
  if (firstMiddle < labelTop || firstMiddle > labelBottom) return [];
  const block: TextRun[] = [];
  let last = labelTop;
  for (const line of lines) {
    if (Math.abs(line[0].box.x1 - left) > size * 0.3) break;
    if (Math.min(...line.map((run) => run.box.y1)) - last > size * 1.2) break;
    block.push(...line);
    last = Math.max(...line.map((run) => run.box.y2));
  }
  return block;
}
