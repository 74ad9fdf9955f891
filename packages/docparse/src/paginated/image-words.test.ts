import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { textImage } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

/** A rate sheet with a typed title, body lines, and a logo picture lettered `Northwind` at its foot. */
async function rateSheet(typedTitle: boolean): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([612, 792]);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  if (typedTitle) page.drawText("Savings Account Rates", { x: 56, y: 730, size: 20, font: bold });
  const lines = [
    "Interest is calculated daily on the full balance and paid monthly into the same account.",
    "Rates are variable and may change at any time; the rate on the day of deposit applies.",
    "Bonus interest is paid in any month with one deposit and no withdrawals from the account.",
    "Please ask at any branch for the terms and conditions that apply to these accounts.",
  ];
  lines.forEach((line, i) => {
    page.drawText(line, { x: 56, y: 680 - i * 14, size: 10, font });
  });
  const logo = await pdf.embedPng(await textImage(["Northwind"], { fontPt: 40, widthIn: 5, heightIn: 1.6 }));
  page.drawImage(logo, { x: 380, y: 60, width: 200, height: 64 });
  return pdf.save();
}

test("a logo's word read by OCR is no heading on a page with a typed title; alone it may be", {
  timeout: 300_000,
}, async () => {
  const withTitle = await parseDocument({ bytes: await rateSheet(true), mimeType: "application/pdf" });
  const markdown = withTitle.result.markdown;
  assert.match(markdown, /^# Savings Account Rates$/m, markdown);
  assert.match(markdown, /^Northwind$/m, markdown);
  assert.doesNotMatch(markdown, /^#+ Northwind/m, markdown);
  // Without a typed heading on the page, the picture's word keeps the heading it was read as.
  const alone = await parseDocument({ bytes: await rateSheet(false), mimeType: "application/pdf" });
  assert.match(alone.result.markdown, /^#+ Northwind$/m, alone.result.markdown);
});

test("public: the bank's logo at the foot of its rate sheet is no heading before the rates table", {
  timeout: 300_000,
}, async () => {
  const { result } = await parseDocument({
    bytes: readFileSync(`${REAL_WORLD}cba-home-loan-rates-p1.pdf`),
    mimeType: "application/pdf",
  });
  // The logo's lettering is still read, as text; the sheet's typed title and date line stay its headings.
  assert.match(result.markdown, /^C\w+wealth\w*$/m, result.markdown);
  assert.deepEqual(
    result.markdown
      .split("\n")
      .filter((line) => /^#+ /.test(line))
      .slice(0, 2),
    ["# Home Loan Interest Rates", "## Effective as at 9 April 2019"],
  );
  assert.doesNotMatch(result.markdown, /^#+ C\w+wealth/m);
});
