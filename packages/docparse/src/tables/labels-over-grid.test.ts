import assert from "node:assert/strict";
import { test } from "node:test";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { fullGrid, grid, ruledPage, run } from "./test-geometry.ts";

/**
 * Labels over a ruled grid's top rule, one over each column (a timetable's day names over its boxes), are the
 * grid's header row; a sentence or a numbered line over a grid stays out of it.
 */

const XS = [100, 200, 300, 400, 500];
const YS = [120, 150, 180, 210];

/** A four-column timetable grid with `above` set just over its top rule. */
function timetable(above: ReturnType<typeof run>[]) {
  const cells = [
    run("Logic", 105, 125),
    run("Ethics", 305, 125),
    run("Seminar", 205, 155),
    run("Lab", 405, 155),
    run("Logic", 105, 185),
    run("Ethics", 305, 185),
  ];
  return ruledPage([...above, ...cells], fullGrid(XS, YS));
}

test("day names over a grid's top rule become its header row", () => {
  const page = timetable([
    run("Monday", 120, 104),
    run("Tuesday", 220, 104),
    run("Wednesday", 320, 104),
    run("Thursday", 420, 104),
  ]);
  const [table, ...more] = detectRuledTables(page);
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["Monday", "Tuesday", "Wednesday", "Thursday"],
    ["Logic", "", "Ethics", ""],
    ["", "Seminar", "", "Lab"],
    ["Logic", "", "Ethics", ""],
  ]);
  assert.deepEqual(
    table.cells.filter((c) => c.columnHeader).map((c) => c.text),
    ["Monday", "Tuesday", "Wednesday", "Thursday"],
  );
});

test("a sentence, a line of numbers or a line running past the grid over its top rule heads nothing", () => {
  const first = (above: ReturnType<typeof run>[]) => grid(detectRuledTables(timetable(above))[0])[0];
  const body = ["Logic", "", "Ethics", ""];
  assert.deepEqual(first([run("The weekly timetable of the autumn term for all", 102, 104)]), body);
  assert.deepEqual(
    first([run("2021", 120, 104), run("2022", 220, 104), run("2023", 320, 104), run("2024", 420, 104)]),
    body,
  );
  assert.deepEqual(
    first([
      run("Week", 40, 104),
      run("Monday", 120, 104),
      run("Tuesday", 220, 104),
      run("Wednesday", 320, 104),
    ]),
    body,
  );
});

test("public page: a weekly chart's day names head its boxed cells", async () => {
  const [chart] = await realWorldRuledTables("schedule-timetable-p2.pdf");
  assert.deepEqual(grid(chart)[0], ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]);
});
