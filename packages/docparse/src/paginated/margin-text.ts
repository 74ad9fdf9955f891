import type { Block } from "./blocks.ts";
import type { Line } from "./lines.ts";

/**
 * Paragraphs of lines in reading order, sideways lines set apart: text running up a margin (an arXiv stamp beside
 * a column) is read where its start sits, which can fall between two lines of a paragraph and cut it in two. The
 * upright lines make the paragraphs; each run of sideways lines becomes a block after the paragraph holding the
 * line read before it. Where sideways lines are half the lines or more (vertical Chinese or Japanese columns),
 * they are the text, and blocks are built in order.
 */
export function blocksBesideMargin(lines: readonly Line[], build: (lines: Line[]) => Block[]): Block[] {
  const upright = lines.filter((line) => !line.vertical);
  if (upright.length === lines.length || upright.length * 2 <= lines.length) return build([...lines]);
  const leading: Line[][] = [];
  const after = new Map<Line, Line[][]>();
  let lead: Line | null = null;
  let previousSideways = false;
  for (const line of lines) {
    if (!line.vertical) {
      lead = line;
      previousSideways = false;
      continue;
    }
    const runs = lead ? (after.get(lead) ?? []) : leading;
    if (lead) after.set(lead, runs);
    if (previousSideways) runs[runs.length - 1].push(line);
    else runs.push([line]);
    previousSideways = true;
  }
  const out = leading.flatMap(build);
  for (const block of build(upright)) {
    out.push(block);
    for (const line of block.lines) for (const run of after.get(line) ?? []) out.push(...build(run));
  }
  return out;
}
