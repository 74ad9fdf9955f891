import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { PDFFont, PDFPage } from "pdf-lib";
import { drawLine, drawParagraph, newPdf, pdfBytes, wrapText } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

const CARD = [
  "Ada Lovelace",
  "Analyst, Engines Ltd",
  "42 Babbage Row, London",
  "Member of the Analytical Engine Society",
];

const PROSE =
  "The ferry leaves the harbour at seven and returns before the evening tide, so passengers who miss it wait " +
  "for the morning boat, which calls at every island on the way and takes most of the day to reach the town.";

test("short lines each ended by hand (a speaker's card) stay lines apart; wrapped prose stays one paragraph", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  CARD.forEach((line, i) => {
    drawLine(page, line, 72, 100 + i * 14, fonts.regular, 11);
  });
  drawParagraph(page, PROSE, { x: 72, top: 250, width: 200, font: fonts.regular, size: 11 });
  const markdown = await markdownOf(await pdfBytes(pdf));
  for (const line of CARD) assert.match(markdown, new RegExp(`(^|\\n\\n)${line}(\\n\\n|$)`), line);
  assert.ok(markdown.includes(PROSE), markdown);
});

test("public: the speaker card of the OpenSSF badges deck keeps its lines apart", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}openssf-badges-talk-slides.pdf`));
  for (const line of ["CRob, n, adj, and v", "Pronunciation: U.S. (K-rowb)", "42nd level Dungeon Master"]) {
    assert.match(markdown, new RegExp(`\\n\\n${line.replace(/[().]/g, "\\$&")}\\n\\n`), line);
  }
});

/** Words of `line` spread to fill `width` from `x` (a justified line), each word drawn on its own. */
function drawJustified(
  page: PDFPage,
  line: string,
  x: number,
  top: number,
  width: number,
  font: PDFFont,
): void {
  const words = line.split(" ");
  const inked = words.reduce((sum, word) => sum + font.widthOfTextAtSize(word, 10), 0);
  const space = words.length > 1 ? (width - inked) / (words.length - 1) : 0;
  let at = x;
  for (const word of words) {
    drawLine(page, word, at, top, font, 10);
    at += font.widthOfTextAtSize(word, 10) + space;
  }
}

const COLUMN =
  "Every boat that calls at the island is entered in the harbour book with its name, its home port and the " +
  "hour it reached the pier, and the office copies the book into the printed timetable each spring so that " +
  "passengers know which boats to expect on which days of the week.";

test("a justified column with one overfull line stays one paragraph, not a paragraph a line", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const lines = wrapText(COLUMN, fonts.regular, 10, 200);
  // A long file name that cannot break stands out past the column's edge into the gutter, as TeX sets an
  // overfull line.
  const overfull = "see HarbourBookTimetableOfTheWholeYearMore.txt";
  lines.splice(3, 0, overfull);
  lines.forEach((line, i) => {
    const top = 100 + i * 12;
    if (line === overfull) drawLine(page, line, 72, top, fonts.regular, 10);
    else if (i === lines.length - 1) drawLine(page, line, 72, top, fonts.regular, 10);
    else drawJustified(page, line, 72, top, 200, fonts.regular);
  });
  const right = "The right column holds the notes on the winter crossings, set apart by a wide gutter.";
  drawParagraph(page, right, { x: 380, top: 100, width: 150, font: fonts.regular, size: 10 });
  const markdown = await markdownOf(await pdfBytes(pdf));
  const paragraph = lines.join(" ");
  assert.ok(markdown.includes(paragraph), markdown);
});
