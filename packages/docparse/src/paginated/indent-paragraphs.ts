import { type Block, LIST_MARKER } from "./blocks.ts";
import { box } from "./geometry.ts";
import type { Line } from "./lines.ts";

/** The widest first-line indent taken for one, in font sizes (a tab stop of a typewritten page is about five). */
const MAX_INDENT = 6;

/**
 * Where a block of paragraphs set apart only by a first-line indent splits: before each later line that starts
 * at the block's first-line indent. Such paragraphs (a GOST report's, a book's) have no gap between them, and a
 * paragraph of one line, or one whose last line runs near the right edge, gives the line-by-line rule of
 * blocks.ts nothing to go on: one indented line after another, or a full line before an indented one, read as a
 * single paragraph. Within one paragraph only the first line is indented, so a block whose lines start at two
 * edges only, the first line at the indented one (0.8 to six font sizes in) and at least one line at the outer
 * one, holds a paragraph at each indented line. A block whose first line starts at the outer edge (a hanging
 * indent: a reference, a list item) is left whole, as is one with a list marker, a line starting elsewhere, or a
 * line stopping short of the right edge before one at the outer edge (centred lines); no split falls after a
 * word broken at a line's end.
 */
export function indentedParagraphStarts(block: Block): number[] {
  const lines = block.lines;
  if (lines.length < 3) return [];
  if (lines.some((line) => line.dir !== "ltr" || line.vertical || LIST_MARKER.test(line.text))) return [];
  const size = lines[0].fontSize;
  const outer = Math.min(...lines.map((line) => line.box.x1));
  const inner = lines[0].box.x1;
  if (inner - outer < size * 0.8 || inner - outer > size * MAX_INDENT) return [];
  const at = (line: Line, x: number) => Math.abs(line.box.x1 - x) <= size * 0.5;
  if (lines.some((line) => !at(line, inner) && !at(line, outer))) return [];
  // A line the next one continues at the outer edge was wrapped: it runs to near the right edge (lines of a
  // centred title, each its own width, do not).
  const right = Math.max(...lines.map((line) => line.box.x2));
  const reach = Math.max((right - outer) * 0.15, size * 3);
  for (let i = 0; i + 1 < lines.length; i++) {
    if (at(lines[i + 1], outer) && lines[i].box.x2 < right - reach) return [];
  }
  const starts: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (at(lines[i], inner) && !/\p{L}[-\u2010]$/u.test(lines[i - 1].text)) starts.push(i);
  }
  return starts;
}

/** Blocks with each block of first-line-indented paragraphs (`indentedParagraphStarts`) split into its paragraphs. */
export function splitIndentedParagraphs(blocks: readonly Block[]): Block[] {
  return blocks.flatMap((block) => {
    const starts = indentedParagraphStarts(block);
    if (starts.length === 0) return [block];
    const bounds = [0, ...starts, block.lines.length];
    const parts: Block[] = [];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const lines = block.lines.slice(bounds[i], bounds[i + 1]);
      parts.push({ lines, box: box.union(lines.map((line) => line.box)) });
    }
    return parts;
  });
}
