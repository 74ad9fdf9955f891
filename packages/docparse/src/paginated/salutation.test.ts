import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { drawLine, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

// A letter's salutation and closing are paragraphs of their own on a page whose median gap is its blank lines
// (salutation.ts).

test("a short letter's salutation and closing stand apart from the one-line paragraphs a blank line away", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // Every paragraph a line, a blank line apart (a 24 pt pitch for 11 pt type), but one of two lines set solid:
  // the page's median gap is the blank line.
  const lines: [string, number][] = [
    ["March 3, 2024", 72],
    ["Dear Ms. Harbour,", 96],
    ["The ferry timetable for the spring crossings is enclosed with this letter for your office.", 120],
    ["Two more boats will call at the island on Sundays from April onwards.", 132],
    ["Kind regards,", 156],
    ["Tomas", 180],
  ];
  for (const [text, top] of lines) drawLine(page, text, 72, top, fonts.regular, 11);
  const { result } = await parseDocument({ bytes: await pdfBytes(pdf), mimeType: "application/pdf" });
  const paragraphs = result.markdown.trim().split("\n\n");
  assert.deepEqual(
    paragraphs,
    [
      "March 3, 2024",
      "Dear Ms. Harbour,",
      "The ferry timetable for the spring crossings is enclosed with this letter for your office. Two more boats will call at the island on Sundays from April onwards.",
      "Kind regards,",
      "Tomas",
    ],
    result.markdown,
  );
});

test("a paragraph's short first line ending in a comma goes on at the line gap", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const lines: [string, number][] = [
    ["In the spring,", 72],
    ["Two more boats will call at the island on Sundays from April onwards.", 85],
  ];
  for (const [text, top] of lines) drawLine(page, text, 72, top, fonts.regular, 11);
  const { result } = await parseDocument({ bytes: await pdfBytes(pdf), mimeType: "application/pdf" });
  assert.equal(result.markdown.trim().split("\n\n").length, 1, result.markdown);
});

test("a memo's salutation and closing are read apart from the date and the name (public letter)", async () => {
  const memo = await engineMarkdown(path.join(REAL_WORLD_DIR, "memo-letter.pdf"), []);
  assert.match(memo, /^May 5, 2023\n\nTo Whom it May Concern:\n\nThere were/, memo);
  assert.match(memo, /Best Regards,\n\nMallori/, memo);
});
