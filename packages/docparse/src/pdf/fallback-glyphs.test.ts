import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { codeOnlyFonts, fallbackGlyphs, withoutFallbackGlyphs } from "./fallback-glyphs.ts";
import { onePagePdf } from "./test-pdf.ts";

/** A glyph of a two-byte font: `code` read through ToUnicode as `unicode`, or as itself when `unicode` is left out. */
const glyph = (code: number, unicode = String.fromCodePoint(code)) => ({ unicode, originalCharCode: code });
const space = { unicode: " ", originalCharCode: 1, isSpace: true };

/** One font drawing the given glyphs. */
function drawn(font: string, glyphs: object[]): PDFOperatorList {
  return { fnArray: [OPS.setFont, OPS.showText], argsArray: [[font, 12], [glyphs]] };
}

// 블록체인에 mapped by ToUnicode from codes that are not their Unicode values.
const mapped = [0xcbe2, 0xc62b, 0xda82, 0xd546, 0xd39e].map((code, i) => glyph(code, "블록체인에"[i]));

test("in a font whose ToUnicode maps most codes elsewhere, the characters of glyphs read as their own code", () => {
  const glyphs = [...mapped, glyph(0xceea), glyph(0xd526), space, ...mapped, space, ...mapped, glyph(0xceea)];
  assert.deepEqual(
    [...fallbackGlyphs(drawn("f1", glyphs))].map(([font, chars]) => [font, [...chars]]),
    [["f1", ["컪", "픦"]]],
  );
  // A character one of the font's mapped glyphs gives is text, wherever it comes from.
  const also = [...mapped, ...mapped, glyph(0x1234, "컪"), glyph(0xceea)];
  assert.equal(fallbackGlyphs(drawn("f1", also)).size, 0);
});

test("fallback glyphs read as word breaks: a space between letters, nothing beside a space or at an end", () => {
  const chars = new Set(["컪", "픦"]);
  assert.equal(withoutFallbackGlyphs("블록체인에컪픦", chars), "블록체인에");
  assert.equal(withoutFallbackGlyphs("블록체인에컪블록체인에 컪방지", chars), "블록체인에 블록체인에 방지");
  assert.equal(withoutFallbackGlyphs("블록체인에", undefined), "블록체인에");
});

test("a font whose codes are mostly their own characters, or with few two-byte glyphs, is left alone", () => {
  const identity = [0xac00, 0xac01, 0xac02, 0xac03, 0xac04, 0xac05, 0xac06, 0xac07, 0xac08, 0xac09, 0xac0a];
  assert.equal(
    fallbackGlyphs(
      drawn(
        "f1",
        identity.map((code) => glyph(code)),
      ),
    ).size,
    0,
  );
  assert.equal(fallbackGlyphs(drawn("f1", [...mapped, glyph(0xceea)])).size, 0);
  // One-byte codes read as themselves are the usual case.
  const ascii = [..."Harbour lights"].map((c) => glyph(c.charCodeAt(0)));
  assert.equal(fallbackGlyphs(drawn("f1", [...mapped, ...mapped, ...ascii])).size, 0);
});

/** Two-byte codes 0x1000 + i for the letters a–z, mapped by ToUnicode; other codes are left out. */
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const letterCode = (c: string) => (0x1000 + LETTERS.indexOf(c)).toString(16);
const LETTER_CMAP = [
  "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def",
  "1 begincodespacerange <0000> <ffff> endcodespacerange",
  `27 beginbfchar <0003> <0020> ${[...LETTERS].map((c) => `<${letterCode(c)}> <00${c.charCodeAt(0).toString(16)}>`).join(" ")} endbfchar`,
  "endcmap CMapName currentdict /CMap defineresource pop end end",
].join("\n");

