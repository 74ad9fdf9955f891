import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf, pdfBytes, wrapText } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

// Labels set in the left margin on the prose's baselines, closer than a gutter, are read before the paragraph
// they stand beside, not as the first word of its line (margin-labels.ts).

const SETUP =
  "Each boat is entered once with its name and its home port before the timetable is printed, and the " +
  "entries are kept in the order the boats first called at the island during the season.";
const CALLS =
  "The calls of a boat are listed under its entry, each with the day and the hour it reached the pier, and a " +
  "call cancelled by the weather is marked so that the harbour office can see it at a glance.";

test("labels in the left margin are read before the paragraph they stand beside", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  let top = 100;
  const labelAt = (text: string, lineTop: number) =>
    drawLine(page, text, 100 - fonts.mono.widthOfTextAtSize(text, 9), lineTop + 1, fonts.mono, 9);
  for (const [p, text] of [SETUP, CALLS].entries()) {
    const lines = wrapText(text, fonts.regular, 11, 220);
    for (const [i, line] of lines.entries()) {
      drawLine(page, line, 110, top, fonts.regular, 11);
      if (p === 0 && i === 0) labelAt("addboat", top);
      if (p === 1 && i === 0) labelAt("addcall", top);
      if (p === 1 && i === 1) labelAt("cancel", top);
      top += 14;
    }
    top += 14;
  }
  const { result } = await parseDocument({ bytes: await pdfBytes(pdf), mimeType: "application/pdf" });
  // A label in a fixed-width face alone on its line reads as code; its fences do not matter here.
  const paragraphs = result.markdown
    .replace(/^```\n|\n```$/gm, "")
    .trim()
    .split("\n\n");
  assert.deepEqual(paragraphs, ["addboat", SETUP, "addcall\ncancel", CALLS], result.markdown);
});

test("a calendar manual's command names in its margin are read apart from the sentence beside them (public page)", async () => {
  await assertPdfFacts("termcal-class-calendar-p2.pdf", [
    {
      present:
        "The macros \\classday and \\noclassday declare that the specified day is, or is not, a class day",
    },
    { before: ["\\noclassday", "Available options"] },
  ]);
});
