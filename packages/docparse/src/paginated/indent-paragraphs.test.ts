import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { PDFFont, PDFPage } from "pdf-lib";
import { drawLine, newPdf, pdfBytes, wrapText } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

/** Paragraphs set as a report sets them: first line indented by `indent`, no gap between paragraphs. */
function drawIndented(page: PDFPage, paragraphs: readonly string[], font: PDFFont, indent: number): void {
  const x = 72;
  const width = 300;
  const size = 11;
  let top = 100;
  for (const text of paragraphs) {
    const [first] = wrapText(text, font, size, width - indent);
    drawLine(page, first, x + indent, top, font, size);
    top += size * 1.5;
    for (const line of wrapText(text.slice(first.length).trim(), font, size, width)) {
      drawLine(page, line, x, top, font, size);
      top += size * 1.5;
    }
  }
}

const PARAGRAPHS = [
  "Report of 23 pages, 25 figures, 2 sources.",
  "FERRIES, HARBOURS, TIDES, TIMETABLES, ISLANDS, CROSSINGS, PASSENGERS",
  "The subject of the study is the timetable of the island ferries.",
  "The aim of the work is to build a timetable of the ferries and a program with a window to read it, " +
    "so that passengers who miss one boat know when the next one calls.",
  "The work follows the house rules for reports.",
];

test("paragraphs set apart only by a first-line indent (one-line ones, a full last line) stay apart", async () => {
  const { pdf, fonts } = await newPdf();
  drawIndented(pdf.addPage([612, 792]), PARAGRAPHS, fonts.regular, 24);
  const markdown = await markdownOf(await pdfBytes(pdf));
  for (const paragraph of PARAGRAPHS)
    assert.match(markdown, new RegExp(`(^|\\n\\n)${paragraph.replace(/[.,]/g, "\\$&")}(\\n\\n|$)`), markdown);
});

test("a hanging indent (first line out, the others in) stays one paragraph", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const text =
    "[1] L. Lamport. A document preparation system, user's guide and reference manual, second edition, " +
    "published by the house that printed the first one, with corrections to every chapter of it.";
  const [first] = wrapText(text, fonts.regular, 11, 300);
  drawLine(page, first, 72, 100, fonts.regular, 11);
  let top = 116.5;
  for (const line of wrapText(text.slice(first.length).trim(), fonts.regular, 11, 276)) {
    drawLine(page, line, 96, top, fonts.regular, 11);
    top += 16.5;
  }
  const markdown = await markdownOf(await pdfBytes(pdf));
  assert.ok(markdown.includes(text), markdown);
});

test("a centred title whose middle line is the widest stays one block", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const title = [
    "Report on the ferry timetable",
    "of the island crossings and the harbour tides",
    "issued by the harbour office",
  ];
  title.forEach((text, i) => {
    const width = fonts.regular.widthOfTextAtSize(text, 11);
    drawLine(page, text, 306 - width / 2, 100 + i * 16.5, fonts.regular, 11);
  });
  const markdown = await markdownOf(await pdfBytes(pdf));
  assert.ok(markdown.includes(title.join(" ")), markdown);
});

test("public: the abstract page of a GOST report keeps its indented paragraphs apart", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}ru-lab-report-p1-3.pdf`));
  assert.match(markdown, /\n\nОтчёт 23 стр\., 25 рис\., 2 источн\.\.\n\nБАЗЫ ДАННЫХ/);
  assert.match(markdown, /СПРАВОЧНИК\n\nОбъектом исследования/);
  assert.match(markdown, /справочника\.\n\nЦель работы/);
});