test("a glyph its font's ToUnicode leaves out, drawn in a show of its own, breaks the word it stands in", async () => {
  // A two-byte font (not embedded) that draws each cluster in its own show, as XeTeX sets Devanagari; the
  // glyph 0x0441 is not in the ToUnicode, so pdf.js reads it as U+0441 (Cyrillic es).
  const font =
    "<< /Type /Font /Subtype /Type0 /BaseFont /Helvetica /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 6 0 R >>";
  const cidFont =
    "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Helvetica /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 /FontDescriptor 8 0 R >>";
  const descriptor =
    "<< /Type /FontDescriptor /FontName /Helvetica /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 718 /Descent -207 /CapHeight 718 /StemV 80 >>";
  const show = (cluster: string) =>
    `<${[...cluster].map((c) => (c === "?" ? "0441" : c === " " ? "0003" : letterCode(c))).join("")}> Tj`;
  const clusters = [
    "fe",
    "rr",
    "y",
    " ",
    "cro",
    "ss",
    "in",
    "gs",
    " ",
    "ro",
    "se",
    "?",
    "ab",
    "ove",
    " ",
    "the",
    " ",
    "ti",
    "de",
  ];
  const content = `BT /F1 12 Tf 72 700 Td ${clusters.map(show).join(" ")} ET`;
  const bytes = onePagePdf(content, {
    fonts: [font],
    objects: [`<< /Length ${LETTER_CMAP.length} >>\nstream\n${LETTER_CMAP}\nendstream`, cidFont, descriptor],
  });
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  assert.match(result.markdown, /ferry crossings rose above the tide/);
  assert.doesNotMatch(result.markdown, /\u0441/);
});

test("public: XeTeX's Devanagari loses the conjuncts its font does not map, and its words stand apart", async () => {
  const file = new URL("../../test/real-world/hi-velthuis-xetex-examples-p1.pdf", import.meta.url);
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
  });
  // pdftotext reads the same page `उ यते द यं तीि ियं`: each unmapped conjunct a break.
  assert.match(result.markdown, /उ यते द यं/);
  assert.doesNotMatch(result.markdown, /[\u0300-\u036f\u0400-\u04ff]/);
});

test("public: a Korean diagram's labels lose the syllables its font does not map", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data/pdf/sources/skipped_1page.pdf");
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
  });
  assert.match(result.markdown, /블록체인에 방지/);
  assert.doesNotMatch(result.markdown, /컪|픦|쭖쩣/);
});

test("unit: in a two-byte font of another script, a one-byte code read as its own Latin-1 or Latin Extended character is a fallback", () => {
  // অপর বাহু: Bengali letters mapped from small glyph numbers, as a subset font numbers them.
  const bengali = [..."অপরবাহুসমানএবং"].map((c, i) => glyph(0x20 + i, c));
  const fallbacks = [glyph(0xbd), glyph(0x1da)];
  assert.deepEqual(
    [...fallbackGlyphs(drawn("f1", [...bengali, ...fallbacks]))].map(([font, chars]) => [
      font,
      [...chars].sort(),
    ]),
    [["f1", ["½", "ǚ"]]],
  );
  // ASCII read as itself in such a font is text; a one-byte font's Latin-1 (no code at 0x100 or more) is left alone.
  assert.equal(
    fallbackGlyphs(drawn("f1", [...bengali, glyph(0x31), glyph(0x1da)]))
      .get("f1")
      ?.has("1"),
    false,
  );
  assert.equal(fallbackGlyphs(drawn("f1", [...bengali, glyph(0xab)])).size, 0);
  // A Latin font's own characters are never taken, whatever its codes.
  const latin = [..."Harbour lights"].map((c, i) => glyph(0x20 + i, c));
  assert.equal(
    fallbackGlyphs(drawn("f1", [...latin, glyph(0xe9), glyph(0x1da)]))
      .get("f1")
      ?.has("é") ?? false,
    false,
  );
});

test("a Bengali page's conjuncts its subset font does not map are word breaks, not Latin letters", async () => {
  // Bengali letters at codes 0x0010…, a code 0x00BD and 0x01DA left out of the ToUnicode (pdf.js reads ½ and ǚ).
  const letters = [..."অপরবাহুসমানএবংহল"];
  const code = (i: number) => (0x10 + i).toString(16).padStart(4, "0");
  const cmap = [
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def",
    "1 begincodespacerange <0000> <ffff> endcodespacerange",
    `${letters.length + 1} beginbfchar <0003> <0020> ${letters.map((c, i) => `<${code(i)}> <${c.codePointAt(0)?.toString(16).padStart(4, "0")}>`).join(" ")} endbfchar`,
    "endcmap CMapName currentdict /CMap defineresource pop end end",
  ].join("\n");
  const font =
    "<< /Type /Font /Subtype /Type0 /BaseFont /Helvetica /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 6 0 R >>";
  const cidFont =
    "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Helvetica /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 /FontDescriptor 8 0 R >>";
  const descriptor =
    "<< /Type /FontDescriptor /FontName /Helvetica /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 718 /Descent -207 /CapHeight 718 /StemV 80 >>";
  const word = (text: string) =>
    [...text]
      .map((c) => (c === "½" ? "00bd" : c === "ǚ" ? "01da" : c === " " ? "0003" : code(letters.indexOf(c))))
      .join("");
  const content = `BT /F1 12 Tf 72 700 Td <${word("অপর ǚবাহু সমান এবং হল½ অপর বাহু")}> Tj ET`;
  const bytes = onePagePdf(content, {
    fonts: [font],
    objects: [`<< /Length ${cmap.length} >>\nstream\n${cmap}\nendstream`, cidFont, descriptor],
  });
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  assert.match(result.markdown, /অপর বাহু সমান এবং হল অপর বাহু/);
  assert.doesNotMatch(result.markdown, /[½ǚ]/);
});

