import assert from "node:assert/strict";
import { test } from "node:test";
import type { Box } from "../model.ts";
import { labelStrip } from "./label-strip.ts";
import { type ReadingOrderOptions, readingOrder } from "./reading-order.ts";

/** The options layoutPage passes for 10 pt text. */
const OPTIONS: ReadingOrderOptions = { minGutter: 9, minGap: 0.5, minColumnWidth: 40, rtl: false };

/** A line of 10 pt text on the baseline `base` (its box 10.5 pt tall, its bottom 2.5 pt under the baseline). */
function line(id: string, x1: number, x2: number, base: number): { id: string; box: Box } {
  return { id, box: { x1, y1: base - 8, x2, y2: base + 2.5 } };
}

/** Steps 1..4 of two lines each, left, on a 10.5 pt pitch with a 10 pt gap between steps. */
function steps(): { id: string; box: Box }[] {
  return [0, 1, 2, 3].flatMap((step) => [
    line(`S${step + 1}a`, 36, 200, 100 + step * 31),
    line(`S${step + 1}b`, 50, 180, 110.5 + step * 31),
  ]);
}

test("labels on the pictures beside numbered steps read after the steps, not inside them", () => {
  // 9 pt labels facing steps 1, 2 and 4, their baselines a third of a line off the steps' baselines.
  const labels = [
    { id: "cut", box: { x1: 222, y1: 97, x2: 233, y2: 106 } },
    { id: "fold", box: { x1: 229, y1: 133, x2: 242, y2: 142 } },
    { id: "tape", box: { x1: 229, y1: 189, x2: 243, y2: 198 } },
  ];
  const order = readingOrder([...labels, ...steps()], OPTIONS).map((e) => e.id);
  assert.deepEqual(order, [...steps().map((e) => e.id), "cut", "fold", "tape"]);
});

test("page numbers on the baselines of a contents list stay with their lines", () => {
  const titles = [0, 1, 2, 3].map((i) => line(`T${i + 1}`, 50, 200, 100 + i * 14));
  const numbers = [0, 1, 2, 3].map((i) => line(`N${i + 1}`, 260, 272, 100 + i * 14));
  const order = readingOrder([...numbers, ...titles], OPTIONS).map((e) => e.id);
  assert.deepEqual(order, ["T1", "N1", "T2", "N2", "T3", "N3", "T4", "N4"]);
});

test("labelStrip wants two labels at least, none on a baseline of the column", () => {
  const column = [line("a", 36, 200, 100).box, line("b", 36, 200, 110.5).box];
  const off = (base: number): Box => ({ x1: 222, y1: base - 9, x2: 233, y2: base });
  assert.equal(labelStrip([off(106), off(140)], column), true);
  assert.equal(labelStrip([off(106)], column), false);
  // One of them on a baseline of the column (its bottom with the line's bottom): a piece of that line.
  assert.equal(labelStrip([off(106), off(102.5)], column), false);
});
