import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { DetectedTable, TextRun } from "../paginated/geometry.ts";
import { hRule as h, vRule as v } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { cellAt, fullGrid, grid, ruledPage, run } from "./test-geometry.ts";

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
  const tables = detectRuledTables(ruledPage(runs, fullGrid(xs, ys)));
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
  const [table] = detectRuledTables(ruledPage(runs, rules));
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
  const [table] = detectRuledTables(ruledPage(runs, rules));
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
  const [table] = detectRuledTables(ruledPage(runs, rules));
  assert.deepEqual(grid(table), rows);
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
  const [table] = detectRuledTables(ruledPage(runs, rules));
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
  assert.deepEqual(detectRuledTables(ruledPage(runs, rules)), []);
  // The same box drawn as a filled rectangle.
  assert.deepEqual(detectRuledTables(ruledPage(runs, [], [{ x1: 100, y1: 100, x2: 400, y2: 160 }])), []);
});

test("a drawn grid with a header over empty rows is a form's table left blank, its rows kept", () => {
  const xs = [100, 200, 300, 400];
  const ys = [100, 120, 136, 152];
  const header = ["Date", "Description", "Amount"].map((t, c) => run(t, xs[c] + 6, 104));
  const [table] = detectRuledTables(ruledPage(header, fullGrid(xs, ys)));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["Date", "Description", "Amount"],
    ["", "", ""],
    ["", "", ""],
  ]);
  // Labels over one open box (no column rules through it) are a titled frame, and one label over an empty
  // row is one cell of a frame: neither is a table.
  const open = [
    ...ys.map((y) => h(y, 100, 400)),
    v(100, 100, 152),
    v(400, 100, 152),
    v(200, 100, 120),
    v(300, 100, 120),
  ];
  assert.deepEqual(detectRuledTables(ruledPage(header, open)), []);
  const single = [h(100, 100, 400), h(120, 100, 400), h(152, 100, 400), v(100, 100, 152), v(400, 100, 152)];
  assert.deepEqual(detectRuledTables(ruledPage([run("Remarks", 106, 104)], single)), []);
});

test("rules above and below prose, a chart's empty grid, and stacked boxes of a diagram are no tables", () => {
  const prose = Array.from({ length: 8 }, (_, k) =>
    run("Ordinary running text fills the whole width of the column here.", 100, 110 + 14 * k),
  );
  assert.deepEqual(detectRuledTables(ruledPage(prose, [h(100, 100, 420), h(230, 100, 420)])), []);
  const chart = fullGrid([100, 150, 200, 250, 300], [300, 330, 360, 390]);
  assert.deepEqual(detectRuledTables(ruledPage([run("Revenue", 170, 280)], chart)), []);
  // Boxes stacked in a frame, each holding one text (a flow of steps): no row has two cells.
  const boxes = [h(400, 100, 300), h(430, 100, 300), h(460, 100, 300), v(100, 400, 460), v(300, 400, 460)];
  const steps = [run("Load the document", 120, 408), run("Detect the tables", 120, 438)];
  assert.deepEqual(detectRuledTables(ruledPage(steps, boxes)), []);
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
  const [table] = detectRuledTables(ruledPage(runs, rules));
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
  const [table] = detectRuledTables(ruledPage(runs, fullGrid(xs, ys)));
  assert.deepEqual(grid(table), [
    ["x", "y"],
    ["0.965", "0.969"],
    ["a", "b"],
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
  const tables = detectRuledTables(ruledPage(runs, rules));
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
  const [table] = detectRuledTables(ruledPage(runs, fullGrid(xs, ys)));
  assert.ok(table);
  assert.deepEqual(grid(table)[0], ["State", "Others(1)"]);
});

test("public page: an expense report's header labels wrapped in shaded cells, and its blank table of reimbursements", async () => {
  const [expenses, reimbursements] = await realWorldRuledTables("pei-expense-disclosure-report.pdf");
  assert.ok(expenses && reimbursements);
  assert.deepEqual(grid(expenses)[0], [
    "CATEGORY",
    "ACCOUNTING DATE",
    "TRANSACTION DETAIL",
    "MERCHANT",
    "AMOUNT",
  ]);
  assert.equal(expenses.numRows, 2);
  assert.deepEqual(grid(reimbursements), [
    ["CATEGORY", "ACCOUNTING DATE", "DESCRIPTION", "PAID BY", "AMOUNT"],
    ["", "", "", "", ""],
  ]);
});
