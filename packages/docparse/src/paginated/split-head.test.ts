import assert from "node:assert/strict";
import { test } from "node:test";
import { drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { splitRunningHeads } from "./split-head.ts";

const block = (text: string, x1: number, y1: number, x2: number, y2: number) => ({
  page: 1,
  text,
  fontSize: 8,
  box: { x1, y1, x2, y2 },
});

test("splitRunningHeads takes a folio and a title at the two ends of the text's first line", () => {
  const body = [
    block("Body of the left column", 130, 180, 290, 600),
    block("Body of the right", 305, 180, 470, 600),
  ];
  const head = [
    block("Pt. 2", 130, 158, 149, 168),
    block("5 CFR Ch. I (1-1-22 Edition)", 380, 158, 470, 168),
  ];
  assert.deepEqual(splitRunningHeads([...head, ...body, block("8", 295, 620, 300, 628)], 8), [0, 1]);
  // No folio: a name and a date at the two ends (a letter's first line) stay.
  const letter = [block("Jane Smith", 130, 158, 170, 168), block("12 March 2020", 420, 158, 470, 168)];
  assert.deepEqual(splitRunningHeads([...letter, ...body, block("Yours", 130, 620, 160, 628)], 8), []);
  // Two column headings on the first line: the right one does not reach the text's right edge.
  const headings = [block("1 Scope", 130, 158, 160, 168), block("3 Terms", 305, 158, 335, 168)];
  assert.deepEqual(splitRunningHeads([...headings, ...body, block("8", 295, 620, 300, 628)], 8), []);
  // A slide's title beside its number on the first line is the slide's own.
  const slide = [{ ...block("Results", 130, 152, 170, 168), fontSize: 14 }, block("14", 460, 158, 470, 168)];
  assert.deepEqual(splitRunningHeads([...slide, ...body, block("Notes", 130, 620, 160, 628)], 8), []);
});

/** A page with a wide border, as a photographed page: a split running head over two columns of a regulation. */
async function regulationPage(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const size = 8;
  page.drawText("Pt. 4", { x: 130, y: 792 - 170, size, font: fonts.bold });
  const title = "9 ABC Ch. II (2-2-23 Edition)";
  page.drawText(title, {
    x: 470 - fonts.bold.widthOfTextAtSize(title, size),
    y: 792 - 170,
    size,
    font: fonts.bold,
  });
  const left =
    "(a) The board shall keep a register of every ferry licensed under this part, with the name of its master, " +
    "the quays it serves and the number of passengers it may carry, and (B) the crossings for which the licence";
  const right =
    "was granted when the register was first opened. (b) The register shall be open to the public at the harbour " +
    "office during working hours, and a copy shall be sent to each quay master at the start of the season.";
  drawParagraph(page, left, { x: 130, top: 190, width: 160, font: fonts.regular, size });
  drawParagraph(page, right, { x: 310, top: 190, width: 160, font: fonts.regular, size });
  return pdf.save();
}

test("a split running head over two columns is the page's header, and the sentence runs on across it", async () => {
  const { result } = await parseDocument({
    bytes: await regulationPage(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  assert.doesNotMatch(result.markdown, /Pt\. 4|ABC Ch/, result.markdown);
  assert.match(result.markdown.replace(/\s+/g, " "), /for which the licence was granted/, result.markdown);
});

test("a photographed two-column regulation page drops its running head", { timeout: 600_000 }, async () => {
  await assertPdfFacts("scan-cfr-two-column-p8.pdf", [
    { present: "and (B) positions where OPM is statutorily precluded from prescribing such standards." },
  ]);
});
