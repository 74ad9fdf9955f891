import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

const PROSE =
  "The committee met on the first of the month to hear the report of its staff on the budget, and it agreed " +
  "to publish the minutes of the meeting on its own site so that every member could read them before the vote.";

test("a short note at a single page's foot, opened by a raised small mark, is content, not a page footer", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "Notes from the Committee", 72, 72, fonts.bold, 18);
  const { next } = drawParagraph(page, PROSE, { x: 72, top: 110, width: 468, font: fonts.regular, size: 10 });
  // The body's note mark: a small raised `1` after its word.
  drawLine(page, "See the site.", 72, next + 4, fonts.regular, 10);
  drawLine(page, "1", 130, next + 2, fonts.regular, 6);
  // The note at the page's foot: its mark small and raised before a short label, no sentence.
  drawLine(page, "1", 72, 752, fonts.regular, 5);
  drawLine(page, "Majority Webpage", 76, 754, fonts.regular, 7);
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  const words = markdownSubject(result.markdown).words;
  assert.ok(words.includes(" majority webpage "), result.markdown);
  assert.ok(words.includes(" the committee met "), result.markdown);
});

test("public page: a newsletter's footnotes at its page's foot are kept", { timeout: 600_000 }, async () => {
  await assertPdfFacts("committee-times-newsletter.pdf", [
    { present: "Majority Webpage" },
    { present: "Minority Webpage" },
    { absent: "Committee Times MARCH 22, 2007" },
  ]);
});

test("a note under the first column is read after the page's body, not inside the sentence running on into the next column", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const column = { top: 72, width: 220, font: fonts.regular, size: 10 };
  const first = `${PROSE} ${PROSE} ${PROSE} The authorization bill is passed every year by the House but rarely by the`;
  drawParagraph(page, first, { ...column, x: 72 });
  drawParagraph(
    page,
    "Senate. In the last three years the Congress has not passed one, and the money flows from the other committee.",
    { ...column, x: 320 },
  );
  // The note at the page's foot under the first column, its mark small and raised.
  drawLine(page, "1", 72, 740, fonts.regular, 5);
  drawLine(page, "Majority Webpage", 76, 742, fonts.regular, 7);
  const { result } = await parseDocument({ bytes: await pdf.save(), mimeType: "application/pdf" });
  const md = result.markdown;
  const [end, runOn, note] = ["rarely by the", "Senate. In the last", "Majority Webpage"].map((t) =>
    md.indexOf(t),
  );
  assert.ok(end >= 0 && runOn > end && note > runOn, md);
});

test("public page: a newsletter's sentence runs on into the next column before the notes under the first", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("committee-times-newsletter.pdf", [
    { present: "is passed every year by the House but rarely by the Senate." },
    { before: ["rarely by the Senate.", "Majority Webpage"] },
  ]);
});
