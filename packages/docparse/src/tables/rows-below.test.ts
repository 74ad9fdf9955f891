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
 * Rows going on under a horizontally ruled table's last rule: a statement rules its header and opening balance,
 * then sets its entries under them with no rule, each entry a block of lines set apart by a blank.
 */

/** A statement: rules over and under its header and under the opening balance, entries of two or three lines. */
async function statementPdf(under: string[]): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 9;
  const right = 540;
  const amount = (text: string, top: number) =>
    drawLine(page, text, right - fonts.regular.widthOfTextAtSize(text, size), top, fonts.regular, size);
  const rule = (top: number, thickness: number) =>
    page.drawLine({
      start: { x: 50, y: PAGE_HEIGHT - top },
      end: { x: 546, y: PAGE_HEIGHT - top },
      thickness,
      color: rgb(0, 0, 0),
    });
  drawLine(page, "Account statement 03/2024", 54, 60, fonts.bold, 18);
  rule(140, 0.8);
  drawLine(page, "Date", 56, 145, fonts.bold, size);
  drawLine(page, "Purpose", 130, 145, fonts.bold, size);
  drawLine(
    page,
    "Amount (EUR)",
    right - fonts.bold.widthOfTextAtSize("Amount (EUR)", size),
    145,
    fonts.bold,
    size,
  );
  rule(158, 0.8);
  drawLine(page, "Opening balance", 130, 170, fonts.regular, size);
  amount("1,204.10", 170);
  rule(184, 0.5);
  const entries = [
    ["03.03.24", ["CARD PAYMENT", "Corner Bakery Ltd", "Ref 55120934"], "-12.40"],
    ["05.03.24", ["STANDING ORDER", "Rent for March, flat 4B"], "-850.00"],
    ["11.03.24", ["SALARY", "Northwind Traders payroll", "Period 02/2024"], "2,310.55"],
    ["19.03.24", ["DIRECT DEBIT", "City Power and Water"], "-64.20"],
  ] as const;
  let top = 190;
  for (const [date, purpose, value] of entries) {
    drawLine(page, date, 58, top, fonts.regular, size);
    drawLine(page, `(${date})`, 56, top + 11, fonts.regular, size);
    for (const [k, line] of purpose.entries()) drawLine(page, line, 130, top + 11 * k, fonts.regular, size);
    amount(value, top);
    top += 11 * Math.max(2, purpose.length) + 12;
  }
  for (const line of under) {
    drawLine(page, line, 54, top + 20, fonts.regular, 10);
    top += 13;
  }
  return pdfBytes(pdf);
}

test("a statement's entries under its last rule are the table's rows, an entry's lines one row", async () => {
  const bytes = await statementPdf([
    "Please check your statement. Objections must be raised within six weeks of its date,",
    "otherwise the statement counts as approved.",
  ]);
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing: {} } });
  const rows = markdownRows(result.markdown);
  const has = (row: string) => rows.some((r) => r.join("|") === row);
  assert.ok(has("date|purpose|amount eur"), result.markdown);
  assert.ok(has("|opening balance|1 204 10"), result.markdown);
  assert.ok(has("03 03 24 03 03 24|card payment corner bakery ltd ref 55120934|12 40"), result.markdown);
  assert.ok(
    has("11 03 24 11 03 24|salary northwind traders payroll period 02 2024|2 310 55"),
    result.markdown,
  );
  assert.ok(has("19 03 24 19 03 24|direct debit city power and water|64 20"), result.markdown);
  // The notice under the entries runs across the columns: a paragraph, not a row.
  assert.ok(!rows.flat().some((cell) => cell.includes("objections")), result.markdown);
  assert.match(result.markdown, /\n\nPlease check your statement\./);
});

test("one-line entries under the last rule are a row each; a note under them stays out", () => {
  const header = [run("Item", 72, 100), run("Count", 300, 100), run("Share", 420, 100)];
  const opening = [run("Total", 72, 120), run("30", 300, 120), run("100%", 420, 120)];
  const entries = [
    [run("Apples", 72, 140), run("12", 300, 140), run("40%", 420, 140)],
    [run("Pears", 72, 154), run("18", 300, 154), run("60%", 420, 154)],
    [run("Plums", 72, 168), run("0", 300, 168), run("0%", 420, 168)],
  ].flat();
  const rules = [h(96, 70, 470), h(114, 70, 470), h(134, 70, 470)];
  // Under the entries: a note in the first column alone, then words standing where no column is.
  const under = [run("Source: market survey", 72, 182), run("Note", 72, 196), run("b", 200, 196)];
  const [table, ...more] = detectRuledTables(ruledPage([...header, ...opening, ...entries, ...under], rules));
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["Item", "Count", "Share"],
    ["Total", "30", "100%"],
    ["Apples", "12", "40%"],
    ["Pears", "18", "60%"],
    ["Plums", "0", "0%"],
  ]);
});

test("public page: a German bank statement's bookings under its opening balance are one table", async () => {
  const tables = await realWorldRuledTables("de-bank-statement-p1.pdf");
  const bookings = tables.find((t) => t.cells.some((c) => c.text === "Verwendungszweck"));
  assert.ok(bookings);
  const rows = grid(bookings);
  assert.equal(rows.length, 8);
  assert.deepEqual(rows[2], [
    "01.12.14 (29.11.14)",
    "ENTGELTABSCHLUSS 62841530 / 0000000000 Entgeltabrechnung siehe Anlage",
    "−2,50",
  ]);
  assert.deepEqual(rows[7], [
    "16.12.14 (16.12.14)",
    "GUTSCHRIFT PBNKDEFFXXX / DE90370100500236608109 Hubert Schmidt EREF: ZV0100172628619600000002 ebayDDR2 Speicherriegel",
    "7,54",
  ]);
});
