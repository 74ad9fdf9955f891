import assert from "node:assert/strict";
import { test } from "node:test";
import { rgb } from "pdf-lib";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { hRule as h } from "../paginated/test-geometry.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { grid, ruledPage, run } from "./test-geometry.ts";

/**
 * A table ruled by horizontal lines with no top rule (an invoice's items, a statement's entries): the labels over
 * the first rule are its header when they line up with the columns of the rows below; text above a pair of rules
 * that does not (a paragraph, a caption, numbers) stays out of it.
 */

/** An item table: header labels at y 100, a rule under them, one item wrapping onto two lines, a rule under it. */
function itemTable(header: readonly [string, number][]) {
  const runs = [
    ...header.map(([text, x]) => run(text, x, 100)),
    run("Design workshop with", 72, 120),
    run("your team", 72, 132),
    run("1.00", 300, 120),
    run("250.00", 380, 120),
    run("250.00", 470, 120),
  ];
  return ruledPage(runs, [h(114, 70, 520), h(146, 70, 520)]);
}

test("labels over the first of two rules head the row between them, column by column", () => {
  const [table, ...more] = detectRuledTables(
    itemTable([
      ["Description", 72],
      ["Quantity", 290],
      ["Price", 380],
      ["Amount", 470],
    ]),
  );
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["Description", "Quantity", "Price", "Amount"],
    ["Design workshop with your team", "1.00", "250.00", "250.00"],
  ]);
  assert.deepEqual(
    table.cells.filter((c) => c.columnHeader).map((c) => c.text),
    ["Description", "Quantity", "Price", "Amount"],
  );
});

test("a sentence, or a line of numbers, over the first rule heads no table", () => {
  assert.deepEqual(detectRuledTables(itemTable([["The items of this order are listed below", 72]])), []);
  assert.deepEqual(
    detectRuledTables(
      itemTable([
        ["2023", 72],
        ["2024", 290],
        ["2025", 380],
      ]),
    ),
    [],
  );
});

test("an invoice drawn with pdf-lib: header over a rule, items below, read as one table", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawLine(page, "INVOICE", 54, 60, fonts.bold, 20);
  const columns = [54, 330, 400, 470, 530];
  for (const [c, label] of ["Description", "Qty", "Unit Price", "Tax", "Amount"].entries())
    drawLine(page, label, columns[c], 150, fonts.regular, 9);
  const rule = (top: number) =>
    page.drawLine({
      start: { x: 50, y: PAGE_HEIGHT - top },
      end: { x: 570, y: PAGE_HEIGHT - top },
      thickness: 0.75,
      color: rgb(0, 0, 0),
    });
  rule(164);
  drawLine(page, "Consulting services for the branding", 54, 170, fonts.regular, 9);
  drawLine(page, "workshop in March", 54, 181, fonts.regular, 9);
  for (const [c, value] of ["2.00", "120.00", "8.5%", "240.00"].entries())
    drawLine(page, value, columns[c + 1], 170, fonts.regular, 9);
  rule(196);
  drawLine(
    page,
    "Thank you for your business. Payment is due within thirty days.",
    54,
    240,
    fonts.regular,
    10,
  );
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const rows = markdownRows(result.markdown);
  assert.ok(
    rows.some((row) => row.join("|") === "description|qty|unit price|tax|amount"),
    result.markdown,
  );
  assert.ok(
    rows.some(
      (row) =>
        row.join("|") === "consulting services for the branding workshop in march|2 00|120 00|8 5|240 00",
    ),
    result.markdown,
  );
});

test("public pages: a bank statement's entry and an invoice's item under their headers", async () => {
  const [statement] = await realWorldRuledTables("bank-statement-line.pdf");
  assert.deepEqual(grid(statement), [
    ["Booked and interest date", "Text", "Amount in EUR", "Booked balance in EUR"],
    ["01/14/2016", "Transfer", "1,406,164.00", "1,406,246.50"],
  ]);
  const invoice = (await realWorldRuledTables("demo-invoice-payment-advice.pdf")).find((t) =>
    t.cells.some((c) => c.text === "Description"),
  );
  assert.ok(invoice);
  assert.deepEqual(grid(invoice)[1], [
    "Project management & implementation - branding workshop with your team",
    "1.00",
    "250.00",
    "9.25%",
    "250.00",
  ]);
});

test("items ruled one by one under a header with no top rule: the header is the table's first row", () => {
  const runs = [run("Item", 72, 100), run("Qty", 300, 100), run("Price", 380, 100), run("Total", 470, 100)];
  const rules = [h(114, 70, 520)];
  const items = [
    ["Widget", "2", "10.00", "20.00"],
    ["Gadget", "1", "5.50", "5.50"],
    ["Gizmo", "3", "1.00", "3.00"],
  ];
  for (const [i, item] of items.entries()) {
    const y = 120 + 20 * i;
    runs.push(...item.map((text, c) => run(text, [72, 300, 380, 470][c], y)));
    rules.push(h(y + 16, 70, 520));
  }
  const [table] = detectRuledTables(ruledPage(runs, rules));
  assert.deepEqual(grid(table), [["Item", "Qty", "Price", "Total"], ...items]);
  assert.equal(table.cells.filter((c) => c.columnHeader).length, 4);
});

/** A key-figures table: a label column, figures under a row of years, a rule under the years and every row. */
function keyFigures(years: readonly string[]) {
  const xs = [300, 380, 460];
  const runs = [
    ...years.map((year, i) => run(year, xs[i], 100)),
    ...[
      ["Revenue", "275.5", "295.6", "319.4"],
      ["EBITA", "8.8", "10.3", "12.2"],
      ["EPS", "0.43", "0.63", "0.80"],
    ].flatMap((row, r) => row.map((text, c) => run(text, c === 0 ? 72 : xs[c - 1], 120 + 20 * r))),
  ];
  return ruledPage(runs, [h(114, 70, 520), h(134, 70, 520), h(154, 70, 520), h(174, 70, 520)]);
}

test("a row of years, forecasts marked, over the columns of figures heads the table", () => {
  const [table, ...more] = detectRuledTables(keyFigures(["2024", "2025e", "2026E"]));
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["", "2024", "2025e", "2026E"],
    ["Revenue", "275.5", "295.6", "319.4"],
    ["EBITA", "8.8", "10.3", "12.2"],
    ["EPS", "0.43", "0.63", "0.80"],
  ]);
  assert.deepEqual(
    table.cells.filter((c) => c.columnHeader && c.text !== "").map((c) => c.text),
    ["2024", "2025e", "2026E"],
  );
});

test("numbers over a table that are no row of years (a repeated year, amounts) head nothing", () => {
  for (const header of [
    ["2024", "2024", "2025"],
    ["2024", "2026", "2025"],
    ["120", "130", "140"],
  ]) {
    const [table] = detectRuledTables(keyFigures(header));
    assert.ok(!table.cells.some((c) => header.includes(c.text)), JSON.stringify(grid(table)));
  }
});

test("public page: a research note's key figures are headed by their years", async () => {
  const table = (await realWorldRuledTables("inderes-kreate-update-p2.pdf")).find((t) =>
    t.cells.some((c) => c.text === "Revenue"),
  );
  assert.ok(table);
  assert.deepEqual(grid(table).slice(0, 2), [
    ["", "2024", "2025e", "2026e", "2027e"],
    ["Revenue", "275.5", "295.6", "319.4", "330.7"],
  ]);
});
