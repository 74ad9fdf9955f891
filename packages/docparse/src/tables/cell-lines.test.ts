import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { detectRuledTables } from "./ruled.ts";
import { fullGrid, grid, ruledPage, run } from "./test-geometry.ts";

/**
 * A class calendar ruled week by week: a header of days, then six weeks, each day's date at its cell's left and
 * its class number at the right; two weeks hold notes under their dates, over two and three lines.
 */
function calendarPage() {
  const xs = [100, 200, 300, 400, 500];
  const ys = [100, 120, 160, 200, 250, 300, 340, 380];
  const runs = ["Monday", "Tuesday", "Thursday", "Friday"].map((day, c) => run(day, xs[c] + 4, 104));
  let n = 1;
  for (let w = 0; w < 6; w++) {
    const y = ys[w + 1] + 3;
    for (let c = 0; c < 4; c++) {
      runs.push(run(`${10 + w * 7 + c}th`, xs[c] + 4, y));
      // Thursday has no class: no number.
      if (c !== 2) {
        const label = String(n++);
        runs.push(run(label, xs[c + 1] - 4 - label.length * 5, y));
      }
    }
  }
  // Week 3: an exam under Tuesday's date, a reading over three lines under Friday's, each note running across
  // the cell under the date and the number.
  runs.push(run("Midterm Exam today", 204, 215));
  runs.push(run("Sorting and sifting", 404, 215), run("disporting", 404, 227), run("§1.2", 404, 239));
  // Week 4: a reading under Monday's date.
  runs.push(run("Tending and rending", 104, 265), run("again", 104, 277));
  return ruledPage(runs, fullGrid(xs, ys));
}

test("a calendar's cells keep their notes: one row a week, the notes in their day's cell", () => {
  const [table] = detectRuledTables(calendarPage());
  assert.ok(table);
  const rows = grid(table);
  assert.equal(rows.length, 7, JSON.stringify(rows));
  assert.deepEqual(rows[3], [
    "24th 7",
    "25th 8 Midterm Exam today",
    "26th",
    "27th 9 Sorting and sifting disporting §1.2",
  ]);
  assert.deepEqual(rows[4], ["31th 10 Tending and rending again", "32th 11", "33th", "34th 12"]);
});

test("a day's number set right of its date is no column of its own when a note runs across between them", () => {
  const [table] = detectRuledTables(calendarPage());
  assert.ok(table);
  assert.equal(table.numCols, 4);
  assert.deepEqual(grid(table)[1], ["10th 1", "11th 2", "12th", "13th 3"]);
});

test("termcal-class-calendar-p2: each week is one row, Tuesday one column", async () => {
  await assertPdfFacts("termcal-class-calendar-p2.pdf", [
    { neighbours: ["Sep 26th 1", "28th 2"] },
    { neighbours: ["28th 2", "29th"] },
    { neighbours: ["13th", "14th 9 §1.2,1.3 Sorting and disporting"] },
    { neighbours: ["31st No Class Halloween", "Nov 2nd 16"] },
  ]);
});
