import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { Box } from "../model.ts";
import type { DetectedTable, Rule, TextRun } from "../paginated/geometry.ts";
import { hRule as h, pageGeometry, vRule as v } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { grid, run } from "./test-geometry.ts";

const page = (runs: TextRun[], rules: Rule[], rects: Box[] = []) => pageGeometry({ runs, rules, rects });

function cellAt(table: DetectedTable, row: number, col: number) {
  const cell = table.cells.find((c) => c.row === row && c.col === col);
  assert.ok(cell, `no cell at ${row},${col}`);
  return cell;
}

/** A grid with columns at `xs` and rows at `ys`, every line drawn in full. */
function fullGrid(xs: number[], ys: number[]): Rule[] {
  return [...ys.map((y) => h(y, xs[0], xs[xs.length - 1])), ...xs.map((x) => v(x, ys[0], ys[ys.length - 1]))];
}

test("a full grid gives its rows and columns, with the bold first row as header", () => {
  const xs = [100, 200, 300, 400];
  const ys = [100, 120, 140, 160, 180];
  const data = [
    ["Name", "Count", "Share"],
    ["alpha", "12", "0.5"],
    ["beta", "7", "0.3"],
    ["gamma", "5", "0.2"],
  ];
  const runs = data.flatMap((row, r) =>
    row.map((text, c) => run(text, xs[c] + 4, ys[r] + 4, { bold: r === 0 })),
  );
  const tables = detectRuledTables(page(runs, fullGrid(xs, ys)));
  assert.equal(tables.length, 1);
  const [table] = tables;
  assert.equal(table.method, "ruled");
  assert.equal(table.numRows, 4);
  assert.equal(table.numCols, 3);
  assert.deepEqual(grid(table), data);
  assert.deepEqual(
    table.cells.filter((c) => c.columnHeader).map((c) => c.text),
    ["Name", "Count", "Share"],
  );
  assert.deepEqual(table.box, { x1: 100, y1: 100, x2: 400, y2: 180 });
  assert.deepEqual(cellAt(table, 1, 2).box, { x1: 300, y1: 120, x2: 400, y2: 140 });
});

test("a header cell over two columns spans them where the inner rule is missing", () => {
  // Columns 100|200|300|400, rows 100|120|140|160. "Scores" spans columns 1-2 in row 0 (no rule at x=300 there);
  // "Name" spans rows 0-1 in column 0 (no rule at y=120 there).
  const rules = [
    h(100, 100, 400),
    h(120, 200, 400),
    h(140, 100, 400),
    h(160, 100, 400),
    v(100, 100, 160),
    v(200, 100, 160),
    v(300, 120, 160),
    v(400, 100, 160),
  ];
  const runs = [
    run("Name", 104, 114),
    run("Scores", 285, 104),
    run("Math", 204, 124),
    run("Art", 304, 124),
    run("ann", 104, 144),
    run("90", 204, 144),
    run("85", 304, 144),
  ];
  const [table] = detectRuledTables(page(runs, rules));
  assert.equal(table.numRows, 3);
  assert.equal(table.numCols, 3);
  assert.deepEqual(
    { text: cellAt(table, 0, 0).text, rowSpan: cellAt(table, 0, 0).rowSpan },
    { text: "Name", rowSpan: 2 },
  );
  assert.deepEqual(
    { text: cellAt(table, 0, 1).text, colSpan: cellAt(table, 0, 1).colSpan },
    { text: "Scores", colSpan: 2 },
  );
  assert.equal(cellAt(table, 1, 1).text, "Math");
  assert.equal(cellAt(table, 2, 2).text, "85");
  assert.equal(table.cells.length, 7);
  // Two header rows: closed by the first rule across the whole table, with a partial rule between them.
  assert.deepEqual(
    table.cells.filter((c) => c.columnHeader).map((c) => c.text),
    ["Name", "Scores", "Math", "Art"],
  );
});

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
  const tables = detectRuledTables(page(runs, rules));
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
  const [table] = detectRuledTables(page(runs, rules));
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
  const [table] = detectRuledTables(page([...header, ...body], rules));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["Tax jurisdiction", "Total sales (M€)", "EBT (M€)", "Employees at the close of 2020", "Grants (M€)"],
    ...rows,
  ]);
});

