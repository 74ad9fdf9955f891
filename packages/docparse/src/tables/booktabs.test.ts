import assert from "node:assert/strict";
import { test } from "node:test";
import type { TextRun } from "../paginated/geometry.ts";
import { hRule as h } from "../paginated/test-geometry.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { cellAt, grid, ruledPage, run } from "./test-geometry.ts";

test("a booktabs table: three horizontal rules, columns from alignment, header above the middle rule", () => {
  const rules = [h(100, 100, 400, 1), h(118, 100, 400, 0.5), h(200, 100, 400, 1)];
  const rows = [
    ["Model", "Params", "Accuracy"],
    ["small", "12", "71.2"],
    ["base", "86", "78.9"],
    ["large", "304", "82.1"],
    ["huge", "632", "83.4"],
  ];
  const xs = [104, 220, 330];
  const ys = [104, 122, 140, 158, 176];
  const runs = rows.flatMap((row, r) => row.map((text, c) => run(text, xs[c], ys[r])));
  const tables = detectRuledTables(ruledPage(runs, rules));
  assert.equal(tables.length, 1);
  const [table] = tables;
  assert.equal(table.numRows, 5);
  assert.equal(table.numCols, 3);
  assert.deepEqual(grid(table), rows);
  assert.deepEqual(
    table.cells.filter((c) => c.columnHeader).map((c) => c.text),
    ["Model", "Params", "Accuracy"],
  );
});

test("a booktabs header over a partial rule spans the columns the rule covers", () => {
  // "Score" sits over a cmidrule covering columns 1 and 2.
  const rules = [h(100, 100, 400, 1), h(114, 200, 400, 0.4), h(130, 100, 400, 0.5), h(190, 100, 400, 1)];
  const runs = [
    run("Score", 285, 102),
    run("Name", 104, 110),
    run("dev", 220, 117),
    run("test", 330, 117),
    run("a", 104, 134),
    run("1.0", 220, 134),
    run("2.0", 330, 134),
    run("b", 104, 152),
    run("3.0", 220, 152),
    run("4.0", 330, 152),
    run("c", 104, 170),
    run("5.0", 220, 170),
    run("6.0", 330, 170),
  ];
  const [table] = detectRuledTables(ruledPage(runs, rules));
  assert.equal(table.numCols, 3);
  const score = table.cells.find((c) => c.text === "Score");
  assert.ok(score);
  assert.equal(score.colSpan, 2);
  assert.equal(score.col, 1);
  assert.equal(table.cells.find((c) => c.text === "Name")?.rowSpan, 2);
  assert.equal(cellAt(table, 2, 1).text, "1.0");
  assert.ok(table.cells.filter((c) => c.row < 2).every((c) => c.columnHeader));
  assert.ok(table.cells.filter((c) => c.row >= 2).every((c) => !c.columnHeader));
});

test("a header underlined column by column: the gaps between the underlines are the columns", () => {
  // A report's table: a top rule, each header cell underlined by its own rule a few points from the next, each
  // row ruled. Headers wrap on two lines; the numbers start half a point inside the underlines' gaps.
  const rows = [
    ["Spain", "2,673", "367", "20,860", "4.8"],
    ["Germany", "12", "75", "428", "0"],
    ["Mexico", "238", "54", "1,978", "0"],
    ["Poland", "335", "19", "1,523", "0"],
  ];
  const starts = [100, 199.5, 299.5, 399.5, 519.5];
  const ends = [196, 296, 396, 516, 600];
  const rules = [
    h(100, 100, 600, 1),
    ...starts.map((x, c) => h(130, c === 0 ? x : x + 0.5, ends[c], 0.8)),
    ...[150, 170, 190, 210].map((y) => h(y, 100, 600)),
  ];
  const header = [
    run("Tax jurisdiction", 103, 104),
    run("Total sales", 203, 104),
    run("(M€)", 203, 116),
    run("EBT (M€)", 303, 104),
    run("Employees at the", 403, 104),
    run("close of 2020", 403, 116),
    run("Grants (M€)", 523, 104),
  ];
  const body = rows.flatMap((row, r) => row.map((text, c) => run(text, starts[c], 134 + 20 * r)));
  const [table] = detectRuledTables(ruledPage([...header, ...body], rules));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["Tax jurisdiction", "Total sales (M€)", "EBT (M€)", "Employees at the close of 2020", "Grants (M€)"],
    ...rows,
  ]);
});

