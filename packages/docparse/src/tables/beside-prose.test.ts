import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes, wrapText } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

/**
 * A list of references in columns (number, date, name, class) under a heading, beside a column of prose whose
 * lines share their baselines, a narrow gap between them (a patent's first page): the prose column is dropped,
 * and the list, read on its own lines, is a table. Read with the band's rivers, the heading set on the line of a
 * sentence of the prose closed the list's own.
 */
const REFERENCES: [string, string, string, string][] = [
  ["3,687,110", "8/1972", "Braunhut", "119/1"],
  ["3,859,961", "1/1975", "Willinger", "119/15"],
  ["4,265,381", "5/1981", "Muscatell", "224/148"],
  ["5,176,102", "1/1993", "Tracy", "119/19"],
  ["5,263,618", "11/1993", "Talavera", "224/148"],
];

test("a list of references in columns beside prose, drawn with pdf-lib: a table under its heading", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 8;
  const pitch = 10;
  const prose =
    "A vest or belt is integrally formed with tubular, pet receiving passageways which extend around the wearer's " +
    "body and terminate in pocket-like chambers for feeding and retrieval. Outer wall portions of the passageways " +
    "are transparent so that a pet moving along the passageways can be seen by a spectator, and graphics depicting " +
    "the pet's habitat are marked on the vest and extend across portions of the passageways.";
  drawLine(page, "ABSTRACT", 400, 110, fonts.bold, size);
  for (const [l, line] of wrapText(prose, fonts.regular, size, 230).entries()) {
    drawLine(page, line, 300, 130 + pitch * l, fonts.regular, size);
  }
  drawLine(page, "References Cited", 110, 120, fonts.bold, size);
  drawLine(page, "U.S. PATENT DOCUMENTS", 100, 140, fonts.regular, size);
  for (const [r, [number, date, name, klass]] of REFERENCES.entries()) {
    const top = 160 + pitch * r;
    drawLine(page, number, 72, top, fonts.regular, size);
    drawLine(page, date, 116, top, fonts.regular, size);
    drawLine(page, name, 152, top, fonts.regular, size);
    drawLine(page, klass, 282 - fonts.regular.widthOfTextAtSize(klass, size), top, fonts.regular, size);
  }
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const rows = markdownRows(result.markdown).map((row) => row.join("|"));
  assert.ok(rows.includes("3 859 961|1 1975|willinger|119 15"), result.markdown);
  assert.ok(result.markdown.includes("pocket-like chambers for feeding"), result.markdown);
});

test("public page: a patent's references cited beside its abstract read as a table", async () => {
  await assertPdfFacts("patent-pet-display-p1.pdf", [{ neighbours: ["3,859,961", "1/1975"] }]);
});