test("columns ruled in the header only go on through the body where its text leaves them free", () => {
  // A boxed table whose inner rules at x=200 and x=300 divide the header row only; the body keeps its columns.
  const rules = [
    h(100, 100, 400),
    h(120, 100, 400),
    h(200, 100, 400),
    v(100, 100, 200),
    v(400, 100, 200),
    v(200, 100, 120),
    v(300, 100, 120),
  ];
  const rows = [
    ["Region", "2013", "2014"],
    ["north", "2.6", "3.2"],
    ["south", "0.7", "1.3"],
    ["east", "2.5", "3.4"],
  ];
  const runs = rows.flatMap((row, r) =>
    row.map((text, c) => run(text, 104 + 100 * c, 104 + (r === 0 ? 0 : 6 + 18 * r))),
  );
  // A text crossing the boundary at x=200 spans the columns it crosses.
  runs.push(run("Subtotal for all regions", 104, 184));
  const [table] = detectRuledTables(page(runs, rules));
  assert.equal(table.numCols, 3);
  assert.deepEqual(grid(table).slice(0, 4), rows);
  const subtotal = table.cells.find((c) => c.text === "Subtotal for all regions");
  assert.ok(subtotal);
  assert.ok(subtotal.colSpan >= 2);
});

test("header cells closer than a column gap stay apart where the body's columns run through them", () => {
  // "First share" ends at x=215 and "Second share" starts at x=221: 0.6 em apart, less than a column gap, but
  // every body line leaves a wide river there.
  const rules = [h(100, 100, 300, 1), h(118, 100, 300, 0.5), h(200, 100, 300, 1)];
  const rows = [
    ["Region", "First share", "Second share"],
    ["north", "12", "34"],
    ["south", "56", "78"],
    ["east", "90", "11"],
    ["west", "23", "45"],
  ];
  const runs = rows.flatMap((row, r) => {
    const y = r === 0 ? 104 : 104 + 18 * r;
    // Numbers right-aligned under their header.
    return r === 0
      ? [run(row[0], 104, y), run(row[1], 160, y), run(row[2], 221, y)]
      : [run(row[0], 104, y), run(row[1], 205, y), run(row[2], 271, y)];
  });
  const [table] = detectRuledTables(page(runs, rules));
  assert.deepEqual(grid(table), rows);
});

test("a right-to-left table's label alone on a line is a row of its own, not the row above continued", () => {
  const rules = [h(100, 100, 400, 1), h(118, 100, 400, 0.5), h(200, 100, 400, 1)];
  const rtl = { dir: "rtl" as const };
  const runs = [
    run("2014", 104, 104),
    run("2013", 164, 104),
    run("שנה", 330, 104, rtl),
    run("2.6", 104, 122),
    run("3.2", 164, 122),
    run("סך הכל", 330, 122, rtl),
    run("צריכה", 330, 136, rtl),
    run("3.8", 104, 150),
    run("3.5", 164, 150),
    run("אזרחית", 330, 150, rtl),
    run("1.1", 104, 164),
    run("1.2", 164, 164),
    run("ביטחונית", 330, 164, rtl),
  ];
  const [table] = detectRuledTables(page(runs, rules));
  assert.deepEqual(grid(table), [
    ["2014", "2013", "שנה"],
    ["2.6", "3.2", "סך הכל"],
    ["", "", "צריכה"],
    ["3.8", "3.5", "אזרחית"],
    ["1.1", "1.2", "ביטחונית"],
  ]);
});

test("columns most lines keep open stand through a title and a header line whose words close them", () => {
  // A boxed table with a header rule. The header's words (55 pt) leave only 6 pt between columns 61 pt apart;
  // the body's numbers (20 pt) leave 40 pt rivers. The title runs across three columns.
  const rules = [h(100, 100, 500), h(150, 100, 500), h(270, 100, 500), v(100, 100, 270), v(500, 100, 270)];
  const centers = [230, 291, 352, 413];
  const header = ["sterilizing", "injectables", "medications", "counselling"];
  const runs = [
    run("Table 9 Use of services by region and kind", 104, 104),
    run("Region", 104, 126),
    ...header.map((text, c) => run(text, centers[c] - 27.5, 126)),
  ];
  const regions = ["north", "south", "east", "west", "centre", "islands"];
  regions.forEach((name, r) => {
    runs.push(run(name, 104, 154 + 18 * r));
    centers.forEach((x, c) => {
      runs.push(run(`${r + 1}.${c}0`.slice(0, 4), x - 10, 154 + 18 * r));
    });
  });
  const [table] = detectRuledTables(page(runs, rules));
  assert.equal(table.numCols, 5);
  const rows = grid(table);
  assert.deepEqual(rows[0].slice(0, 1), ["Table 9 Use of services by region and kind"]);
  assert.ok((table.cells.find((c) => c.text.startsWith("Table 9"))?.colSpan ?? 0) >= 3);
  assert.deepEqual(rows[1], ["Region", ...header]);
  assert.deepEqual(rows[2], ["north", "1.00", "1.10", "1.20", "1.30"]);
  assert.deepEqual(rows[7], ["islands", "6.00", "6.10", "6.20", "6.30"]);
});

