import { type Block, LIST_MARKER } from "./blocks.ts";
import type { Line } from "./lines.ts";

/** A line this long or longer is prose, however it ends. */
const SHORT_LINE = 60;

/** The first word of a line and the width it takes, from the line's width per character. */
function firstWordWidth(line: Line): number {
  const word = /^\S+/.exec(line.text)?.[0] ?? "";
  return ((line.box.x2 - line.box.x1) * word.length) / Math.max(1, line.text.length);
}

/**
 * Whether the lines of `block` were each ended by hand, not wrapped: three or more short left-to-right lines,
 * starting at one left edge, where at two breaks in three the next line's first word would have fitted, with a
 * space, in the room the line leaves before the block's widest line ends. A speaker's card (name, role, organisation, each on its own
 * line), an address, a stack of qualifications: wrapping fills a line until the next word does not fit, so text
 * that leaves room for it each time was broken there by its author.
 */
export function handBrokenLines(block: Block): boolean {
  const lines = block.lines;
  if (lines.length < 3) return false;
  if (lines.some((line) => line.dir !== "ltr" || line.vertical || line.text.length >= SHORT_LINE))
    return false;
  if (lines.some((line) => LIST_MARKER.test(line.text))) return false;
  const left = Math.min(...lines.map((line) => line.box.x1));
  if (lines.some((line) => Math.abs(line.box.x1 - left) > line.fontSize * 0.5)) return false;
  const right = Math.max(...lines.map((line) => line.box.x2));
  let roomy = 0;
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i];
    // A word broken at the line's end goes on in the next: wrapped.
    if (/\p{L}[-\u2010]$/u.test(line.text)) return false;
    if (firstWordWidth(lines[i + 1]) < right - line.box.x2 - line.fontSize * 0.25) roomy++;
  }
  // Two thirds of the breaks: one line near as wide as the widest may stand before a long first word.
  return roomy >= Math.max(2, Math.ceil(((lines.length - 1) * 2) / 3));
}

/**
 * Blocks with each hand-broken block (`handBrokenLines`) split into one block per line: the document model's
 * paragraphs, as a word processor keeps an address typed a paragraph a line, so that markdown, chunks and
 * fragments all keep the lines apart (a line break inside one paragraph would read as a space in markdown).
 */
export function splitHandBrokenLines(blocks: readonly Block[]): Block[] {
  return blocks.flatMap((block) =>
    handBrokenLines(block) ? block.lines.map((line) => ({ lines: [line], box: { ...line.box } })) : [block],
  );
}
