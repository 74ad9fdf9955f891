import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";
import { parseDocument } from "../index.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { respelled, rtlLigatureWords } from "./ligatures.ts";

/** An operator list drawing each word's glyphs (each glyph's characters given), words apart by a space glyph. */
function drawn(...words: string[][]): PDFOperatorList {
  const glyphs = words.flatMap((word, i) => [
    ...(i > 0 ? [{ unicode: " ", isSpace: true }] : []),
    ...word.map((unicode) => ({ unicode, isSpace: false })),
    -12,
  ]);
  return { fnArray: [OPS.showText], argsArray: [[glyphs]] };
}

test("a right-to-left word drawn with a lam-alef glyph is spelled with the glyph's letters in order", () => {
  // الإنتاجية drawn in visual order: ة ي ج ا ت ن, then the ligature (لإ), then ا.
  const words = rtlLigatureWords(drawn(["ة", "ي", "ج", "ا", "ت", "ن", "لإ", "ا"], ["ى", "ل", "إ"]));
  assert.deepEqual([...words], [["اإلنتاجية", "الإنتاجية"]]);
  // Only whole words change: إلى (drawn without a ligature) stays, and so does a word that merely contains the pair.
  assert.equal(respelled("تحسين اإلنتاجية إلى", words), "تحسين الإنتاجية إلى");
  assert.equal(respelled("باإلنتاجية", words), "باإلنتاجية");
});

test("a word cut into two-glyph pieces is respelled, unless the reversed spelling is a word of the page", () => {
  // بلا drawn as the ligature then ب: reversed, it reads بال.
  assert.deepEqual([...rtlLigatureWords(drawn(["لا", "ب"], ["ة", "ي", "ج"]))], [["بال", "بلا"]]);
  // بال (wing) drawn letter by letter on the same page: بال is ambiguous and stays as pdf.js reads it.
  assert.equal(rtlLigatureWords(drawn(["لا", "ب"], ["ل", "ا", "ب"])).size, 0);
});

test("single glyphs and words without a several-letter glyph give nothing", () => {
  assert.equal(rtlLigatureWords(drawn(["لا"], ["ة", "ي", "ج"])).size, 0);
  assert.equal(rtlLigatureWords(drawn(["f", "fi", "x"])).size, 0);
});

test("public: an Arabic page reads its lam-alef words in order, and Python apart from the Arabic beside it", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data/pdf/sources/right_to_left_01.pdf");
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
  });
  assert.match(result.markdown, /تحسين الإنتاجية وحل المشكلات من خلال البرمجة/);
  assert.doesNotMatch(result.markdown, /اإلنتاجية|المشكالت/);
  // The Latin word set touching the Arabic one after it stays a word of its own.
  assert.match(result.markdown, /R و Python من الأدوات/);
});

test("a word whose last glyph carries it with a space, its other glyphs mapped to nothing, is respelled alone", () => {
  // حَبيبي drawn as five glyphs with no characters and a sixth carrying "حَبيبي ": pdf.js's reversal reads " يبيبَح".
  const words = rtlLigatureWords(drawn(["", "", "", "", "", "حَبيبي "]));
  assert.deepEqual([...words], [["يبيبَح", "حَبيبي"]]);
  assert.equal(respelled("habibi يبيبَح", words), "habibi حَبيبي");
  // A glyph carrying letters of two words in another order ("حَبيبي h" then "abibi") respells nothing.
  assert.equal(rtlLigatureWords(drawn(["حَبيبي h", "a", "b", "i", "b", "i"])).size, 0);
});