test("a ruled box around a paragraph is not a table", () => {
  const runs = [
    run("This is a note set in a box, as documents often do", 110, 110),
    run("to make a point stand out from the text around it.", 110, 124),
    run("It runs over three lines of ordinary prose here.", 110, 138),
  ];
  const rules = [h(100, 100, 400), h(160, 100, 400), v(100, 100, 160), v(400, 100, 160)];
  assert.deepEqual(detectRuledTables(page(runs, rules)), []);
  // The same box drawn as a filled rectangle.
  assert.deepEqual(detectRuledTables(page(runs, [], [{ x1: 100, y1: 100, x2: 400, y2: 160 }])), []);
});

test("rules above and below prose, a chart's empty grid, and stacked boxes of a diagram are no tables", () => {
  const prose = Array.from({ length: 8 }, (_, k) =>
    run("Ordinary running text fills the whole width of the column here.", 100, 110 + 14 * k),
  );
  assert.deepEqual(detectRuledTables(page(prose, [h(100, 100, 420), h(230, 100, 420)])), []);
  const chart = fullGrid([100, 150, 200, 250, 300], [300, 330, 360, 390]);
  assert.deepEqual(detectRuledTables(page([run("Revenue", 170, 280)], chart)), []);
  // Boxes stacked in a frame, each holding one text (a flow of steps): no row has two cells.
  const boxes = [h(400, 100, 300), h(430, 100, 300), h(460, 100, 300), v(100, 400, 460), v(300, 400, 460)];
  const steps = [run("Load the document", 120, 408), run("Detect the tables", 120, 438)];
  assert.deepEqual(detectRuledTables(page(steps, boxes)), []);
});

test("dashed rules join into lines, and empty outer rows and columns are dropped", () => {
  const dashed = (y: number) => Array.from({ length: 10 }, (_, k) => h(y, 100 + 40 * k, 100 + 40 * k + 38));
  const rules = [
    ...dashed(100),
    ...dashed(120),
    ...dashed(140),
    ...dashed(160),
    v(100, 100, 160),
    v(200, 100, 160),
    v(300, 100, 160),
    v(400, 100, 160),
    v(498, 100, 160),
  ];
  const runs = [run("k", 104, 124), run("v", 204, 124), run("w", 304, 124)];
  runs.push(run("a", 104, 144), run("1", 204, 144), run("2", 304, 144));
  const [table] = detectRuledTables(page(runs, rules));
  assert.equal(table.numRows, 2);
  assert.equal(table.numCols, 3);
  assert.deepEqual(grid(table), [
    ["k", "v", "w"],
    ["a", "1", "2"],
  ]);
});

test("a run crossing a column rule is split between the two cells", () => {
  const xs = [100, 160, 220];
  const ys = [100, 120, 140, 160];
  const runs = [
    run("x", 104, 104),
    run("y", 164, 104),
    run("0.965 0.969", 130, 124),
    run("a", 104, 144),
    run("b", 164, 144),
  ];
  const [table] = detectRuledTables(page(runs, fullGrid(xs, ys)));
  assert.deepEqual(grid(table), [
    ["x", "y"],
    ["0.965", "0.969"],
    ["a", "b"],
  ]);
});

test("a header row of shaded cells is part of the table", () => {
  // The header is three filled rectangles above the ruled body, with no rule of its own.
  const rects = [
    { x1: 100, y1: 80, x2: 200, y2: 100 },
    { x1: 200, y1: 80, x2: 300, y2: 100 },
    { x1: 300, y1: 80, x2: 400, y2: 100 },
  ];
  const rules = [h(120, 100, 400), h(140, 100, 400), v(200, 100, 140), v(300, 100, 140)];
  const runs = [
    ...["Key", "Old", "New"].map((t, c) => run(t, 104 + 100 * c, 84)),
    ...["a", "1", "2"].map((t, c) => run(t, 104 + 100 * c, 104)),
    ...["b", "3", "4"].map((t, c) => run(t, 104 + 100 * c, 124)),
  ];
  const [table] = detectRuledTables(page(runs, rules, rects));
  assert.equal(table.numRows, 3);
  assert.deepEqual(grid(table)[0], ["Key", "Old", "New"]);
});

