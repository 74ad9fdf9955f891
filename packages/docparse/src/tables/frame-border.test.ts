import assert from "node:assert/strict";
import { test } from "node:test";
import type { DetectedTable, Rule, TextRun } from "../paginated/geometry.ts";
import { hRule as h, pageGeometry, vRule as v } from "../paginated/test-geometry.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { run } from "./test-geometry.ts";

/** Whether some row of a table holds `left` with `right` in the next cell. */
function neighbours(tables: readonly DetectedTable[], left: string, right: string): boolean {
  return tables.some((t) =>
    t.cells.some((a) =>
      t.cells.some(
        (b) => a.text === left && b.text === right && b.row === a.row && b.col === a.col + a.colSpan,
      ),
    ),
  );
}

const describe = (tables: readonly DetectedTable[]) =>
  tables.map((t) => t.cells.map((c) => `${c.row},${c.col} ${c.text}`).join(" | ")).join("\n");

test("a drawing sheet's frame joined to its title block: the block's grid is the table", () => {
  // An A4 sheet framed at 20..575 × 15..830; the title block's grid fills its bottom right corner, the frame's
  // right and bottom sides closing it; a circle's label stands in the empty drawing field.
  const xs = [200, 260, 330, 400, 470, 575];
  const ys = [750, 766, 782, 798, 814, 830];
  const rules: Rule[] = [
    h(15, 20, 575),
    h(830, 20, 575),
    v(20, 15, 830),
    v(575, 15, 830),
    ...ys.slice(0, -1).map((y) => h(y, 200, 575)),
    ...xs.slice(0, -1).map((x) => v(x, 750, 830)),
  ];
  const cells = [
    ["Изм.", "Лист", "№ докум.", "Подп.", "Дата"],
    ["Разраб.", "Иванов", "", "", "01.02"],
    ["Пров.", "Петров", "", "", "03.04"],
    ["Н.контр.", "Сидоров", "", "", ""],
    ["Утв.", "Козлов", "", "", "05.06"],
  ];
  const runs: TextRun[] = [run("Ø56", 280, 400)];
  cells.forEach((row, r) => {
    row.forEach((text, c) => {
      if (text) runs.push(run(text, xs[c] + 3, ys[r] + 3, { fontSize: 8 }));
    });
  });
  const tables = detectRuledTables(pageGeometry({ width: 595, height: 842, runs, rules }));
  assert.ok(neighbours(tables, "Изм.", "Лист"), describe(tables));
  assert.ok(neighbours(tables, "Разраб.", "Иванов"), describe(tables));
  assert.ok(neighbours(tables, "Утв.", "Козлов"), describe(tables));
  // The drawing field is no cell of it.
  assert.ok(!tables.some((t) => t.cells.some((c) => c.text.includes("Ø56"))), describe(tables));
});

test("a page border around a paragraph and one box of text makes no table", () => {
  const rules: Rule[] = [
    h(30, 30, 582),
    h(762, 30, 582),
    v(30, 30, 762),
    v(582, 30, 762),
    h(600, 100, 300),
    h(700, 100, 300),
    v(100, 600, 700),
    v(300, 600, 700),
  ];
  const runs: TextRun[] = [
    run("A paragraph of text set inside the page border.", 60, 100),
    run("A note in its box.", 110, 640),
  ];
  assert.deepEqual(detectRuledTables(pageGeometry({ runs, rules })), []);
});

test("the Russian drawing form: its title block's cells side by side", async () => {
  const tables = await realWorldRuledTables("ru-drawing-form.pdf");
  assert.ok(neighbours(tables, "Масса", "Масштаб"), describe(tables));
  assert.ok(neighbours(tables, "Изм.", "Лист"), describe(tables));
  assert.ok(neighbours(tables, "Подп.", "Дата"), describe(tables));
});
