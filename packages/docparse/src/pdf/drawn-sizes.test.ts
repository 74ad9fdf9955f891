import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { parseDocument } from "../index.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { extractPdfPage } from "./extract.ts";
import { openPdf } from "./open.ts";
import { HELVETICA, onePagePdf } from "./test-pdf.ts";

const TIMES = "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>";

/**
 * A paragraph set as some producers write it: the font at size 1, the size given by the text matrix, fractions
 * with a small numerator and denominator and the slash in another font. Each part is placed where the one before
 * ends, so pdf.js carries on the item begun by the small denominator with the body text after it.
 */
async function fractionParagraph(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const helvetica = await pdf.embedFont(StandardFonts.Helvetica);
  const times = await pdf.embedFont(StandardFonts.TimesRoman);
  // The fraction slash is drawn in a font of its own (/F2), so the denominator starts a new item.
  const width = (text: string, size: number) =>
    (text === "/" ? times : helvetica).widthOfTextAtSize(text, size);
  // [text, size, rise]: a fraction's numerator set high, its denominator on the baseline.
  const parts: [string, number, number][][] = [
    [
      ["Wing nuts range in size from No. 6 up to ", 10, 0],
      ["1", 5.5, 3],
      ["/", 10, 0],
      ["4", 5.5, 0],
      [" inch, and the Rol-top", 10, 0],
    ],
    [
      ["ones from ", 10, 0],
      ["3", 5.5, 3],
      ["/", 10, 0],
      ["8", 5.5, 0],
      [" inch to half an inch, and the bellows type", 10, 0],
    ],
    [["nuts are made of anodized aluminum alloy.", 10, 0]],
  ];
  let content = "BT /F1 1 Tf\n";
  parts.forEach((line, i) => {
    let x = 72;
    const y = 700 - i * 12.5;
    for (const [text, size, rise] of line) {
      // Each part goes on from where the one before ends.
      const font = text === "/" ? "/F2 1 Tf " : "/F1 1 Tf ";
      content += `${font}${size} 0 0 ${size} ${x.toFixed(3)} ${y + rise} Tm (${text}) Tj\n`;
      x += width(text, size);
    }
  });
  return onePagePdf(`${content}ET`, { fonts: [HELVETICA, TIMES] });
}

test("an item pdf.js sizes from a small first digit takes the size most of its characters are drawn at", async () => {
  const doc = await openPdf(await fractionParagraph());
  try {
    const page = await extractPdfPage(doc, 1);
    const after = page.runs.find((run) => run.text.includes("inch to half an inch"));
    assert.ok(after, page.runs.map((run) => run.text).join(" | "));
    assert.equal(after.fontSize, 10);
    const digit = page.runs.find((run) => run.text === "3");
    assert.equal(digit?.fontSize, 5.5);
  } finally {
    await doc.destroy();
  }
  // One paragraph: the line mostly drawn after a small digit is not read as a line of small type.
  const { result } = await parseDocument({ bytes: await fractionParagraph(), mimeType: "application/pdf" });
  assert.match(
    result.markdown,
    /up to 1\/4 inch, and the Rol-top ones from 3\/8 inch to half an inch, and the bellows type nuts are made/,
  );
});

test("public: amt_handbook's paragraph with fractions set by the text matrix stays one paragraph", {
  skip: NO_CORPUS,
}, async () => {
  const bytes = new Uint8Array(
    readFileSync(corpusPath("docling/tests/data/pdf/sources/amt_handbook_sample.pdf")),
  );
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  assert.match(
    result.markdown,
    /up to 1⁄4 inch, the Rol-top ranges from 1⁄4 inch to 1⁄6 inch, and the bellows type ranges/,
  );
});