test("cells painted as padding strips beside a content fill have their columns at the strips' seam", () => {
  // Each cell of a word processor's shaded table: a 5 pt strip, the content area, a 5 pt strip, all touching.
  const xs = [100, 200, 300, 400];
  const ys = [100, 120, 140, 160];
  const rects = ys.slice(0, -1).flatMap((y1, r) =>
    xs.slice(0, -1).flatMap((x1, c) => {
      const x2 = xs[c + 1];
      const y2 = ys[r + 1];
      return [
        { x1, y1, x2: x1 + 5, y2 },
        { x1: x1 + 5, y1, x2: x2 - 5, y2 },
        { x1: x2 - 5, y1, x2, y2 },
      ];
    }),
  );
  const rows = [
    ["Key", "Old", "New"],
    ["a", "1", "2"],
    ["b", "3", "4"],
  ];
  const runs = rows.flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 10, ys[r] + 4)));
  const [table] = detectRuledTables(page(runs, [], rects));
  assert.equal(table.numCols, 3);
  assert.deepEqual(grid(table), rows);
  assert.deepEqual(cellAt(table, 1, 1).box, { x1: 200, y1: 120, x2: 300, y2: 140 });
});

/** Stroked rules at every row of a table 100..400 wide, with its two sides; columns only from the fills. */
function rowRules(ys: number[]): Rule[] {
  return [
    ...ys.map((y) => h(y, 100, 400, 1)),
    v(100, ys[0], ys[ys.length - 1], 1),
    v(400, ys[0], ys[ys.length - 1], 1),
  ];
}

test("a shaded cell painted as its lines' fill over a deeper padding fill is one cell, not a row over an empty row", () => {
  // Striped rows between stroked rules: each shaded cell is a strip, the content, a strip, then the padding under
  // them in a fill of its own, thicker than a padding strip in the first column (its label sits higher).
  const xs = [100, 200, 300, 400];
  const ys = [100, 122, 144, 166, 188];
  const rects = [1, 3].flatMap((r) =>
    xs.slice(0, -1).flatMap((x1, c) => {
      const [x2, y1, y2] = [xs[c + 1], ys[r] + 0.5, ys[r + 1] - 0.5];
      const seam = c === 0 ? y1 + 11 : y1 + 14;
      return [
        { x1, y1, x2: x1 + 5, y2: seam },
        { x1: x1 + 5, y1, x2: x2 - 5, y2: seam },
        { x1: x2 - 5, y1, x2, y2: seam },
        { x1, y1: seam, x2, y2 },
      ];
    }),
  );
  const rows = [
    ["State", "Revenue", "Capital"],
    ["Assam", "14,874", "161"],
    ["Bihar", "21,016", "5,329"],
    ["Goa", "4,055", "330"],
  ];
  const runs = rows.flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 8, ys[r] + 2)));
  const [table] = detectRuledTables(page(runs, rowRules(ys), rects));
  assert.ok(table);
  assert.deepEqual(grid(table), rows);
});

