import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { rgb } from "pdf-lib";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes, wrapText } from "../backends/pdf-fixtures.ts";
import { markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { hRule } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { ruledKeyValueTables } from "./ruled-key-value.ts";
import { grid, ruledPage, run } from "./test-geometry.ts";

/**
 * A fact sheet's box of labels and values ruled between its rows only, no vertical rule: the rules give the rows,
 * the labels' and the values' left edges the two columns.
 */

const ROWS: [string, string][] = [
  ["Fund size", "74.6 bn"],
  ["Subscription", "Price of the second business day, before 3:30 pm"],
  ["Redemption", "Price of the fourth business day"],
  ["Benchmark", "Market index 100%"],
];

test("rows of a label and its value parted by horizontal rules make a table of two columns", () => {
  const runs = ROWS.flatMap(([label, value], r) => [
    run(label, 54, 102 + 16 * r),
    run(value, 140, 102 + 16 * r),
  ]);
  const rules = [0, 1, 2, 3, 4].map((r) => hRule(100 + 16 * r, 50, 520));
  const [table, ...more] = ruledKeyValueTables(ruledPage(runs, rules), []);
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), ROWS);
});

test("ruled lines of prose, rows of three columns, or a box already read make no key-value table", () => {
  const rules = [0, 1, 2, 3, 4].map((r) => hRule(100 + 16 * r, 50, 520));
  const prose = [0, 1, 2, 3].map((r) =>
    run("every line of this note runs on without a gap", 54, 102 + 16 * r),
  );
  assert.deepEqual(ruledKeyValueTables(ruledPage(prose, rules), []), []);
  const three = [0, 1, 2, 3].flatMap((r) => [
    run("Item", 54, 102 + 16 * r),
    run("12", 200, 102 + 16 * r),
    run("40", 400, 102 + 16 * r),
  ]);
  assert.deepEqual(ruledKeyValueTables(ruledPage(three, rules), []), []);
  const runs = ROWS.flatMap(([label, value], r) => [
    run(label, 54, 102 + 16 * r),
    run(value, 140, 102 + 16 * r),
  ]);
  assert.deepEqual(ruledKeyValueTables(ruledPage(runs, rules), [{ x1: 50, y1: 100, x2: 520, y2: 164 }]), []);
});

test("a key-value box ruled between its rows on a panelled page, drawn with pdf-lib: each label beside its value", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  // A light background drawn as strips around white panels (margins left and right, a band between two
  // sections, a gutter between two columns): their edges join the box's rules with the panels' outlines into one
  // group of rules that is no grid.
  const shade = (x: number, top: number, width: number, height: number) =>
    page.drawRectangle({ x, y: PAGE_HEIGHT - top - height, width, height, color: rgb(0.93, 0.93, 0.93) });
  shade(38, 50, 12, 330);
  shade(520, 50, 12, 330);
  shade(38, 190, 494, 12);
  shade(280, 202, 10, 178);
  drawLine(page, "Fund overview", 54, 60, fonts.bold, 14);
  drawLine(
    page,
    "The fund invests in the shares of leading groups and their listed affiliates.",
    54,
    84,
    fonts.regular,
    10,
  );
  for (let r = 0; r <= ROWS.length; r++) {
    page.drawLine({
      start: { x: 50, y: PAGE_HEIGHT - (110 + 16 * r) },
      end: { x: 520, y: PAGE_HEIGHT - (110 + 16 * r) },
      thickness: 0.3,
    });
  }
  for (const [r, [label, value]] of ROWS.entries()) {
    drawLine(page, label, 54, 113 + 16 * r, fonts.regular, 9);
    drawLine(page, value, 140, 113 + 16 * r, fonts.regular, 9);
  }
  for (const [c, x] of [54, 296].entries()) {
    drawLine(page, c === 0 ? "Review" : "Outlook", x, 210, fonts.bold, 11);
    const text =
      "Shares fell over the month as yields rose, while insurers and banks held up; the fund beat its benchmark by a little.";
    for (const [l, line] of wrapText(text, fonts.regular, 10, 215).entries())
      drawLine(page, line, x, 230 + 13 * l, fonts.regular, 10);
  }
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const rows = markdownRows(result.markdown).map((row) => row.join("|"));
  assert.ok(rows.includes("fund size|74 6 bn"), result.markdown);
  assert.ok(rows.includes("benchmark|market index 100"), result.markdown);
});

test("a Korean fund fact sheet's box of terms ruled between its rows reads as a table of label and value", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/ko-fund-monthly-report.pdf", import.meta.url));
  const doc = await openPdf(new Uint8Array(bytes));
  const tables = tableStage(await extractPdfPage(doc, 1));
  await doc.destroy();
  const table = tables.find((t) => grid(t).some((row) => row[0] === "펀드규모"));
  assert.ok(table, "no table with the fund size");
  assert.deepEqual(grid(table)[0], ["펀드규모", "746억원"]);
  assert.deepEqual(grid(table)[3], ["비교지수(BM)", "[KOSPI지수]*100%"]);
});
