import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectAlignedTables } from "./aligned.ts";
import { grid, run } from "./test-geometry.ts";

/**
 * Grids side by side under copies of one header (a planner's months): each grid a table of its own, read in
 * the page's order; a header repeated over one table's column groups beside its row labels stays one table.
 */

const LABELS = ["Mo", "Tu", "We", "Th", "Fr"];
/** Columns 22 pt apart inside a grid; grids 150 pt apart (a 50 pt gutter). */
const PITCH = 22;
const STRIDE = 150;

/**
 * Three week grids side by side, each under its title and the day labels, rows of dates under them; `same`
 * prints the same dates in each (copies of one thing, as a sheet of identical cards).
 */
function planner(same = false): TextRun[] {
  const runs: TextRun[] = [];
  for (const [g, title] of ["Spring", "Summer", "Autumn"].entries()) {
    const x = 72 + g * STRIDE;
    runs.push(run(title, x + 30, 100, { fontSize: 11 }));
    for (const [c, label] of LABELS.entries()) runs.push(run(label, x + c * PITCH, 118));
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < LABELS.length; c++) {
        // One day of the middle grid's Wednesday column is a picture, not a number.
        if (g === 1 && c === 2 && r > 0) continue;
        runs.push(run(String(1 + r * 5 + c + (same ? 0 : g * 20)), x + c * PITCH, 136 + 14 * r));
      }
    }
  }
  return runs;
}

test("grids side by side under copies of one header are a table each, left to right", () => {
  const tables = detectAlignedTables(pageGeometry({ runs: planner() }));
  assert.equal(tables.length, 3);
  const grids = tables.sort((a, b) => a.box.x1 - b.box.x1).map(grid);
  assert.deepEqual(grids[0][1], LABELS);
  assert.deepEqual(grids[0][2], ["1", "2", "3", "4", "5"]);
  assert.ok(grids[0].flat().includes("Spring"));
  assert.deepEqual(grids[1][3], ["26", "27", "", "29", "30"]);
  assert.deepEqual(grids[2][4], ["51", "52", "53", "54", "55"]);
  assert.ok(!grids[0].flat().includes("Summer"));
});

test("copies of one grid side by side, rows and all, are not grids under a repeated header", () => {
  const tables = detectAlignedTables(pageGeometry({ runs: planner(true) }));
  assert.ok(tables.length <= 1, JSON.stringify(tables.map(grid)));
});

test("a header repeated over column groups beside row labels is one table", () => {
  const runs: TextRun[] = [];
  const groups = [200, 350];
  for (const x of groups)
    for (const [c, label] of ["Q1", "Q2", "Q3"].entries()) runs.push(run(label, x + c * 30, 118));
  for (const [r, label] of ["Revenue", "Costs", "Profit", "Staff"].entries()) {
    runs.push(run(label, 72, 136 + 14 * r));
    for (const x of groups)
      for (let c = 0; c < 3; c++) runs.push(run(String(10 + r * 3 + c), x + c * 30, 136 + 14 * r));
  }
  const tables = detectAlignedTables(pageGeometry({ runs }));
  assert.equal(tables.length, 1);
  assert.ok(grid(tables[0]).some((row) => row.includes("Revenue")));
});

test("public page: a year planner's month grids, a table each, month by month", {
  timeout: 300_000,
}, async () => {
  await assertPdfFacts("wallcalendar-year-planner.pdf", [
    { before: ["March", "April"] },
    { before: ["September", "October"] },
    { neighbours: ["W", "T"] },
    { neighbours: ["30", "31"] },
  ]);
});