test("a header cell's fill in pieces a few points inside its strips makes no empty column", () => {
  // The last header cell wraps on two lines: its side strips run its whole height, its content fill is one piece
  // per line, so the strips' and the pieces' edges stand 5 pt apart on each side.
  const xs = [100, 200, 300, 400];
  const ys = [100, 130, 150, 170, 190];
  const rects = [
    { x1: 100, y1: 100.5, x2: 200, y2: 129.5 },
    { x1: 200, y1: 100.5, x2: 300, y2: 129.5 },
    { x1: 300, y1: 100.5, x2: 305, y2: 125 },
    { x1: 305, y1: 100.5, x2: 395, y2: 112.5 },
    { x1: 305, y1: 112.5, x2: 395, y2: 125 },
    { x1: 395, y1: 100.5, x2: 400, y2: 125 },
    { x1: 300, y1: 125, x2: 400, y2: 129.5 },
    ...[1, 3].flatMap((r) =>
      xs.slice(0, -1).map((x1, c) => ({ x1, y1: ys[r] + 0.5, x2: xs[c + 1], y2: ys[r + 1] - 0.5 })),
    ),
  ];
  const runs = [
    run("State", 108, 104),
    run("Revenue", 208, 104),
    run("Total", 308, 102),
    run("Capital", 308, 114),
    ...[
      ["Assam", "14,874", "161"],
      ["Bihar", "21,016", "5,329"],
      ["Goa", "4,055", "330"],
    ].flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 8, ys[r + 1] + 4))),
  ];
  const [table] = detectRuledTables(page(runs, rowRules(ys), rects));
  assert.ok(table);
  assert.equal(table.numCols, 3);
  const rows = grid(table);
  assert.deepEqual(rows[0], ["State", "Revenue", "Total"]);
  assert.match(rows.map((row) => row[2]).join(" "), /^Total Capital 161 5,329 330$/);
  assert.deepEqual(rows.at(-2), ["Bihar", "21,016", "5,329"]);
});

test("a header band of labels wrapped on several lines is one header row", () => {
  // Ruled rows under a header band whose labels wrap on up to three lines; the label column's name is one line.
  const xs = [100, 200, 300, 400];
  const ys = [100, 140, 160, 180, 200];
  const runs = [
    run("State", 104, 102),
    run("Halt", 204, 102),
    run("stations", 204, 114),
    run("Persons", 304, 102),
    run("directly", 304, 114),
    run("reached", 304, 126),
    ...[
      ["Delhi", "8", "1.29"],
      ["Gujarat", "6", "6.03"],
      ["Kerala", "9", "1.42"],
    ].flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 4, ys[r + 1] + 4))),
  ];
  const [table] = detectRuledTables(page(runs, fullGrid(xs, ys)));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["State", "Halt stations", "Persons directly reached"],
    ["Delhi", "8", "1.29"],
    ["Gujarat", "6", "6.03"],
    ["Kerala", "9", "1.42"],
  ]);
});

test("a large grid beside a drawing of thousands of short strokes", () => {
  const xs = Array.from({ length: 11 }, (_, k) => 40 + 50 * k);
  const ys = Array.from({ length: 61 }, (_, k) => 40 + 12 * k);
  const runs: TextRun[] = [];
  for (let r = 0; r < 60; r++)
    for (let c = 0; c < 10; c++) runs.push(run(`${r * c}`, xs[c] + 3, ys[r] + 1, { fontSize: 8 }));
  const rules = fullGrid(xs, ys);
  for (let k = 0; k < 2000; k++) rules.push(h(780 - (k % 5), 10 + (k % 500), 11 + (k % 500)));
  const tables = detectRuledTables(page(runs, rules));
  assert.equal(tables.length, 1);
  assert.equal(tables[0].numRows, 60);
  assert.equal(tables[0].numCols, 10);
  assert.equal(cellAt(tables[0], 59, 9).text, "531");
});

/** A PDF of Docling's test data in the shared corpus; only called by tests that skip without it. */
const pdf = (name: string) =>
  new Uint8Array(readFileSync(corpusPath("docling/tests/data/pdf/sources", name)));

async function pageTables(name: string, pageNumber: number): Promise<DetectedTable[]> {
  const doc = await openPdf(pdf(name));
  try {
    return detectRuledTables(await extractPdfPage(doc, pageNumber));
  } finally {
    await doc.destroy();
  }
}

test("2305.03393v1-pg9: the grid with a two-row header and TEDs over three columns", {
  skip: NO_CORPUS,
}, async () => {
  const [table, ...rest] = await pageTables("2305.03393v1-pg9.pdf", 1);
  assert.equal(rest.length, 0);
  // Reference (groundtruth JSON): 6 rows × 8 columns, TEDs spanning columns 3-5, the first two rows headers.
  assert.equal(table.numRows, 6);
  assert.equal(table.numCols, 8);
  const teds = cellAt(table, 0, 3);
  assert.deepEqual([teds.text, teds.colSpan, teds.rowSpan], ["TEDs", 3, 1]);
  assert.deepEqual([cellAt(table, 0, 0).text, cellAt(table, 0, 0).rowSpan], ["# enc-layers", 2]);
  assert.deepEqual(
    [cellAt(table, 1, 3).text, cellAt(table, 1, 4).text, cellAt(table, 1, 5).text],
    ["simple", "complex", "all"],
  );
  assert.equal(cellAt(table, 0, 7).text, "Inference time (secs)");
  assert.deepEqual(grid(table)[2], [
    "6",
    "6",
    "OTSL HTML",
    "0.965 0.969",
    "0.934 0.927",
    "0.955 0.955",
    "0.88 0.857",
    "2.73 5.39",
  ]);
  assert.deepEqual(grid(table)[5], [
    "4",
    "2",
    "OTSL HTML",
    "0.952 0.944",
    "0.92 0.903",
    "0.942 0.931",
    "0.857 0.824",
    "1.22 2",
  ]);
  assert.ok(table.cells.filter((c) => c.row < 2).every((c) => c.columnHeader));
  assert.ok(table.cells.filter((c) => c.row >= 2).every((c) => !c.columnHeader));
});

