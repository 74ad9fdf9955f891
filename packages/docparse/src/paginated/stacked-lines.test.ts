import assert from "node:assert/strict";
import { test } from "node:test";
import type { Box } from "../model.ts";
import { type ReadingOrderOptions, readingOrder } from "./reading-order.ts";
import { stackedLines } from "./stacked-lines.ts";

/** The options layoutPage passes for a page whose body text is 10 pt. */
const OPTIONS: ReadingOrderOptions = { minGutter: 9, minGap: 0.5, minColumnWidth: 40, rtl: false };

/** `count` lines of 7 pt notes set solid: boxes 8.4 pt tall on a 7 pt pitch, so that they overlap. */
function notes(name: string, x1: number, x2: number, count: number): { id: string; box: Box }[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${name}${i + 1}`,
    box: { x1, y1: 447 + i * 7, x2, y2: 455.4 + i * 7 },
  }));
}

test("columns of small print set solid read column by column, not across", () => {
  // A report's notes under a table: four columns of 7 pt text 17 pt apart, the lines of each on one pitch.
  const columns = [
    notes("A", 79, 301, 5),
    notes("B", 319, 541, 6),
    notes("C", 558, 762, 7),
    notes("D", 798, 979, 4),
  ];
  // Interleaved across the page as a text layer gives them.
  const shuffled = Array.from({ length: 7 }, (_, i) => columns.flatMap((c) => (c[i] ? [c[i]] : []))).flat();
  assert.deepEqual(
    readingOrder(shuffled, OPTIONS).map((e) => e.id),
    columns.flat().map((e) => e.id),
  );
});

test("stackedLines tells lines one above the other from runs of one line", () => {
  const word = (x: number, y1: number, y2: number): Box => ({ x1: x, y1, x2: x + 20, y2 });
  // Two lines set solid: boxes overlap by 1.4 pt of 8.4.
  assert.equal(stackedLines([word(0, 447, 455.4), word(0, 454, 462.4)]), true);
  // Words of one line, and a superscript beside its word, are one line.
  assert.equal(stackedLines([word(0, 447, 455.4), word(30, 447, 455.4)]), false);
  assert.equal(stackedLines([word(0, 447, 455.4), word(21, 445, 450.5)]), false);
  assert.equal(stackedLines([word(0, 447, 455.4)]), false);
});
