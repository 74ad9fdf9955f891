import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { hRule as h, vRule as v } from "../paginated/test-geometry.ts";
import { detectRuledTables } from "./ruled.ts";
import { fullGrid, grid, ruledPage, run } from "./test-geometry.ts";

/** A box around a word hanging from the top rule of its cell: its sides and its bottom, the top on the rule. */
function hangingBox(x1: number, x2: number, top: number, bottom: number) {
  return [v(x1, top, bottom), v(x2, top, bottom), h(bottom, x1, x2)];
}

test("boxes drawn around dates inside a calendar's cells leave its grid a table", () => {
  const xs = [100, 200, 300, 400, 500];
  const ys = [100, 120, 160, 200, 240];
  const data = [
    ["Monday", "Tuesday", "Thursday", "Friday"],
    ["Sep 26th", "28th", "29th", "30th"],
    ["Oct 3rd", "5th", "6th", "7th"],
    ["10th", "Nov 2nd", "13th", "14th"],
  ];
  const runs = data.flatMap((row, r) => row.map((text, c) => run(text, xs[c] + 6, ys[r] + 4)));
  const boxes = [
    ...hangingBox(104, 148, 120, 136),
    ...hangingBox(104, 144, 160, 176),
    ...hangingBox(204, 244, 200, 216),
  ];
  const tables = detectRuledTables(ruledPage(runs, [...fullGrid(xs, ys), ...boxes]));
  assert.equal(tables.length, 1);
  assert.equal(tables[0].numCols, 4);
  assert.deepEqual(grid(tables[0]), data);
});

test("termcal-class-calendar-p2: the class calendar's ruled grid, its marked dates boxed inside cells", async () => {
  await assertPdfFacts("termcal-class-calendar-p2.pdf", [
    { neighbours: ["Monday", "Tuesday"] },
    { neighbours: ["Tuesday", "Thursday"] },
  ]);
});
