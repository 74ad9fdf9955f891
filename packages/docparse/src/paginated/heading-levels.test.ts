import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { separateHeadingLevels } from "./heading-levels.ts";

const PROSE =
  "The spring meeting agreed to plant the new beds along the east wall before the end of the month, and the " +
  "members who keep the seed library will bring their lists to the next evening so that nothing is sown twice.";

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.markdown;
}

/** Heading lines of a markdown text. */
const headingLines = (markdown: string) => markdown.split("\n").filter((line) => line.startsWith("#"));

test("a report's opening heading, set smaller than its sections, is not put under them", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "The Garden Club Year", 72, 60, fonts.bold, 11);
  drawParagraph(page, PROSE, { x: 72, top: 90, width: 468, font: fonts.regular, size: 11 });
  drawLine(page, "Spring Planting", 72, 160, fonts.bold, 13);
  drawParagraph(page, PROSE, { x: 72, top: 186, width: 468, font: fonts.regular, size: 11 });
  drawLine(page, "Autumn Harvest", 72, 256, fonts.bold, 13);
  drawParagraph(page, PROSE, { x: 72, top: 282, width: 468, font: fonts.regular, size: 11 });
  const headings = headingLines(await markdownOf(await pdf.save()));
  const level = (text: string) => headings.find((h) => h.endsWith(` ${text}`))?.split(" ")[0].length;
  assert.ok(level("The Garden Club Year") !== undefined, headings.join("\n"));
  assert.ok((level("The Garden Club Year") ?? 9) <= (level("Spring Planting") ?? 0), headings.join("\n"));
});

test("two heading styles the size scale puts on one level are set one level apart", async () => {
  // A CV's entries: a job title in 12 points over its employer in bold 10, over a body in 10.
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "EXPERIENCE", 72, 60, fonts.bold, 18);
  let top = 100;
  for (const [job, company] of [
    ["Head Gardener", "Harbour Park Trust"],
    ["Seed Librarian", "Eastside Garden Club"],
  ]) {
    drawLine(page, job, 72, top, fonts.regular, 12);
    drawLine(page, company, 72, top + 18, fonts.bold, 10);
    drawParagraph(page, PROSE, { x: 72, top: top + 36, width: 468, font: fonts.regular, size: 10 });
    top += 110;
  }
  const headings = headingLines(await markdownOf(await pdf.save()));
  const level = (text: string) => headings.find((h) => h.endsWith(` ${text}`))?.split(" ")[0].length;
  assert.ok(
    level("Head Gardener") !== undefined && level("Harbour Park Trust") !== undefined,
    headings.join("\n"),
  );
  assert.ok((level("Harbour Park Trust") ?? 0) > (level("Head Gardener") ?? 9), headings.join("\n"));
});

test("public page: a LaTeX CV's job titles head their companies", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/altacv-sample-p1.pdf", import.meta.url));
  const headings = headingLines(await markdownOf(new Uint8Array(bytes)));
  assert.ok(headings.includes("### Job Title 1"), headings.join("\n"));
  assert.ok(headings.includes("#### Company 1"), headings.join("\n"));
});

test("public page: a Word report's title, set smaller than its sections, stands at their level", {
  skip: NO_CORPUS,
}, async () => {
  const bytes = readFileSync(corpusPath("docling/tests/data/pdf/sources/multi_page.pdf"));
  const headings = headingLines(await markdownOf(new Uint8Array(bytes)));
  assert.equal(headings[0], "## The Evolution of the Word Processor", headings.join("\n"));
  assert.ok(headings.includes("## Pre-Digital Era (19th - Early 20th Century)"), headings.join("\n"));
});

test("an opening heading two levels or more below the top is a label, and keeps its level", () => {
  const section = { level: 1, size: 20, bold: true, numbered: false };
  const label = { level: 3, size: 11, bold: true, numbered: false };
  separateHeadingLevels([label, section], label);
  assert.equal(label.level, 3);
  const title = { level: 2, size: 13, bold: true, numbered: false };
  separateHeadingLevels([title, { ...section }], title);
  assert.equal(title.level, 1);
});