test("redp5110_sampled: the ruled tables of pages 8, 9, 11 and 12", { skip: NO_CORPUS }, async () => {
  const doc = await openPdf(pdf("redp5110_sampled.pdf"));
  try {
    const tables = async (n: number) => detectRuledTables(await extractPdfPage(doc, n));
    // Page 8: Table 2-1 (5 × 3, a header rule drawn stronger) and Example 2-1, a listing between two rules.
    const [functionUsage, example] = await tables(8);
    assert.deepEqual([functionUsage.numRows, functionUsage.numCols], [5, 3]);
    assert.deepEqual(grid(functionUsage)[0], ["Column name", "Data type", "Description"]);
    assert.deepEqual(grid(functionUsage)[2], [
      "USER_NAME",
      "VARCHAR(10)",
      "Name of the user profile that has a usage setting for this function.",
    ]);
    assert.ok(cellAt(functionUsage, 0, 0).columnHeader && !cellAt(functionUsage, 1, 0).columnHeader);
    assert.equal(example.numCols, 2);
    assert.equal(cellAt(example, 0, 0).text, "SELECT");
    // Page 9: Table 2-2, 13 × 6 with rotated column headers and sparse X marks.
    const [authorities] = await tables(9);
    assert.deepEqual([authorities.numRows, authorities.numCols], [13, 6]);
    assert.deepEqual(grid(authorities)[0], [
      "User action",
      "*JOBCTL",
      "QIBM_DB_SECADM",
      "QIBM_DB_SQLADM",
      "QIBM_DB_SYSMON",
      "No Authority",
    ]);
    assert.deepEqual(grid(authorities)[4], [
      "STRDBMON or ENDDBMON commands targeting a job that matches the current user",
      "X",
      "",
      "X",
      "X",
      "X",
    ]);
    // Page 11: Table 3-1, 4 × 2, and no table from the figure of stacked boxes below it.
    const page11 = await tables(11);
    assert.equal(page11.length, 1);
    assert.deepEqual([page11[0].numRows, page11[0].numCols], [4, 2]);
    assert.equal(cellAt(page11[0], 1, 0).text, "USER or SESSION_USER");
    // Page 12: Table 3-2, 10 × 3.
    const [variables] = await tables(12);
    assert.deepEqual([variables.numRows, variables.numCols], [10, 3]);
    assert.deepEqual(grid(variables)[9], [
      "ROUTINE_TYPE",
      "CHAR(1)",
      "Type of the currently running routine",
    ]);
    // Pages without tables stay without.
    for (const n of [1, 2, 3, 14, 18]) assert.deepEqual(await tables(n), [], `page ${n}`);
  } finally {
    await doc.destroy();
  }
});

test("normal_4pages: a table whose header row is shaded cells", { skip: NO_CORPUS }, async () => {
  const [table] = await pageTables("normal_4pages.pdf", 2);
  // Reference: 5 × 3, header 구분 | 개정전 | 개정후.
  assert.deepEqual([table.numRows, table.numCols], [5, 3]);
  assert.deepEqual(grid(table)[0], ["구분", "개정전", "개정후"]);
  assert.equal(cellAt(table, 1, 0).text, "분류");
});

