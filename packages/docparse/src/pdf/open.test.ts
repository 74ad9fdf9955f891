import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import { DocumentLoadError } from "../model.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { closePdf, openPdf } from "./open.ts";
import { HELVETICA, onePagePdf } from "./test-pdf.ts";

/** A file of Docling's test data in the shared corpus; only called by tests that skip without it. */
const corpus = (path: string) => readFileSync(corpusPath("docling/tests/data", path));

/** A Japanese font that is not embedded: pdf.js needs the predefined CMap and the CID → Unicode map from disk. */
const KOZMIN =
  "<< /Type /Font /Subtype /Type0 /BaseFont /KozMinPr6N-Regular /Encoding /UniJIS-UCS2-H /DescendantFonts [<< " +
  "/Type /Font /Subtype /CIDFontType0 /BaseFont /KozMinPr6N-Regular " +
  "/CIDSystemInfo << /Registry (Adobe) /Ordering (Japan1) /Supplement 6 >> /FontDescriptor << /Type /FontDescriptor " +
  "/FontName /KozMinPr6N-Regular /Flags 4 /FontBBox [0 -120 1000 880] /ItalicAngle 0 /Ascent 880 /Descent -120 " +
  "/CapHeight 700 /StemV 80 >> >>] >>";

function loadError(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof DocumentLoadError, String(error));
    assert.equal(error.code, "INVALID_FILE");
    assert.match(error.message, pattern);
    return true;
  };
}

describe("openPdf", () => {
  const protectedPdf = () => corpus("pdf_password/sources/2206.01062_pg3.pdf");

  test("a password-protected PDF without its password is refused, saying a password is needed", {
    skip: NO_CORPUS,
  }, async () => {
    await assert.rejects(openPdf(protectedPdf()), loadError(/password-protected: a password is needed/));
  });

  test("with a wrong password it is refused, saying the password is wrong", { skip: NO_CORPUS }, async () => {
    await assert.rejects(
      openPdf(protectedPdf(), { password: "4321" }),
      loadError(/password-protected.*wrong/),
    );
  });

  test("with its password it opens and its text reads", { skip: NO_CORPUS }, async () => {
    const doc = await openPdf(protectedPdf(), { password: "1234" });
    try {
      assert.equal(doc.numPages, 1);
      const page = await doc.getPage(1);
      const text = (await page.getTextContent()).items
        .map((item) => ("str" in item ? item.str : ""))
        .join(" ");
      assert.match(text, /DocLayNet/);
    } finally {
      await closePdf(doc);
    }
  });

  test("the caller's bytes are left intact (pdf.js takes over the buffer it is given)", {
    skip: NO_CORPUS,
  }, async () => {
    const bytes = corpus("pdf/invisible_text_layer.pdf");
    const length = bytes.byteLength;
    await closePdf(await openPdf(bytes));
    assert.equal(bytes.byteLength, length);
    assert.equal(bytes.subarray(0, 5).toString(), "%PDF-");
  });

  test("random bytes, HTML and an empty file are not PDFs", async () => {
    let seed = 7;
    const random = Uint8Array.from({ length: 4096 }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed & 0xff;
    });
    await assert.rejects(openPdf(random), loadError(/not a PDF/));
    await assert.rejects(
      openPdf(new TextEncoder().encode("<html><body>hi</body></html>")),
      loadError(/not a PDF/),
    );
    await assert.rejects(openPdf(new Uint8Array(0)), loadError(/empty/));
  });

  test("a truncated PDF (the first half of a corpus file) is refused", { skip: NO_CORPUS }, async () => {
    for (const path of ["pdf/sources/redp5110_sampled.pdf", "pdf/sources/2305.03393v1-pg9.pdf"]) {
      const bytes = corpus(path);
      await assert.rejects(
        openPdf(bytes.subarray(0, bytes.byteLength >> 1)),
        loadError(/damaged or truncated/),
      );
    }
  });

  test("a PDF with more pages than allowed is refused before any page is read", {
    skip: NO_CORPUS,
  }, async () => {
    await assert.rejects(
      openPdf(corpus("pdf/sources/redp5110_sampled.pdf"), { maxPages: 10 }),
      loadError(/18 pages; at most 10/),
    );
  });

  test("standard fonts and CJK CMaps load from pdfjs-dist's folders, offline", async () => {
    const doc = await openPdf(
      onePagePdf("BT /F1 24 Tf 72 700 Td <65E5672C8A9E> Tj ET BT /F2 12 Tf 72 600 Td (Helvetica) Tj ET", {
        fonts: [KOZMIN, HELVETICA],
      }),
    );
    try {
      const page = await doc.getPage(1);
      const ops = await page.getOperatorList();
      const strings = (await page.getTextContent()).items.map((item) => ("str" in item ? item.str : ""));
      assert.ok(strings.includes("日本語"), JSON.stringify(strings));
      // Helvetica is not embedded: with the standard font data pdf.js has its glyphs, without it `missingFile`.
      const fontIds = ops.fnArray.flatMap((fn, i) =>
        fn === OPS.setFont ? [ops.argsArray[i][0] as string] : [],
      );
      const helvetica = fontIds
        .map((id) => page.commonObjs.get(id) as { name: string; missingFile: boolean })
        .find((f) => f.name === "Helvetica");
      assert.equal(helvetica?.missingFile, false);
    } finally {
      await closePdf(doc);
    }
  });
});
