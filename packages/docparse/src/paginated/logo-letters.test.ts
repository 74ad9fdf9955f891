import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";

/**
 * TeX's `XeLaTeX` logo as XeTeX draws it: `X` closing a run, the `E` mirrored and lowered, `L`, a small `A`
 * raised and kerned into it, `TEX`; then the same words spaced letter by letter on one baseline.
 */
function logoPage(): Uint8Array {
  const content = [
    "BT /F1 12 Tf",
    "1 0 0 1 72 700 Tm (thanks to the X) Tj",
    "-1 0 0 1 164 697.5 Tm (E) Tj",
    "1 0 0 1 162.6 700 Tm (L) Tj",
    "0.73 0 0 0.73 165.6 702.2 Tm (A) Tj",
    "1 0 0 1 170 700 Tm (TEX engine.) Tj",
    "1 0 0 1 72 660 Tm (Spaced: T E X) Tj",
    "ET",
  ].join("\n");
  return onePagePdf(content);
}

test("a logo's letters on several baselines, one mirrored, read as one word; letters spaced on one line stay apart", async () => {
  const { result } = await parseDocument({ bytes: logoPage(), mimeType: "application/pdf" });
  assert.match(result.markdown, /the XELATEX engine\./, result.markdown);
  assert.match(result.markdown, /Spaced: T E X/, result.markdown);
});

test("public: a Bangla manual page's XeLaTeX and XeTeX logos read as words", async () => {
  await assertPdfFacts("bn-latexbangla-p2.pdf", [
    { present: "Including any unicode text in LaTeX has become very simple thanks to the XeLaTeX engine." },
    { present: "by exploiting XeTeX’s internal character class feature" },
  ]);
});