test("right_to_left_03: two ruled tables of right-to-left text, read right to left", {
  skip: NO_CORPUS,
}, async () => {
  const [standard, listing] = await pageTables("right_to_left_03.pdf", 1);
  // Label cells are shaded, with a highlight per text line inside: neither adds rows or columns.
  assert.deepEqual([standard.numRows, standard.numCols], [5, 2]);
  assert.deepEqual([listing.numRows, listing.numCols], [8, 2]);
  assert.equal(cellAt(standard, 1, 1).text, "شماره استاندارد ملی");
  assert.equal(cellAt(standard, 1, 0).text, "20300");
  assert.equal(cellAt(listing, 2, 1).text, "شماره جلسه کميته عرضه");
  assert.equal(cellAt(listing, 6, 0).text, "حداقل %50 از توليد ساليانه يا 47.500 تن");
  assert.ok(standard.cells.every((c) => !c.columnHeader));
});

test("amt_handbook_sample: two columns of prose and boxed figures hold no table", {
  skip: NO_CORPUS,
}, async () => {
  assert.deepEqual(await pageTables("amt_handbook_sample.pdf", 1), []);
});

test("a table ruled around groups only: a heading line, then one row per line, a boxed chart beside left whole", () => {
  // Columns 100|200|260|320|380 ruled at the frame and at 380, where a chart box (380-480) stands beside the
  // table; rules close the header and each group (116, 170) over the table's columns only, the frame (100, 210)
  // over both. Each group: its name on the first line, then rows of a label and three figures.
  const groups = [
    {
      y: 116,
      name: "Ethanol",
      rows: [
        ["Iowa", "1.35", "1.38", "1.27"],
        ["Minnesota", "1.38", "1.40", "1.28"],
        ["Nebraska", "1.38", "1.36", "1.27"],
      ],
    },
    {
      y: 170,
      name: "Biomass",
      rows: [
        ["Straw", "55.71", "54.29", "58.33"],
        ["Grass", "61.46", "59.17", "63.75"],
      ],
    },
  ];
  const runs: TextRun[] = [
    run("State", 104, 103),
    run("Now", 204, 103),
    run("Week", 264, 103),
    run("Year", 324, 103),
  ];
  for (const g of groups) {
    runs.push(run(g.name, 102, g.y + 2));
    g.rows.forEach((row, k) => {
      row.forEach((text, c) => {
        runs.push(run(text, [108, 204, 264, 324][c], g.y + 14 + 12 * k));
      });
    });
  }
  // The chart's title and axis labels, on lines of their own between the table's.
  runs.push(run("Price", 400, 103));
  for (let k = 0; k < 6; k++) runs.push(run(`${(2.6 - 0.2 * k).toFixed(2)}`, 385, 121 + 11 * k));
  const rules = [
    h(100, 100, 480),
    h(116, 100, 380),
    h(170, 100, 380),
    h(210, 100, 480),
    v(100, 100, 210),
    v(380, 100, 210),
    v(480, 100, 210),
  ];
  const tables = detectRuledTables(page(runs, rules));
  assert.equal(tables.length, 1);
  const rows = grid(tables[0]).map((row) => row.slice(0, 4).join(" | "));
  for (const g of groups) {
    assert.ok(rows.includes(`${g.name} |  |  | `), `heading row ${g.name}: ${rows.join("\n")}`);
    for (const row of g.rows) assert.ok(rows.includes(row.join(" | ")), `row ${row[0]}: ${rows.join("\n")}`);
  }
  // The chart stays one cell: its labels are not spread over the table's rows.
  const chart = tables[0].cells.filter((c) => /2\.60/.test(c.text));
  assert.equal(chart.length, 1);
  assert.match(chart[0].text, /2\.60.*1\.60/s);
});

test("the USDA fact sheet's table: each line of a group a row, the charts beside it left whole", async () => {
  const tables = await realWorldRuledTables("usda-ag-energy-round-up.pdf");
  const rows = tables.flatMap((t) => grid(t));
  const has = (cells: string[]) =>
    rows.some((row) => row.slice(0, cells.length).join(" | ") === cells.join(" | "));
  assert.ok(
    has(["Minnesota", "1.38 - 1.48", "1.40 - 1.49", "1.28 - 1.35"]),
    rows.map((r) => r.join(" | ")).join("\n"),
  );
  assert.ok(has(["Cornstalks", "41.25", "39.38", "52.00"]));
  assert.ok(has(["NYMEX Crude Oil ($/barrel)", "54.45", "53.36", "30.77"]));
  const axis = tables.flatMap((t) => t.cells).filter((c) => /\b2\.60\b/.test(c.text));
  assert.equal(axis.length, 1, "the Iowa Ethanol chart is one cell");
  assert.match(axis[0].text, /Iowa Ethanol.*0\.80/s);
});

