import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "./test-pdf.ts";

const CAMELOT = fileURLToPath(new URL("../../test/tables/camelot/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

/** A ToUnicode map reading each code as its ASCII character, but the point as a space and the point (" ."). */
const SPACED_POINT_MAP = [
  "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
  "/CMapName /Spaced-Point def /CMapType 2 def",
  "1 begincodespacerange <00> <FF> endcodespacerange",
  "2 beginbfrange <20> <2D> <0020> <2F> <7E> <002F> endbfrange",
  "1 beginbfchar <2E> <0020002E> endbfchar",
  "endcmap CMapName currentdict /CMap defineresource pop end end",
].join("\n");

function spacedPointPdf(content: string): Uint8Array {
  return onePagePdf(content, {
    fonts: [
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 6 0 R >>",
    ],
    objects: [`<< /Length ${SPACED_POINT_MAP.length} >>\nstream\n${SPACED_POINT_MAP}\nendstream`],
  });
}

test("a point its font maps to ' .' is kept, not taken for a space", async () => {
  const markdown = await markdownOf(spacedPointPdf("BT /F1 10 Tf 72 700 Td (Total 1,234.5 tonnes) Tj ET"));
  assert.match(markdown, /1,234 ?\.5/);
});

test("text drawn in an ActualText span reads as its ActualText, in place", async () => {
  const content = [
    // The typesetter's way with a decimal point: the glyph mapped to " .", its span saying ".".
    "BT /F1 10 Tf 72 700 Td (Total 4,321) Tj /Span <</ActualText (.)>> BDC (.) Tj EMC (9 tonnes) Tj ET",
    // A word whose glyphs read otherwise than the text they stand for; a blank span leaves its glyphs as drawn.
    "BT /F1 10 Tf 72 650 Td (Read ) Tj /Span <</ActualText (pdf)>> BDC (xyz) Tj EMC ( here, harbour) Tj /Span <</ActualText ()>> BDC (-) Tj EMC (side) Tj ET",
  ].join("\n");
  const markdown = await markdownOf(spacedPointPdf(content));
  assert.match(markdown, /Total 4,321\.9 tonnes/);
  assert.match(markdown, /Read pdf here/);
  assert.doesNotMatch(markdown, /xyz/);
  assert.match(markdown, /harbour-side/);
});

test("public: camelot's 12s0324 keeps the decimal point of every figure (its points are ActualText spans)", async () => {
  const bytes = readFileSync(path.join(CAMELOT, "12s0324.pdf"));
  const markdown = await markdownOf(bytes);
  for (const figure of ["11,062.6", "1,540.0", "9,522.6", "467.9", "1,396.4", "608.2"]) {
    assert.ok(markdown.includes(figure), `${figure} in the markdown`);
  }
  // A figure split where its point was (`11,062 6`) or glued over it (`11,0626`) is corruption.
  assert.doesNotMatch(markdown, /\b\d{1,3},\d{3} \d\b/);
});

test("an ActualText that is only a TeX macro's name (`\\faTrophy :`, an icon's) is no text: the icon reads as nothing", async () => {
  // altacv writes each icon's name through accsupp unexpanded; no reader sees `\faTrophy`, the icon is a picture.
  const content =
    "BT /F1 10 Tf 72 700 Td /Span <</ActualText (\\\\faTrophy :)>> BDC (T) Tj EMC ( Fantastic achievement) Tj ET";
  const markdown = await markdownOf(spacedPointPdf(content));
  assert.doesNotMatch(markdown, /faTrophy/);
  assert.match(markdown, /^Fantastic achievement$/m);
  // A span whose ActualText has words beside a macro's name still reads as its text.
  const worded = await markdownOf(
    spacedPointPdf(
      "BT /F1 10 Tf 72 700 Td /Span <</ActualText (see \\\\S 4)>> BDC (x) Tj EMC ( of the act) Tj ET",
    ),
  );
  assert.match(worded, /see \\S 4 of the act/);
});

test("an ActualText span read after pdf.js has sent a chunk of items (a font set inside the span) still replaces its glyphs", async () => {
  // Twelve words placed apart make twelve items; the font set inside the span makes pdf.js send them on before the
  // span's glyph is drawn, so the span's items are a new list by the time it ends.
  const words = Array.from({ length: 12 }, (_, i) => `(w${i}) Tj 30 0 Td`).join(" ");
  const content = `BT /F1 10 Tf 72 700 Td ${words} /Span <</ActualText (github: )>> BDC /F1 9 Tf (G) Tj EMC /F1 10 Tf (your_id) Tj ET`;
  const markdown = await markdownOf(spacedPointPdf(content));
  assert.match(markdown, /github: ?your_id/);
});
