import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes, typeThreeLine } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";
import { textRun } from "../paginated/test-geometry.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { isListMarker } from "./list-markers.ts";
import { dropUnmapped } from "./text.ts";

/** A 10 pt run of `text` from `x` on the line whose top is `top`, half an em per character. */
const at = (text: string, x: number, top: number, unmapped = false) => ({
  ...textRun(text, { x1: x, y1: top, x2: x + text.length * 5, y2: top + 12 }),
  ...(unmapped ? { unmapped: true } : {}),
});

test("a lone unmapped glyph leading a line of text reads as a bullet; elsewhere it goes", () => {
  const marker = at("\uFFFD", 72, 100, true);
  const item = at("Ferries leave every hour", 90, 100);
  assert.equal(isListMarker(marker, [marker, item]), true);
  assert.deepEqual(
    dropUnmapped([marker, item]).map((run) => [run.text, run.unmapped]),
    [
      ["•", undefined],
      ["Ferries leave every hour", undefined],
    ],
  );
  // In the middle of a line (text just before it), at a line's end, or touching the next word: not a marker.
  const before = at("See", 52, 100);
  assert.equal(isListMarker(marker, [before, marker, item]), false);
  assert.equal(isListMarker(marker, [marker]), false);
  assert.equal(isListMarker(marker, [marker, at("word", 78, 100)]), false);
  // Text far to its right (a table's next column) does not make it a marker, nor does text on another line.
  assert.equal(isListMarker(marker, [marker, at("Total", 200, 100)]), false);
  assert.equal(isListMarker(marker, [marker, at("Ferries", 90, 130)]), false);
  // A symbol font's bullet read as a letter beside a blank glyph is one too; three glyphs are a word.
  assert.equal(isListMarker(at("r\uFFFD", 72, 100, true), [item]), true);
  assert.equal(isListMarker(at("ab\uFFFD", 72, 100, true), [item]), false);
  // An unmapped run of text after it is no item.
  assert.equal(isListMarker(marker, [marker, at("\uFFFD\uFFFD\uFFFD", 90, 100, true)]), false);
  // Nor do words OCR read where the font maps none of its glyphs: the lone glyph is one of their letters.
  assert.equal(isListMarker(marker, [marker, { ...item, fontName: "ocr", confidence: 0.9 }]), false);
});

test("items marked with a symbol-font glyph that maps to no character are list items, one per line", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const items = [
    "Ferries leave the harbour every hour.",
    "The museum opens at ten on weekdays.",
    "The market fills the square on Saturdays.",
  ];
  page.drawText("What the town offers:", { x: 72, y: PAGE_HEIGHT - 100, font: fonts.regular, size: 11 });
  items.forEach((text, i) => {
    const top = 120 + i * 18;
    // The bullet is a Type3 glyph with no character behind it, as symbol fonts without a ToUnicode give.
    typeThreeLine(pdf, page, "•", fonts.regular, { x: 80, top, size: 11 });
    page.drawText(text, { x: 96, y: PAGE_HEIGHT - top - 11 * 0.8, font: fonts.regular, size: 11 });
  });
  const { result } = await parseDocument({ bytes: await pdfBytes(pdf), mimeType: "application/pdf" });
  for (const text of items) assert.match(result.markdown, new RegExp(`^- ${text.replace(".", "\\.")}$`, "m"));
  assert.doesNotMatch(result.markdown, /\uFFFD/);
});

test("public: redp5110's and a survey's symbol-font bullets start list items", {
  skip: NO_CORPUS,
}, async () => {
  const parse = async (name: string) => {
    const bytes = new Uint8Array(readFileSync(corpusPath(`docling/tests/data/pdf/sources/${name}`)));
    return (await parseDocument({ bytes, mimeType: "application/pdf" })).result.markdown;
  };
  const redp = await parse("redp5110_sampled.pdf");
  assert.match(redp, /^- Work Function Usage \(WRKFCNUSG\)\n- Change Function Usage \(CHGFCNUSG\)$/m);
  // Its `r` and a blank glyph, drawn as a bullet: the list's items, not a stray letter in one paragraph.
  assert.match(
    redp,
    /^- Database performance and scalability\n- Advanced SQL knowledge and skills transfer$/m,
  );
  assert.doesNotMatch(redp, /\br Database performance/);
  const survey = await parse("table_mislabeled_as_picture.pdf");
  assert.match(survey, /^- They supervise, coach or mentor private practitioners who take legal aid cases$/m);
  // The options under question 25 (left half of the spread) and 26 (right half) sit at the same depth.
  assert.match(survey, /^ {4}- No\n26\. If your country allows/m);
  assert.match(survey, /^ {4}- Don’t know$/m);
});