test("two ruled cells of paragraphs side by side under a header row are not cut into rows across the paragraphs", () => {
  // Header 100..120, body 120..300; columns 100|300|500; both columns on one 12 pt line grid, a blank line
  // between paragraphs. Left: three paragraphs of three lines (grid lines 0-2, 4-6, 8-10); right: two of four
  // lines and one of two (0-3, 5-8, 10-11), their breaks falling inside the left's paragraphs.
  const para = (x: number, y: number, lines: string[]) => lines.map((text, k) => run(text, x, y + 12 * k));
  const left = [
    ...para(104, 124, [
      "Do read the whole of the request",
      "before you write a word about it",
      "and keep its terms in mind.",
    ]),
    ...para(104, 172, [
      "Do note every point where it is",
      "unclear and ask the officer in",
      "charge of the contract.",
    ]),
    ...para(104, 220, [
      "Do write in plain words that the",
      "reader follows without a guide",
      "to the jargon.",
    ]),
  ];
  const right = [
    ...para(304, 124, [
      "Don't guess at what is meant when",
      "the text is silent, and don't rely",
      "on what you heard elsewhere about",
      "the bidder.",
    ]),
    ...para(304, 184, [
      "Don't compare one quote with the",
      "other ones: each is measured by",
      "the factors of the request alone",
      "and nothing else.",
    ]),
    ...para(304, 244, ["Don't let the price sway the", "technical reading."]),
  ];
  const runs = [
    run("Do's", 104, 104, { bold: true }),
    run("Don'ts", 304, 104, { bold: true }),
    ...left,
    ...right,
  ];
  const rules = fullGrid([100, 300, 500], [100, 120, 300]);
  const tables = detectRuledTables(page(runs, rules));
  for (const table of tables) {
    for (const cell of table.cells) {
      // No cell ends inside a sentence that the next row goes on with.
      assert.ok(!/\b(?:is|it|when|rely|the|about|with|by|alone|in|that|a)$/.test(cell.text), cell.text);
    }
  }
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

test("a footnote mark raised after a header's word reads after the word", () => {
  const xs = [100, 200, 300];
  const ys = [100, 120, 140, 160];
  const runs = [
    run("State", 104, 104),
    run("Others", 204, 104),
    run("(1)", 234, 102, { fontSize: 6 }),
    ...[
      ["Assam", "4,408"],
      ["Bihar", "2,251"],
    ].flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 4, ys[r + 1] + 4))),
  ];
  const [table] = detectRuledTables(page(runs, fullGrid(xs, ys)));
  assert.ok(table);
  assert.deepEqual(grid(table)[0], ["State", "Others(1)"]);
});

test("sub-headers set tightly under their group, each centered on its column, stay one cell per column", () => {
  // A boxed table: a group header over a partial rule, then three sub-headers four points apart (under a column
  // gap), each centered over its column of figures.
  const xs = [100, 200, 234, 268, 302];
  const rules = [
    h(100, 100, 302),
    h(114, 200, 302),
    h(130, 100, 302),
    h(226, 100, 302),
    h(250, 100, 302),
    v(100, 100, 250),
    v(302, 100, 250),
  ];
  const body = Array.from({ length: 8 }, (_, k) => [`row ${k + 1}`, `1${k}.2`, `2${k}.4`, `3${k}.6`]);
  // The last row, a total, ruled off below the others.
  const runs = [
    run("Traditional method", 206, 102),
    run("Method", 104, 116),
    ...["Rhythm", "drawal", "method"].map((t, c) => run(t, xs[c + 1] + 2, 117)),
    ...body.flatMap((row, r) =>
      row.map((t, c) => run(t, c === 0 ? 104 : xs[c] + 7, r < 7 ? 134 + 12 * r : 230)),
    ),
  ];
  const [table] = detectRuledTables(page(runs, rules));
  assert.ok(table);
  const rows = grid(table);
  const sub = rows.find((row) => row.includes("Rhythm"));
  assert.deepEqual(
    sub?.slice(1),
    ["Rhythm", "drawal", "method"],
    rows.map((row) => row.join(" | ")).join("\n"),
  );
  assert.equal(table.cells.find((c) => c.text === "Traditional method")?.colSpan, 3);
  assert.deepEqual(rows.at(-1), ["row 8", "17.2", "27.4", "37.6"]);
});
