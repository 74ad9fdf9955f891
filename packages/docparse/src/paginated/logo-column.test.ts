import assert from "node:assert/strict";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { chartPng } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

/** Words in order in the markdown. */
function assertInOrder(markdown: string, words: readonly string[]): void {
  let from = 0;
  for (const word of words) {
    const at = markdown.indexOf(word, from);
    assert.ok(at >= 0, `${JSON.stringify(word)} after offset ${from} in:\n${markdown}`);
    from = at + word.length;
  }
}

test("a logo's words beside a report's centred title lines are read after them, not between title and subtitle", async () => {
  const pdf = await PDFDocument.create();
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([792, 612]);
  const centred = (text: string, y: number, size: number) =>
    page.drawText(text, { x: 396 - bold.widthOfTextAtSize(text, size) / 2, y, size, font: bold });
  centred("Layoff Notices Report", 580, 14);
  // The logo: a picture with the agency's name lettered on it, level with the subtitle lines.
  const logo = await pdf.embedPng(await chartPng(240, 90));
  page.drawImage(logo, { x: 32, y: 525, width: 120, height: 45 });
  for (const [i, word] of ["Northern Regional", "Labour Market", "Services Agency"].entries())
    page.drawText(word, { x: 70, y: 560 - 10 * i, size: 7, font: bold });
  centred("Summary by Received Date", 558, 10);
  centred("07/01/2015 - 03/25/2016", 545, 10);
  centred("Fiscal Year", 532, 10);
  const rows = [
    ["Notice Date", "Company", "City", "Workers"],
    ["06/22/2015", "Maxim Integrated", "San Jose", "150"],
    ["06/30/2015", "McGraw-Hill Education", "Monterey", "137"],
    ["07/01/2015", "Leidos", "El Segundo", "72"],
    ["07/01/2015", "Bosch Healthcare", "Palo Alto", "55"],
  ];
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      page.drawText(cell, { x: [40, 160, 400, 600][c], y: 490 - 14 * r, size: 10, font: regular });
    });
  });
  const { result } = await parseDocument({ bytes: await pdf.save(), mimeType: "application/pdf" });
  assertInOrder(result.markdown, [
    "Layoff Notices Report",
    "Summary by Received Date",
    "07/01/2015 - 03/25/2016",
    "Fiscal Year",
    "Northern Regional",
    "Notice Date",
  ]);
});

test("the WARN report's title, subtitle and dates read together, its emblem's words after them", async () => {
  await assertPdfFacts("warn-report-excel-p1-2.pdf", [
    { present: "WARN Report* Summary by Received Date 07/01/2015 - 03/25/2016 Fiscal Year" },
    { before: ["Fiscal Year", "Employment Development Department"] },
  ]);
});
