import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import type { PDFFont, PDFPage } from "pdf-lib";
import { drawLine, newPdf, pdfBytes, wrapText } from "../backends/pdf-fixtures.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

// A gap clearly wider than the gaps beside it parts paragraphs, whatever the page's median gap
// (paragraph-gaps.ts); a double-spaced page keeps its paragraphs whole.

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

/** Paragraphs wrapped in a 300 pt column from `top`, lines `pitch` apart, paragraphs a further `skip` apart. */
function drawParagraphs(
  page: PDFPage,
  paragraphs: readonly string[],
  options: { font: PDFFont; size: number; top: number; pitch: number; skip: number; indent?: number },
): void {
  const { font, size, pitch, skip, indent = 0 } = options;
  let top = options.top;
  for (const text of paragraphs) {
    const lines = wrapText(text, font, size, 300);
    lines.forEach((line, i) => {
      drawLine(page, line, i === 0 ? 72 + indent : 72, top, font, size);
      top += pitch;
    });
    top += skip;
  }
}

const LETTER = [
  "Hereby I wish to apply for a position at the harbour office.",
  "Following a general interest in ferries and tides, I studied the timetables of the island crossings " +
    "for three years and wrote a report on them for the office.",
  "Working as a clerk at the harbour, I learned how the boats are loaded and when they call.",
  "Please do not hesitate to contact me if details regarding my application are unclear.",
];

test("a letter's single-spaced paragraphs a blank line apart stay apart though its address is set wide", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // The sender's address at the right and the recipient's at the left, each four short lines on a wide pitch:
  // more gaps of theirs than of the paragraphs' lines, so the page's median gap is theirs.
  const sender = ["Philipp Maier", "Street 15", "1234AB G-Town", "The Netherlands"];
  for (const [i, text] of sender.entries()) drawLine(page, text, 420, 60 + i * 19, fonts.regular, 11);
  const recipient = ["Employer Research", "Research Department", "Harbour Road 1", "London"];
  for (const [i, text] of recipient.entries()) drawLine(page, text, 72, 150 + i * 19, fonts.regular, 11);
  drawParagraphs(page, LETTER, { font: fonts.regular, size: 11, top: 260, pitch: 13, skip: 8 });
  const markdown = await markdownOf(await pdfBytes(pdf));
  for (const paragraph of LETTER)
    assert.match(markdown, new RegExp(`(^|\\n\\n)${paragraph.replace(/[.,]/g, "\\$&")}(\\n\\n|$)`), markdown);
});

const BRIEF = [
  "Plaintiff and defendant, through their counsel, agree to extend the time for discovery by forty-five days, " +
    "so that the mediation set for the spring can take place before the experts are named.",
  "The parties believe that the extension will help them settle and will not change any other date the " +
    "court has set, including the date of the trial and of the conference before it.",
  "The parties therefore ask the court to enter the order below.",
];

test("a double-spaced page under a single-spaced caption keeps each paragraph whole", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // Counsel's names single-spaced at the top; then the body double-spaced, paragraphs parted by an indent only,
  // and the last one by a wider gap too; a single-spaced quotation between them.
  const counsel = ["DONALD W. CARLSON", "JOYCE C. WANG", "Attorneys for Defendant", "353 Sacramento Street"];
  for (const [i, text] of counsel.entries()) drawLine(page, text, 72, 60 + i * 13, fonts.regular, 11);
  drawParagraphs(page, BRIEF.slice(0, 2), {
    font: fonts.regular,
    size: 11,
    top: 160,
    pitch: 22,
    skip: 0,
    indent: 36,
  });
  const quote = "The court may extend a date it has set for good cause shown by the parties together.";
  for (const [i, line] of wrapText(quote, fonts.regular, 11, 240).entries())
    drawLine(page, line, 108, 320 + i * 13, fonts.regular, 11);
  drawParagraphs(page, BRIEF.slice(2), {
    font: fonts.regular,
    size: 11,
    top: 370,
    pitch: 22,
    skip: 0,
    indent: 36,
  });
  const markdown = await markdownOf(await pdfBytes(pdf));
  for (const paragraph of [...BRIEF, quote])
    assert.match(markdown, new RegExp(`(^|\\n\\n)${paragraph.replace(/[.,]/g, "\\$&")}(\\n\\n|$)`), markdown);
});

test("a letter's paragraphs set a blank line apart are read apart (public letters)", async () => {
  const letter = await engineMarkdown(path.join(REAL_WORLD_DIR, "cv-application-letter.pdf"), []);
  assert.match(letter, /in London\.\n\nFollowing a general interest/, letter);
  const tuda = await engineMarkdown(path.join(REAL_WORLD_DIR, "tuda-letter-p1.pdf"), []);
  assert.match(tuda, /Herren,\n\nDieses Template/, tuda);
  assert.match(tuda, /tudaletter-Klasse\.\n\nDie wichtigsten/, tuda);
  assert.match(tuda, /aufgelistet:\n\npremium=true/, tuda);
});
