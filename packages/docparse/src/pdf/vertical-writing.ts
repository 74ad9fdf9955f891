/**
 * Vertical writing (tategaki): a font whose CMap writes down the page (`Identity-V`, a `-V` CMap) sets its glyphs
 * one under the other, columns read from right to left. pdf.js gives such an item the matrix of upright text, its
 * `width` one em across the column and its `height` the glyphs' advance down it. A run of it spans that advance
 * (not one em along a baseline) and counts as text running downwards: a page set mostly so is read in the frame
 * that turns it a quarter (`pageTextRuns`), where each column is a line and the right-hand column the first.
 * Lines the same page sets across (the same phrases set horizontally, a caption) would run up that frame, each
 * piece of a line a sideways line of its own: they are kept upright instead (`acrossLinesUpright`).
 */

import type { Box } from "../model.ts";
import { box, type TextRun } from "../paginated/geometry.ts";

type Point = [number, number];

/**
 * The runs of a page turned for its vertical writing: the columns as `turned` reads them, and the text set across
 * the page (`upright`'s runs that are not vertical, in the page's own frame) kept as lines. Across runs less than
 * an em apart form a block; each block is set down unturned at the corner its turned place begins at (`toTurned`
 * maps the page's frame to the turned one), so it is read in its place among the columns, line by line; a block of
 * one line (a folio) stays as the turned read has it. When a
 * block so set would cover a column or another block, the page keeps `turned` as it is. The blocks' places are
 * returned too: their lines share rows with the columns' lines beside them, but make no table with them.
 */
export function acrossLinesUpright(
  upright: readonly TextRun[],
  turned: readonly TextRun[],
  toTurned: (x: number, y: number) => Point,
): { runs: TextRun[]; blocks: Box[] } {
  const unchanged = { runs: [...turned], blocks: [] };
  const across = upright.filter((run) => !run.vertical);
  const columns = turned.filter((run) => !run.vertical);
  const sideways = turned.filter((run) => run.vertical);
  const placed: Box[] = [];
  const out = [...columns];
  for (const block of acrossBlocks(across)) {
    const extent = box.union(block.map((run) => run.box));
    const footprint = box.mapped(extent, toTurned);
    // A single line (a folio, a caption) stays the sideways line the turned read made of it.
    if (box.height(extent) < 2 * Math.max(...block.map((run) => run.fontSize))) {
      out.push(...sideways.filter((run) => box.containsCenter(footprint, run.box, 1)));
      continue;
    }
    const dx = footprint.x1 - extent.x1;
    const dy = footprint.y1 - extent.y1;
    const moved = block.map((run) => ({
      ...run,
      box: { x1: run.box.x1 + dx, y1: run.box.y1 + dy, x2: run.box.x2 + dx, y2: run.box.y2 + dy },
    }));
    const at = box.union(moved.map((run) => run.box));
    if (
      columns.some((run) => box.intersection(run.box, at) > 0) ||
      placed.some((b) => box.intersection(b, at) > 0)
    )
      return unchanged;
    placed.push(at);
    out.push(...moved);
  }
  // Nothing set across in lines: the turned read as it was.
  return placed.length === 0 ? unchanged : { runs: out, blocks: placed };
}

/** Runs grouped into blocks: two runs whose boxes come within an em (the larger run's size) of each other. */
function acrossBlocks(runs: readonly TextRun[]): TextRun[][] {
  const parent = runs.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (let i = 0; i < runs.length; i++)
    for (let j = i + 1; j < runs.length; j++) {
      const reach = Math.max(runs[i].fontSize, runs[j].fontSize);
      if (box.overlapX(runs[i].box, runs[j].box) > -reach && box.overlapY(runs[i].box, runs[j].box) > -reach)
        parent[root(i)] = root(j);
    }
  const blocks = new Map<number, TextRun[]>();
  for (const [i, run] of runs.entries()) {
    const key = root(i);
    blocks.set(key, [...(blocks.get(key) ?? []), run]);
  }
  return [...blocks.values()];
}

/**
 * The corners of a run set in vertical writing, through `apply` (text space to the page): pdf.js puts its origin
 * at the first glyph's lower left, one em under the column's top; the glyphs are `width` ems across and run
 * `height` ems down from that top.
 */
export function columnCorners(
  apply: (x: number, y: number) => Point,
  width: number,
  height: number,
): Point[] {
  return [apply(0, 1), apply(width, 1), apply(0, 1 - height), apply(width, 1 - height)];
}

/** The way a vertical writing run's glyphs advance on the page for its matrix `m`: down its text space's y. */
export function columnAdvance(m: readonly number[]): Point {
  return [-m[2], -m[3]];
}
