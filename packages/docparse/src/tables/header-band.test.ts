import assert from "node:assert/strict";
import { test } from "node:test";
import { rgb } from "pdf-lib";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { detectRuledTables } from "./ruled.ts";
import { grid, run } from "./test-geometry.ts";

/**
 * A shaded strip of labels with one row of figures under it and no rules (a one-item invoice): a table whose
 * header is the strip. A strip holding a title, or labels over a line of running text, is none.
 */

/** A strip from y 96 to 112 across x 50..570 with `labels` in it, and `rows` of runs under it. */
function banded(labels: readonly [string, number][], rows: readonly (readonly [string, number][])[]) {
  const runs = labels.map(([text, x]) => run(text, x, 99));
  for (const [r, row] of rows.entries()) runs.push(...row.map(([text, x]) => run(text, x, 118 + 14 * r)));
  return pageGeometry({ runs, rects: [{ x1: 50, y1: 96, x2: 570, y2: 114 }] });
}

const LABELS: [string, number][] = [
  ["Description", 54],
  ["Qty", 330],
  ["Price", 400],
  ["Amount", 490],
];

test("a shaded strip of labels over one row of figures is the header of a table of that row", () => {
  const [table, ...more] = detectRuledTables(
    banded(LABELS, [
      [
        ["Consulting services", 54],
        ["2.00", 330],
        ["120.00", 400],
        ["240.00", 490],
      ],
    ]),
  );
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["Description", "Qty", "Price", "Amount"],
    ["Consulting services", "2.00", "120.00", "240.00"],
  ]);
  assert.equal(table.cells.filter((c) => c.columnHeader).length, 4);
});

test("a strip holding a title, or labels over running text, makes no table", () => {
  const sentence: [string, number][] = [
    ["Every item of this order ships within two days of payment, 2 of 3 today", 54],
  ];
  assert.deepEqual(detectRuledTables(banded([["Order summary", 54]], [sentence])), []);
  assert.deepEqual(detectRuledTables(banded(LABELS, [sentence])), []);
});

test("a one-item invoice drawn with pdf-lib: the item reads under its shaded header", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawLine(page, "INVOICE", 54, 60, fonts.bold, 20);
  page.drawRectangle({ x: 50, y: PAGE_HEIGHT - 164, width: 520, height: 18, color: rgb(0.85, 0.85, 0.9) });
  const columns = [54, 330, 400, 470, 530];
  for (const [c, label] of ["Description", "Qty", "Unit Price", "Tax", "Amount"].entries())
    drawLine(page, label, columns[c], 150, fonts.bold, 9);
  drawLine(page, "Consulting services for the branding", 54, 172, fonts.regular, 9);
  for (const [c, value] of ["2.00", "120.00", "8.5%", "240.00"].entries())
    drawLine(page, value, columns[c + 1], 172, fonts.regular, 9);
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
    rows.some((row) => row.join("|") === "consulting services for the branding|2 00|120 00|8 5|240 00"),
    result.markdown,
  );
  assert.ok(result.markdown.includes("Thank you for your business."), result.markdown);
});
