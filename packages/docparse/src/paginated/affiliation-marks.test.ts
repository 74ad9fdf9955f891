import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

// An affiliation's raised letter opening its line (`ᵃDepartment of Physics`) is a mark, a word of its own
// (lines.ts, openingMarker), not the first letter of the word after it; a drop initial, larger, stays in its word.

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.markdown;
}

test("a raised letter opening an affiliation line is kept apart from its first word", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  page.drawText("On the lifetime of excitons in quantum wells", {
    x: 72,
    y: 720,
    size: 16,
    font: fonts.bold,
  });
  const affiliations = [
    "Department of Physics, Institute of Science, Trivandrum, India",
    "World Scientific University, Amsterdam",
  ];
  affiliations.forEach((text, i) => {
    const y = 690 - i * 12;
    const mark = "ab"[i];
    page.drawText(mark, { x: 72, y: y + 3.5, size: 6, font: fonts.regular });
    page.drawText(text, {
      x: 72 + fonts.regular.widthOfTextAtSize(mark, 6),
      y,
      size: 9,
      font: fonts.regular,
    });
  });
  page.drawText("T", { x: 72, y: 600, size: 30, font: fonts.regular });
  page.drawText("his paper opens with a large initial letter, set three lines deep beside its text.", {
    x: 72 + fonts.regular.widthOfTextAtSize("T", 30),
    y: 620,
    size: 10,
    font: fonts.regular,
  });
  const markdown = await markdownOf(await pdf.save());
  assert.match(markdown, /(^|\s)a Department of Physics/, markdown);
  assert.match(markdown, /(^|\s)b World Scientific/, markdown);
  assert.doesNotMatch(markdown, /aDepartment|bWorld/, markdown);
  assert.doesNotMatch(markdown, /\bT his paper/, markdown);
});

test("a journal page's affiliation letters stand apart from their words", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "elsevier-cas-dc-sample-p1.pdf")));
  const markdown = await markdownOf(bytes);
  assert.match(markdown, /a Department of Physics/);
  assert.match(markdown, /b World Scientific University/);
});
