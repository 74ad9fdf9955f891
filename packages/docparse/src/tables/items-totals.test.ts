import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

/**
 * An invoice's items with only a rule under their header: the rows between it and the next rule run on into the
 * totals, whose labels are set right-aligned under the middle columns (each bridging two of them). The items are
 * a table with their header, the totals a table of their own, label beside amount.
 */
test("an invoice drawn with pdf-lib: items under a header rule, then totals, read as two tables", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 10;
  const rule = (top: number) =>
    page.drawLine({
      start: { x: 60, y: PAGE_HEIGHT - top },
      end: { x: 540, y: PAGE_HEIGHT - top },
      thickness: 0.5,
    });
  // Text right-aligned to `right` (figures and the totals' labels).
  const right = (text: string, x: number, top: number, font = fonts.regular) =>
    drawLine(page, text, x - font.widthOfTextAtSize(text, size), top, font, size);
  drawLine(page, "Invoice 1087", 60, 60, fonts.bold, 18);
  drawLine(page, "Description", 60, 200, fonts.bold, size);
  right("Price", 420, 200, fonts.bold);
  right("Tax", 485, 200, fonts.bold);
  right("Amount", 540, 200, fonts.bold);
  rule(214);
  const items = [
    ["Oak desk", "620.00", "8%", "669.60"],
    ["Reading lamp", "182.00", "8%", "196.56"],
    ["Filing cabinet", "129.90", "8%", "140.29"],
  ];
  for (const [k, [name, price, tax, amount]] of items.entries()) {
    const top = 222 + 16 * k;
    drawLine(page, name, 60, top, fonts.regular, size);
    right(price, 420, top);
    right(tax, 485, top);
    right(amount, 540, top);
  }
  const totals = [
    ["Net amount:", "931.90"],
    ["Sales tax:", "74.55"],
    ["Amount due:", "1006.45"],
  ];
  // The labels end just inside the tax column, each bridging the price and tax columns.
  for (const [k, [label, amount]] of totals.entries()) {
    right(label, 474, 320 + 14 * k);
    right(amount, 540, 320 + 14 * k);
  }
  drawLine(page, "Please pay within thirty days of the invoice date.", 60, 380, fonts.regular, size);
  drawLine(page, "Bank details", 60, 410, fonts.bold, 14);
  rule(430);
  drawLine(page, "Account holder:", 60, 440, fonts.regular, size);
  right("Northwind Furniture Ltd", 540, 440);
  drawLine(page, "Account number:", 60, 454, fonts.regular, size);
  right("0042 1187 5530", 540, 454);
  drawLine(page, "Reference:", 60, 468, fonts.regular, size);
  right("INV-1087", 540, 468);
  rule(484);
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const rows = markdownRows(result.markdown).map((row) => row.join("|"));
  assert.ok(rows.includes("description|price|tax|amount"), result.markdown);
  assert.ok(rows.includes("reading lamp|182 00|8|196 56"), result.markdown);
  assert.ok(rows.includes("net amount|931 90"), result.markdown);
  assert.ok(rows.includes("sales tax|74 55"), result.markdown);
  assert.ok(
    result.markdown.includes("\n\nPlease pay within thirty days of the invoice date."),
    result.markdown,
  );
});

test("public page: an invoice's items read as a table with their header, its totals beside their amounts", async () => {
  await assertPdfFacts("simpleinvoice-english.pdf", [
    { neighbours: ["Description", "Item price"] },
    { neighbours: ["Item price", "VAT"] },
    { neighbours: ["VAT", "Sum"] },
    { neighbours: ["Subtotal:", "650 USD"] },
    { neighbours: ["VAT:", "0 USD"] },
  ]);
});
