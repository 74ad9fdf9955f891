/**
 * `node packages/docparse/src/eval/unread-crops.ts [--file name]`: what text outside the text layer costs. Per
 * PDF of the evaluation sets, how many regions of its text-layer pages are cropped for OCR (outlined glyphs,
 * unmapped glyphs, rows of text in images: pdf/unread-text.ts) and where; then the totals, and those of the
 * born-digital PDFs the API bench is built from (docling's `pdf/sources`).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DOCUMENT_PAGE_OPTIONS, extractPdfPage } from "../pdf/extract.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import { ocrCrops, unreadText } from "../pdf/unread-text.ts";
import { evalPdfs } from "./pdf-sets.ts";

const { values } = parseArgs({ options: { file: { type: "string" } } });
const totals = { pages: 0, crops: 0, benchPages: 0, benchCrops: 0 };
for (const pdf of evalPdfs()) {
  if (values.file && !pdf.id.endsWith(values.file)) continue;
  const doc = await openPdf(new Uint8Array(readFileSync(pdf.path)));
  const where: string[] = [];
  let crops = 0;
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await extractPdfPage(doc, n, DOCUMENT_PAGE_OPTIONS);
      if (page.textSource !== "text-layer") continue;
      const boxes = ocrCrops(unreadText(page), page);
      crops += boxes.length;
      for (const b of boxes) where.push(`p${n}:${[b.x1, b.y1, b.x2, b.y2].map(Math.round).join(",")}`);
    }
  } finally {
    await closePdf(doc);
  }
  totals.pages += doc.numPages;
  totals.crops += crops;
  if (pdf.path.includes("/pdf/sources/")) {
    totals.benchPages += doc.numPages;
    totals.benchCrops += crops;
  }
  console.log(`${pdf.id.padEnd(60)} ${String(crops).padStart(3)}  ${where.join(" ")}`);
}
console.log(`crops: ${totals.crops} on ${totals.pages} pages`);
console.log(
  `the API bench's born-digital PDFs (pdf/sources): ${totals.benchCrops} on ${totals.benchPages} pages`,
);
