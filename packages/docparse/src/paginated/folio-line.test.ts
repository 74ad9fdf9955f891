import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

const PROSE =
  "The spring meeting agreed to plant the new beds along the east wall before the end of the month, and the " +
  "members who keep the seed library will bring their lists to the next evening so that nothing is sown twice.";

test("a running head level with the page number, on a spread whose facing page starts its title higher, is furniture", async () => {
  const { pdf, fonts } = await newPdf();
  // A two-page spread on one landscape page: the left page's masthead starts a few points under the right page's
  // running head, so the head line is not set apart from what follows it.
  const page = pdf.addPage([792, 459]);
  drawLine(page, "Garden Club", 60, 14, fonts.bold, 28);
  drawLine(page, "Garden Club Letter April 2024", 540, 6, fonts.regular, 10);
  drawLine(page, "2", 736, 6, fonts.regular, 10);
  for (const x of [40, 220, 420, 600])
    drawParagraph(page, PROSE, { x, top: 70, width: 160, font: fonts.regular, size: 10 });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  const words = markdownSubject(result.markdown).words;
  assert.ok(!words.includes(" april 2024 "), result.markdown);
  assert.ok(words.includes(" garden club "), result.markdown);
  assert.ok(words.includes(" the spring meeting agreed "), result.markdown);
});

test("a newsletter spread's running head, between its volume line and page number, is left out", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("committee-times-newsletter.pdf", [
    { absent: "Committee Times MARCH 22, 2007" },
    {
      present:
        "Dr. Allen will be one of 19 staffers on the minority side–the majority is alloted 38 staffers.",
    },
  ]);
});

test("a running head on the page's first line, set apart below the margin band, beside its page number, is furniture", async () => {
  // A letter's page whose head line sits a little lower than the top 8% (a deep top margin): its title, its
  // issue and its folio in the body's size, three blocks on the line. The line is set apart from the text, and
  // the page number says what it is.
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "Planting Along the East Wall", 72, 76, fonts.regular, 10);
  drawLine(page, "Garden Club Letter April 2024", 250, 76, fonts.regular, 10);
  drawLine(page, "17", 528, 76, fonts.regular, 10);
  drawLine(page, "The New Beds", 72, 112, fonts.bold, 16);
  for (const top of [140, 220, 300])
    drawParagraph(page, PROSE, { x: 72, top, width: 468, font: fonts.regular, size: 10 });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  const words = markdownSubject(result.markdown).words;
  assert.ok(!words.includes(" planting along the east wall "), result.markdown);
  assert.ok(!words.includes(" april 2024 "), result.markdown);
  assert.ok(words.includes(" the new beds "), result.markdown);
  assert.ok(words.includes(" the spring meeting agreed "), result.markdown);
});

test("public page: on a page set all in one size, the head beside the page number is still its running head", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("la-precinct-bulletin.pdf", [
    { absent: "REGISTRAR-RECORDER/COUNTY CLERK" },
    { present: "GENERAL ELECTION" },
  ]);
});

test("a docket stamp's line, its page number written `Pg: 1 of 1`, is left out as the page's head", async () => {
  // A court's filing stamp across the top of a form: case, document, date and page, each a block of its own.
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "Appeal: 17-2218", 20, 12, fonts.regular, 11);
  drawLine(page, "Doc: 17", 128, 12, fonts.regular, 11);
  drawLine(page, "Filed: 10/31/2017", 209, 12, fonts.regular, 11);
  drawLine(page, "Pg: 1 of 1", 322, 12, fonts.regular, 11);
  drawLine(page, "Appearance of Counsel", 200, 90, fonts.bold, 14);
  for (const top of [130, 210])
    drawParagraph(page, PROSE, { x: 72, top, width: 468, font: fonts.regular, size: 10 });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  const words = markdownSubject(result.markdown).words;
  assert.ok(!words.includes(" appeal 17 2218 "), result.markdown);
  assert.ok(!words.includes(" pg 1 of 1 "), result.markdown);
  assert.ok(words.includes(" appearance of counsel "), result.markdown);
  assert.ok(words.includes(" the spring meeting agreed "), result.markdown);
});

test("public page: a scanned form's docket stamp is its running head", { timeout: 600_000 }, async () => {
  await assertPdfFacts("scan-appearance-of-counsel-form.pdf", [
    { absent: "Appeal: 17-2218 Doc: 17 Filed: 10/31/2017 Pg: 1 of 1" },
    { present: "APPEARANCE OF COUNSEL FORM" },
  ]);
});

test("a Persian manual page's running head beside its folio in Persian digits is left out", {
  timeout: 120_000,
}, async () => {
  await assertPdfFacts("fa-lshort-persian-p20.pdf", [
    { absent: "چیزهایی که باید بدانید" },
    { present: "برای توضیحات طولانی باید از محیط comment از بستۀ verbatim استفاده کرد" },
  ]);
});
