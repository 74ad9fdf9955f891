import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFOperatorList } from "pdfjs-dist/types/src/display/api.js";
import { parseDocument } from "../index.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { fallbackGlyphWords } from "./fallback-glyphs.ts";

/** A glyph of a two-byte font: `code` read through ToUnicode as `unicode`, or as itself when `unicode` is left out. */
const glyph = (code: number, unicode = String.fromCodePoint(code)) => ({ unicode, originalCharCode: code });
const space = { unicode: " ", originalCharCode: 1, isSpace: true };

/** One font drawing the given glyphs. */
function drawn(font: string, glyphs: object[]): PDFOperatorList {
  return { fnArray: [OPS.setFont, OPS.showText], argsArray: [[font, 12], [glyphs]] };
}

// 블록체인에 mapped by ToUnicode from codes that are not their Unicode values.
const mapped = [0xcbe2, 0xc62b, 0xda82, 0xd546, 0xd39e].map((code, i) => glyph(code, "블록체인에"[i]));

test("in a font whose ToUnicode maps most codes elsewhere, glyphs read as their own code are left out", () => {
  const glyphs = [
    ...mapped,
    glyph(0xceea),
    glyph(0xd526),
    space,
    ...mapped,
    space,
    ...mapped,
    glyph(0xceea),
    ...mapped,
  ];
  const words = fallbackGlyphWords(drawn("f1", glyphs));
  assert.deepEqual(
    [...words],
    [
      ["블록체인에컪픦", "블록체인에"],
      ["블록체인에컪블록체인에", "블록체인에 블록체인에"],
    ],
  );
});

test("a font whose codes are mostly their own characters, or with few two-byte glyphs, is left alone", () => {
  const identity = [0xac00, 0xac01, 0xac02, 0xac03, 0xac04, 0xac05, 0xac06, 0xac07, 0xac08, 0xac09, 0xac0a];
  assert.equal(
    fallbackGlyphWords(
      drawn(
        "f1",
        identity.map((code) => glyph(code)),
      ),
    ).size,
    0,
  );
  assert.equal(fallbackGlyphWords(drawn("f1", [...mapped, glyph(0xceea)])).size, 0);
  // One-byte codes read as themselves are the usual case.
  const ascii = [..."Harbour lights"].map((c) => glyph(c.charCodeAt(0)));
  assert.equal(fallbackGlyphWords(drawn("f1", [...mapped, ...mapped, ...ascii])).size, 0);
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
