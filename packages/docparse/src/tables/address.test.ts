import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { factHolds, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { addressLines } from "./address.ts";

/**
 * A postal address set beside labels and values shares their lines and aligns like a column, but it is one block
 * of text read down: the table (if any) is what stands beside it, never the address.
 */

test("an address block is found from its street and postcode lines, with its name and country", () => {
  assert.deepEqual(
    addressLines([
      "PAYMENT ADVICE",
      "To: Orange Demo Inc.",
      "23 Main Street",
      "Central City",
      "MARINEVILLE NY 12123",
      "USA",
    ]),
    { start: 1, count: 5 },
  );
  assert.deepEqual(
    addressLines(["Adresse:", "Ulrike-Gschwandtner-Straße 5", "5020 Salzburg", "Österreich"]),
    {
      start: 0,
      count: 4,
    },
  );
  assert.deepEqual(addressLines(["10 Downing Street", "London SW1A 2AA"]), { start: 0, count: 2 });
  // Cells of a table: numbers and words, but no street over a postcode.
  assert.equal(addressLines(["Revenue", "12,345", "Net income 2023", "4.5%"]), null);
  assert.equal(addressLines(["Q2 2023", "Operating margin", "29%", "Total"]), null);
});

async function pageTables(bytes: Uint8Array) {
  const doc = await openPdf(bytes);
  try {
    return tableStage(await extractPdfPage(doc, 1));
  } finally {
    await doc.destroy();
  }
}

test("an address beside labels and values, drawn with pdf-lib: no table takes in the address", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawLine(page, "Remittance slip", 60, 80, fonts.bold, 16);
  const address = ["To: Harbour Supplies Ltd.", "41 Quay Road", "Port Ellen", "SPRINGFIELD IL 62704", "USA"];
  for (const [k, line] of address.entries()) drawLine(page, line, 60, 110 + 11 * k, fonts.regular, 9);
  const pairs = [
    ["Invoice Number", "INV-2291"],
    ["Amount Due", "1,273.13"],
    ["Due Date", "30.06.2024"],
    ["Account", "12345678"],
  ];
  for (const [k, [label, value]] of pairs.entries()) {
    drawLine(page, label, 340, 111 + 15 * k, fonts.regular, 9);
    drawLine(page, value, 430, 111 + 15 * k, fonts.regular, 9);
  }
  const bytes = await pdfBytes(pdf);
  const tables = await pageTables(bytes);
  assert.ok(
    !tables.some((t) => t.cells.some((c) => /Quay Road|Port Ellen/.test(c.text))),
    JSON.stringify(tables),
  );
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing: {} } });
  const subject = markdownSubject(result.markdown);
  assert.ok(factHolds({ present: address.join(" ") }, subject), result.markdown);
  assert.ok(factHolds({ neighbours: ["Amount Due", "1,273.13"] }, subject), result.markdown);
});

test("public pages: a payment advice's address and a form's contact foot are no table's column", async () => {
  for (const [name, text] of [
    ["demo-invoice-payment-advice.pdf", "23 Main Street"],
    ["de-ccc-membership-form.pdf", "5020 Salzburg"],
  ]) {
    const bytes = readFileSync(new URL(`../../test/real-world/${name}`, import.meta.url));
    const tables = await pageTables(new Uint8Array(bytes));
    assert.ok(!tables.some((t) => t.cells.some((c) => c.text.includes(text))), name);
  }
});
