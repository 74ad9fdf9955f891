import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

test("a numbered list going on in the next column starts its depth afresh there", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  // Two columns of questions, each with its answers indented under it.
  const column = (x: number, questions: [string, string[]][]) => {
    let top = 90;
    for (const [question, answers] of questions) {
      drawLine(page, question, x, top, fonts.regular, 10);
      top += 16;
      for (const answer of answers) {
        drawLine(page, `• ${answer}`, x + 18, top, fonts.regular, 10);
        top += 14;
      }
      top += 10;
    }
  };
  column(72, [
    ["1. Does the town run ferries?", ["Yes, every hour", "No"]],
    ["2. Is the museum open on Sundays?", ["Yes, all day", "No"]],
  ]);
  column(330, [["3. Is there a market in the square?", ["Yes, on Saturdays", "No"]]]);
  const { result } = await parseDocument({ bytes: await pdfBytes(pdf), mimeType: "application/pdf" });
  assert.match(
    result.markdown,
    /^2\. Is the museum open on Sundays\?\n {4}- Yes, all day\n {4}- No\n3\. Is there a market/m,
  );
  assert.match(result.markdown, /^3\. Is there a market in the square\?\n {4}- Yes, on Saturdays$/m);
});
