import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { degrees } from "pdf-lib";
import { drawParagraph, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

const LEFT =
  "The ferry leaves the harbour at seven and returns before the evening tide, so passengers who miss it wait " +
  "for the morning boat.";
const RIGHT =
  "The market opens at noon and closes when the last boat of the day has left the quay, whatever the weather.";

test("a fold line set as a column of points between two panels is no text; the panels' text stays", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([792, 612]);
  drawParagraph(page, LEFT, { x: 40, top: 60, width: 300, font: fonts.regular, size: 10 });
  drawParagraph(page, RIGHT, { x: 440, top: 60, width: 300, font: fonts.regular, size: 10 });
  // The fold: points set sideways up the page's middle, as LaTeX's leaflet class sets it.
  page.drawText(Array.from({ length: 60 }, () => ".").join(" "), {
    x: 396,
    y: 20,
    size: 10,
    font: fonts.regular,
    rotate: degrees(90),
  });
  const markdown = await markdownOf(await pdfBytes(pdf));
  assert.doesNotMatch(markdown, /(?:\. ){8}/);
  assert.ok(markdown.includes(LEFT) && markdown.includes(RIGHT), markdown);
});

test("public: the brochure's fold lines are not read as paragraphs of points", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}leaflet-manual-outside-p1.pdf`));
  assert.doesNotMatch(markdown, /(?:\. ){8}/);
  assert.match(markdown, /A Document Preparation System/);
});
