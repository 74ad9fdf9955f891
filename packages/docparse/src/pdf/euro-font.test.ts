import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import fontkit from "@pdf-lib/fontkit";
import { PDFDict, PDFDocument, PDFName } from "pdf-lib";
import { drawLine, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { euroFontText } from "./euro-font.ts";

test("every glyph of a eurosym font reads as the euro sign; other fonts keep their letters", () => {
  assert.equal(euroFontText("TeX-feymr10", "e"), "€");
  assert.equal(euroFontText("feybr10", "ABC"), "€€€");
  assert.equal(euroFontText("SFRM1095", "e"), "e");
  assert.equal(euroFontText("Feynman-Regular", "e"), "e");
});

/** A line with a price whose `e` is set in an embedded font named `fontName` (Liberation Sans renamed). */
async function priceLine(fontName: string): Promise<string> {
  const { pdf, fonts } = await newPdf();
  pdf.registerFontkit(fontkit);
  const page = pdf.addPage([400, 200]);
  const ttf = readFileSync(
    createRequire(import.meta.url).resolve("pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf"),
  );
  const euro = await pdf.embedFont(ttf, { subset: true });
  drawLine(page, "Der Roller kostet 300", 40, 80, fonts.regular, 12);
  drawLine(page, "e", 163, 80, euro, 12);
  drawLine(page, "im Monat.", 175, 80, fonts.regular, 12);
  // The font's names, as pdf-lib wrote them at saving, renamed.
  const saved = await PDFDocument.load(await pdf.save());
  for (const [, object] of saved.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict)) continue;
    for (const key of ["BaseFont", "FontName"]) {
      const name = object.get(PDFName.of(key));
      if (name && String(name).includes("LiberationSans")) object.set(PDFName.of(key), PDFName.of(fontName));
    }
  }
  const { result } = await parseDocument({ bytes: await saved.save(), mimeType: "application/pdf" });
  return result.markdown;
}

test("a made page's price set in eurosym's font reads with its euro sign; in another font, with its letter", async () => {
  assert.match(await priceLine("KCXMNX+TeX-feymr10"), /300 ?€ im Monat/u);
  assert.match(await priceLine("KCXMNX+Sans-Regular"), /300 ?e im Monat/u);
});

test("a German exam's price set with eurosym reads `300 €`", { timeout: 120_000 }, async () => {
  await assertPdfFacts("de-schule-klausur-p1.pdf", [{ present: "der ihr »300 €« antwortet" }]);
});
