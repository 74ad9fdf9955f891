import assert from "node:assert/strict";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

/** A landscape page of a few ledger rows in 9 points, with `corner` drawn at 20 points at the top right. */
async function ledgerPage(corner: { text: string; under?: string }): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([842, 595]);
  page.drawText(corner.text, { x: 730, y: 565, size: 20, font });
  if (corner.under) page.drawText(corner.under, { x: 700, y: 540, size: 14, font });
  page.drawText("XYZ Pvt Ltd", { x: 215, y: 530, size: 9, font });
  const rows = [
    ["Date", "Particulars", "Debit", "Credit"],
    ["01-Apr-16", "Opening balance", "", "27614207"],
    ["13-May-16", "Cheque for bills of March", "26406576", "0"],
    ["25-Jun-16", "Commission returned to party", "132696", "0"],
  ];
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      page.drawText(cell, { x: [53, 215, 490, 560][c], y: 500 - 14 * r, size: 9, font });
    });
  });
  return pdf.save();
}

async function itemOf(bytes: Uint8Array, text: string) {
  const { document } = await parseDocument({ bytes, mimeType: "application/pdf" });
  const item = document.items.find((i) => "text" in i && i.text === text);
  assert.ok(item, text);
  return item;
}

test("a lone number in display type at the page's top corner is the page number", async () => {
  const item = await itemOf(await ledgerPage({ text: "3549" }), "3549");
  assert.equal(item.furniture, true);
});

test("a year, or a number heading a title beside it, at the corner stays content", async () => {
  assert.equal((await itemOf(await ledgerPage({ text: "2016" }), "2016")).furniture, false);
  assert.equal((await itemOf(await ledgerPage({ text: "7", under: "Statement" }), "7")).furniture, false);
});

test("the ledger's page number set at 20 points at the top right corner is left out as furniture", async () => {
  await assertPdfFacts("ledger-statement-p1.pdf", [{ absent: "3549" }, { present: "XYZ Pvt Ltd" }]);
});
