import assert from "node:assert/strict";
import { test } from "node:test";
import type { PDFPage } from "pdf-lib";
import { newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes, typeThreeLine } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { corkEncoded, corkLigatures } from "./cork-ligatures.ts";

test("a Cork-encoded bitmap font's codes 0x1B–0x1F read as ff, fi, fl, ffi, ffl; an OT1 font's are not taken so", () => {
  const names = (codes: number[]) => {
    const differences: (string | undefined)[] = [];
    for (const code of codes) differences[code] = `a${code}`;
    return differences;
  };
  // A T1 font: a ligature and accented letters above 0x7F named by their codes.
  assert.equal(corkEncoded(names([0x1c, 0x1d, 0x61, 0x65, 0xe1, 0xe9])), true);
  // OT1 has 128 codes: 0x1D is Æ there.
  assert.equal(corkEncoded(names([0x1c, 0x1d, 0x61, 0x65])), false);
  // Glyphs named for what they draw are read by their names, not here.
  const named: (string | undefined)[] = [];
  named[0x1d] = "fl";
  named[0xe9] = "eacute";
  assert.equal(corkEncoded(named), false);
  assert.equal(
    corkLigatures("Materiais \u001dutuantes, \u001cgura, su\u001ecient, e\u001bect, ba\u001fe"),
    "Materiais flutuantes, figura, sufficient, effect, baffle",
  );
});

/**
 * Writes `text` in a Type3 font laid out as dvips writes a Cork-encoded bitmap font: no ToUnicode, each glyph named
 * by its code (`a29`), letters at their Latin-1 codes and the ligatures `fi` and `fl` at 0x1C and 0x1D, each glyph
 * drawn in Helvetica so that the page shows the words.
 */
function corkLine(made: Awaited<ReturnType<typeof newPdf>>, page: PDFPage, text: string, top: number) {
  typeThreeLine(
    made.pdf,
    page,
    text,
    made.fonts.regular,
    { x: 72, top, size: 12 },
    {
      pieces: /fi|fl|[\s\S]/gu,
      code: (piece) => (piece === "fi" ? 0x1c : piece === "fl" ? 0x1d : piece.charCodeAt(0)),
      name: (code) => `a${code}`,
    },
  );
}

test("a page drawn with pdf-lib in a Cork-encoded bitmap font: its fi and fl ligatures read as letters", async () => {
  const made = await newPdf();
  const page = made.pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  corkLine(made, page, "Materiais flutuantes e figuras na página é", 100);
  const { result } = await parseDocument({
    bytes: await pdfBytes(made.pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  assert.ok(result.markdown.includes("Materiais flutuantes e figuras na página"), result.markdown);
});

test("public page: a Portuguese LaTeX cheat sheet set in Cork-encoded bitmap fonts reads its fl and fi", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("pt-latex-cheatsheet-p1.pdf", [
    { present: "Materiais flutuantes" },
    { present: "Adiciona uma figura numerada" },
    { present: "Título para o material flutuante" },
  ]);
});