test("public: a Bangla manual's code box reads no Latin letters for the conjuncts its font does not map", async () => {
  const file = new URL("../../test/real-world/bn-latexbangla-p2.pdf", import.meta.url);
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
  });
  // pdftotext reads the same line `অপর ই বা র`: each unmapped conjunct a break.
  assert.match(result.markdown, /অপর ই বা/);
  assert.doesNotMatch(result.markdown, /[½ÊùíðÑǚȉƆǳļĶȊǴĄ]/);
});

test("unit: a two-byte font whose every glyph reads as its own code, in four scripts or more, is glyph numbers", () => {
  // 뻛ȗؘ뻜̾Ɠ Պʚ դ: Hangul, Latin, Arabic, Armenian, Greek.
  const numbers = [0xbedb, 0x217, 0x618, 0xbedc, 0x33e, 0x193, 0x54a, 0x29a, 0x564, 0x3dd].map((code) =>
    glyph(code),
  );
  assert.deepEqual([...codeOnlyFonts(drawn("f1", numbers))], ["f1"]);
  // A font using Unicode as its codes reads as Chinese with Latin: text.
  const unicode = [..."数学理科注意事项Ab"].map((c) => glyph(c.codePointAt(0) ?? 0));
  assert.equal(codeOnlyFonts(drawn("f1", unicode)).size, 0);
  // One glyph mapped elsewhere by a ToUnicode: the font has a map, and is left to the fallback rules.
  assert.equal(codeOnlyFonts(drawn("f1", [...numbers, glyph(0x20, "数")])).size, 0);
});

/** Glyph numbers of a heading font, and a ToUnicode sending each to its own code, as pdf.js reads them without one. */
const NUMBERS = ["bedb", "0217", "0618", "bedc", "033e", "0193", "054a", "029a", "0564", "03dd"];
const OWN_CODES = [
  "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def",
  "1 begincodespacerange <0000> <ffff> endcodespacerange",
  `${NUMBERS.length} beginbfchar ${NUMBERS.map((n) => `<${n}> <${n}>`).join(" ")} endbfchar`,
  "endcmap CMapName currentdict /CMap defineresource pop end end",
].join("\n");

test("a heading in a font without a ToUnicode, its glyph numbers no characters, reads no scattered letters", async () => {
  const font =
    "<< /Type /Font /Subtype /Type0 /BaseFont /Helvetica /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 9 0 R >>";
  const cidFont =
    "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Helvetica /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 /FontDescriptor 8 0 R >>";
  const descriptor =
    "<< /Type /FontDescriptor /FontName /Helvetica /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 718 /Descent -207 /CapHeight 718 /StemV 80 >>";
  const content = [
    "BT /F2 12 Tf 72 720 Td (Notes for candidates) Tj ET",
    `BT /F1 14 Tf 72 700 Td <${NUMBERS.slice(0, 6).join("")}> Tj ET`,
    `BT /F1 14 Tf 72 680 Td <${NUMBERS.slice(6).join("")}> Tj ET`,
    "BT /F2 12 Tf 72 660 Td (Write your name on the answer sheet.) Tj ET",
  ].join("\n");
  const bytes = onePagePdf(content, {
    fonts: [font, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"],
    objects: [cidFont, descriptor, `<< /Length ${OWN_CODES.length} >>\nstream\n${OWN_CODES}\nendstream`],
  });
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  assert.match(result.markdown, /Write your name on the answer sheet/);
  assert.doesNotMatch(result.markdown, /[^ -~\n]/u);
});

test("public: a Chinese exam's headings, set in a font without a ToUnicode, are read by OCR", async () => {
  await assertPdfFacts("zh-exam-math-p1.pdf", [{ present: "数学(理科)" }, { present: "注意事项" }]);
});