test("Acciona's tax table: two-line header cells, each underlined, stay one cell per column", async () => {
  const tables = await realWorldRuledTables("acciona-tax-table.pdf");
  const rows = tables.flatMap((t) => grid(t));
  const header = rows.find((row) => row[0] === "Tax jurisdiction");
  assert.ok(header, rows.map((r) => r.join(" | ")).join("\n"));
  assert.deepEqual(header.slice(3, 6), [
    "Corporate Income Tax accrued (M€)",
    "Corporate Income Tax paid on a cash basis (M€)",
    "Employees at the close of 2020",
  ]);
  assert.ok(rows.some((row) => row.join("|") === "Mexico|238|54|19|7.1|1,978|0|5.8|9"));
});

test("header cells set close together split over columns centred under each of them", () => {
  // Four headers half an em apart, each over a centred column of figures (a poster's kable table): the body's
  // columns touch no edge of the header gaps, but each header word has its own column under its middle.
  const rules = [h(100, 100, 430, 1), h(118, 100, 430, 0.5), h(200, 100, 430, 1)];
  const heads = ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"];
  const xs = heads.map((_, c) => 104 + c * 64.7);
  const runs = [...heads.map((text, c) => run(text, xs[c], 104)), run("Species", 380, 104)];
  const body = [
    ["5.1", "3.5", "1.4", "0.2"],
    ["4.9", "3.0", "1.4", "0.2"],
    ["4.7", "3.2", "1.3", "0.2"],
    ["4.6", "3.1", "1.5", "0.2"],
  ];
  body.forEach((row, r) => {
    const y = 122 + 18 * r;
    runs.push(...row.map((text, c) => run(text, xs[c] + 22.5, y)), run("setosa", 380, y));
  });
  const [table] = detectRuledTables(ruledPage(runs, rules));
  assert.ok(table);
  assert.deepEqual(grid(table), [[...heads, "Species"], ...body.map((row) => [...row, "setosa"])]);
});

test("a poster's table of four close header cells over centred figures reads as five columns", async () => {
  const tables = await realWorldRuledTables("posterdown-poster.pdf");
  const table = tables.find((t) => t.cells.some((c) => c.text === "Sepal.Length"));
  assert.ok(table);
  assert.equal(table.numCols, 5);
  assert.deepEqual(grid(table)[0], ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width", "Species"]);
});

test("entries set apart by rules (a title, a subtitle, a date beside a place, items) are no table", () => {
  const runs: TextRun[] = [];
  const rules = [h(100, 100, 400, 1)];
  for (const [k, top] of [100, 200].entries()) {
    runs.push(
      run(`Job Title ${k + 1}`, 104, top + 4, { fontSize: 12, bold: true }),
      run(`Company ${k + 1}`, 104, top + 22),
      run("Date: May 2020 – Ongoing", 104, top + 38),
      run("Location: Berlin", 250, top + 38),
      run("• Job description 1", 104, top + 54),
      run("• Job description 2", 104, top + 70),
    );
    rules.push(h(top + 95, 100, 400, 0.5));
  }
  assert.deepEqual(detectRuledTables(ruledPage(runs, rules)), []);
});

test("a CV's experience entries between section and entry rules are no table", async () => {
  const tables = await realWorldRuledTables("altacv-sample-p1.pdf");
  assert.ok(!tables.some((t) => t.cells.some((c) => /Location/.test(c.text))));
});
