import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { makeLine } from "./lines.ts";
import { PAGE_NUMBER_PHRASE, splitPageNumbers } from "./page-number-phrase.ts";
import { textRun } from "./test-geometry.ts";

const PROSE =
  "The spring meeting agreed to plant the new beds along the east wall before the end of the month, and the " +
  "members who keep the seed library will bring their lists to the next evening so that nothing is sown twice.";

/**
 * A one-page report: a large title in the top band, then a subtitle line lower than that band holding the page
 * number at `pageX` (close after the subtitle, or at the right margin), then the body.
 */
async function reportWords(pageX: number): Promise<string> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([792, 612]);
  drawLine(page, "QUARTERLY GARDEN EXPENSE REPORT", 220, 40, fonts.bold, 18);
  drawLine(page, "(Seed and tool costs only, shown in dollars)", 290, 72, fonts.regular, 9);
  drawLine(page, "Page 1 of 1", pageX, 72, fonts.regular, 9);
  for (const top of [110, 190])
    drawParagraph(page, PROSE, { x: 36, top, width: 700, font: fonts.regular, size: 10 });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  return markdownSubject(result.markdown).words;
}

test("a page number on a subtitle's line under the top band is left out, the subtitle kept", async () => {
  for (const pageX of [700, 470]) {
    const words = await reportWords(pageX);
    assert.ok(!words.includes(" page 1 of 1 "), `${pageX}: ${words}`);
    assert.ok(words.includes(" seed and tool costs only shown in dollars "), `${pageX}: ${words}`);
    assert.ok(words.includes(" quarterly garden expense report "), `${pageX}: ${words}`);
  }
});

/**
 * A one-page printout in one typewriter face: two short lines at the top left, a run code over the page number
 * (`Page 1`), the title and the run date on the page number's line, a subtitle under the title, then the body.
 */
async function printoutWords(): Promise<string> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([792, 612]);
  drawLine(page, "For:2210X", 36, 30, fonts.mono, 8);
  drawLine(page, "Page 1", 36, 39, fonts.mono, 8);
  drawLine(page, "COUNTY LIBRARY LOANS", 300, 39, fonts.mono, 8);
  drawLine(page, "OVERDUE ITEMS", 315, 48, fonts.mono, 8);
  drawLine(page, "Run : Mon, Apr-04-22", 580, 39, fonts.mono, 8);
  for (const top of [70, 150])
    drawParagraph(page, PROSE, { x: 36, top, width: 700, font: fonts.mono, size: 8 });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  return markdownSubject(result.markdown).words;
}

test("a page number on a line of its own under a printout's run code is left out, the run code kept", async () => {
  const words = await printoutWords();
  assert.ok(!words.includes(" page 1 "), words);
  assert.ok(words.includes(" for 2210x "), words);
  assert.ok(words.includes(" county library loans "), words);
});

test("page numbers that name themselves; a bare number or a sentence does not", () => {
  for (const text of [
    "Page 1 of 1",
    "Pg: 2 of 7",
    "page 4/9",
    "Page 12",
    "Seite 1 von 2",
    "Página 3 de 5",
    "Стр. 2 из 4",
  ])
    assert.ok(PAGE_NUMBER_PHRASE.test(text));
  for (const text of ["12", "Page one", "See page 4 of the report"])
    assert.ok(!PAGE_NUMBER_PHRASE.test(text));
});

test("public page: an expense report's `Page 1 of 1` on its subtitle's line is left out", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("pei-expense-disclosure-report.pdf", [
    { absent: "Page 1 of 1" },
    { present: "(All HST and GST transactions are excluded from this report)" },
  ]);
});

test("public page: a police printout's `Page 1` under its run code is left out, the run code kept", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("sjpd-property-report.pdf", [
    { absent: "Page 1" },
    { present: "For:1094N" },
    { present: "SAN JOSE POLICE DEPT" },
  ]);
});

/**
 * A page of prose with a deep foot margin: `1 von 2` centred at `countTop`, above the band where page numbers are
 * looked for, and, when `under`, a line of text under it.
 */
async function countPageWords(under: boolean): Promise<string> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  for (const top of [80, 200, 320, 440, 560])
    drawParagraph(page, PROSE, { x: 72, top, width: 450, font: fonts.regular, size: 10 });
  drawLine(page, "1 von 2", 282, 712, fonts.regular, 10);
  if (under) drawLine(page, "Druck der Schulgruppe am Nachmittag", 72, 760, fonts.regular, 10);
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  return markdownSubject(result.markdown).words;
}

test("a page count in words under all of a page's text, in its lowest fifth, is its page number", async () => {
  assert.ok(!(await countPageWords(false)).includes(" 1 von 2 "));
  // With text under it, the line is not the page's foot.
  assert.ok((await countPageWords(true)).includes(" 1 von 2 "));
});

test("a German exam page's `1 von 2` under a deep foot margin is its page number", {
  timeout: 120_000,
}, async () => {
  await assertPdfFacts("de-schule-klausur-p1.pdf", [{ absent: "1 von 2" }]);
});

test("a page number line whose parts stand apart (`Página 1`, `de 9`) stays one block", () => {
  const line = makeLine([
    textRun("Página 1", { x1: 500, y1: 20, x2: 540, y2: 29 }, { fontSize: 9 }),
    textRun("de 9", { x1: 546, y1: 20, x2: 566, y2: 29 }, { fontSize: 9 }),
  ]);
  const blocks = splitPageNumbers([{ lines: [line], box: { ...line.box } }], 792);
  assert.equal(blocks.length, 1);
});
