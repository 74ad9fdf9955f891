import { type Block, LIST_MARKER } from "./blocks.ts";
import type { Line } from "./lines.ts";

/** An overfull line reaches past its column's edge by at most this share of the column's width. */
const OVERRUN_SHARE = 0.25;

/** A line this long or longer is prose, however it ends. */
const SHORT_LINE = 60;

/** The first word of a line and the width it takes, from the line's width per character. */
function firstWordWidth(line: Line): number {
  const word = /^\S+/.exec(line.text)?.[0] ?? "";
  return ((line.box.x2 - line.box.x1) * word.length) / Math.max(1, line.text.length);
}

/**
 * Where the lines' column ends: the widest line's end, unless that line overruns a justified edge, three other
 * lines or more ending within an em of one another at the end of the next widest and the widest passing it by
 * more than an em and at most a quarter of the column's width (an overfull line: TeX leaves a long word that
 * cannot break standing out past the column). Measured against the overrun, every line of the column would seem
 * to leave room for the next one's first word.
 */
function columnEdge(lines: readonly Line[]): number {
  const ends = lines.map((line) => line.box.x2).sort((a, b) => b - a);
  const em = Math.max(...lines.map((line) => line.fontSize));
  if (ends.length < 4 || ends[0] - ends[1] <= em) return ends[0];
  const edge = ends[1];
  // An overfull line reaches past the column by a little of its width (a word that would not break); a line
  // reaching much farther is a line of its own length (a recipe's long last ingredient under short ones).
  const left = Math.min(...lines.map((line) => line.box.x1));
  if (ends[0] - edge > (edge - left) * OVERRUN_SHARE) return ends[0];
  return ends.slice(1).filter((end) => end >= edge - em).length >= 3 ? edge : ends[0];
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
  const right = columnEdge(lines);
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
