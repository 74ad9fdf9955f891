import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { symbolFontText } from "./symbol-font.ts";
import { onePagePdf } from "./test-pdf.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

/** A ToUnicode map as Word writes it for Symbol: each code to U+F000 plus the code. */
const SYMBOL_PUA_MAP = [
  "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
  "/CMapName /Symbol-PUA def /CMapType 2 def",
  "1 begincodespacerange <00> <FF> endcodespacerange",
  "1 beginbfrange <20> <FF> <F020> endbfrange",
  "endcmap CMapName currentdict /CMap defineresource pop end end",
].join("\n");

function symbolPdf(baseFont: string): Uint8Array {
  return onePagePdf(
    // "Tolerance " in Helvetica, then ± 5 ° in the symbol font: codes B1, 35, B0.
    "BT /F1 11 Tf 72 700 Td (Tolerance ) Tj /F2 11 Tf <B120355B> Tj /F1 11 Tf ( at 20) Tj /F2 11 Tf <B0> Tj ET",
    {
      fonts: [
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        `<< /Type /Font /Subtype /Type1 /BaseFont /${baseFont} /ToUnicode 7 0 R >>`,
      ],
      objects: [`<< /Length ${SYMBOL_PUA_MAP.length} >>\nstream\n${SYMBOL_PUA_MAP}\nendstream`],
    },
  );
}

test("Symbol's private-use codes read as the characters Symbol draws there", () => {
  assert.equal(symbolFontText("Symbol", "\uF0B1 \uF061\uF0B4\uF062 \uF0B3 \uF0A5"), "± α×β ≥ ∞");
  assert.equal(symbolFontText("SymbolMT", "\uF02D\uF070"), "−π");
  // Another symbol font's pictures at the same codes are not Symbol's characters.
  assert.equal(symbolFontText("Wingdings", "\uF0B1"), "\uF0B1");
});

test("a page in Word's Symbol reads ± and °, not private-use codes", async () => {
  const markdown = await markdownOf(symbolPdf("Symbol"));
  assert.match(markdown, /Tolerance ± 5\[? at 20°/);
  assert.doesNotMatch(markdown, /[\uF000-\uF0FF]/);
});

test("public: the Thai exam page reads its Symbol signs (±, +, =, ⋅)", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}th-math-exam-p3.pdf`));
  assert.match(markdown, /Im\(z \+ i\)/);
  assert.match(markdown, /± 3k/);
  // The minus and its 1 are separate runs with a space glyph between them: read in the line (no longer in a
  // false table's cell, which ignored drawn spaces), they keep it.
  assert.match(markdown, /i2 = − ?1/);
});
