import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { detailLine, detailsBlock } from "./contact-details.ts";

const PROSE =
  "Thank you for your order of the third of June. The goods were sent on the same day and the invoice is enclosed " +
  "with this letter; please transfer the amount within thirty days to the account given at the foot of the page.";

test("detailLine reads labels and values, codes and contacts; not folios, headings or sentences", () => {
  for (const line of [
    "IBAN: DE89 3704 0044 0532 0130 00",
    "BLZ 000.000.00",
    "Tel. +49 30 1234567",
    "x@example.org",
  ])
    assert.equal(detailLine(line), true, line);
  for (const line of ["Page 1 of 3", "Chapter 12", "The end of the story.", "12 Main Street"])
    assert.equal(detailLine(line), false, line);
  assert.equal(detailsBlock(["Bank: Example Bank", "IBAN DE89 3704 0044 0532 0130 00"]), false);
});

test("a single letter's bank details in small type at its foot are content, not a page footer", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  drawLine(page, "Example Supplies Ltd", 72, 60, fonts.bold, 16);
  drawLine(page, "Dear Ms Smith,", 72, 200, fonts.regular, 10);
  drawParagraph(page, PROSE, { x: 72, top: 220, width: 450, font: fonts.regular, size: 10 });
  drawLine(page, "Yours sincerely,", 72, 300, fonts.regular, 10);
  const foot = ["Bank: Example Bank plc", "IBAN: DE89 3704 0044 0532 0130 00", "BIC: EXAMPLEXXX"];
  foot.forEach((line, i) => {
    drawLine(page, line, 340, 770 + i * 9, fonts.regular, 7);
  });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  const words = markdownSubject(result.markdown).words;
  assert.ok(words.includes(" de89 3704 0044 "), result.markdown);
  assert.ok(words.includes(" thank you for your order "), result.markdown);
});

test("public page: a German business letter's bank details at its foot are kept", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("g-brief-rent-reminder.pdf", [
    { present: "Bankhaus Skrupellos & Co." },
    { present: "Kto. 000.000.000" },
    { present: "Sehr geehrte Frau Mittellos," },
  ]);
});
