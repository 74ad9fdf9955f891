import type { Box } from "../model.ts";
import { box } from "./geometry.ts";
import type { Line } from "./lines.ts";

/**
 * A line's box without its drop initial: a letter or a step's number (`1`, `A`) opening the line, set at least
 * half again as large as the rest of it and reaching down beside the lines below (a recipe's numbered steps, a
 * magazine's drop cap). The paragraph goes on in those lines: measured from the drop initial's foot they would
 * overlap the line they follow, and each step would be cut after its first line (its hyphenated word unjoined).
 * A line without one keeps its box.
 */
export function boxBesideDropInitial(line: Line): Box {
  const [first, ...rest] = line.runs;
  if (!first || rest.length === 0 || !/^[\p{L}\p{N}]{1,2}$/u.test(first.text.trim())) return line.box;
  const text = box.union(rest.map((run) => run.box));
  const size = Math.max(...rest.map((run) => run.fontSize));
  const drops = first.box.y2 > text.y2 + (text.y2 - text.y1) * 0.5;
  const before = first.box.x2 <= text.x1 + 1;
  return first.fontSize >= size * 1.5 && drops && before ? text : line.box;
}
