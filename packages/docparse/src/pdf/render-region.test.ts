import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import type { Box } from "../model.ts";
import { box } from "../paginated/geometry.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { DOCUMENT_PAGE_OPTIONS, extractPdfPage } from "./extract.ts";
import { closePdf, openPdf } from "./open.ts";
import { releasePage, renderPage } from "./render.ts";
import { onePagePdf } from "./test-pdf.ts";
import { ocrCrops, unreadText } from "./unread-text.ts";

/** A 2×2 gray image, and a form drawing a black square of 50 pt at the origin of its space, placed by its matrix. */
const IMAGE =
  "<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\x00\x80\x80\x00\nendstream";
const form = (matrix: string, content: string) =>
  `<< /Type /XObject /Subtype /Form /BBox [0 0 50 50] /Matrix [${matrix}] /Length ${content.length} >>\nstream\n${content}\nendstream`;

/**
 * A page with things inside and outside the crop below (from the top; [60 592 200 662] in PDF space):
 * X1 drawn inside and outside; X2 a form outside by its matrix alone; X3 a form moved inside by its matrix, the
 * image drawn in it inside only with that matrix followed; fills outside, alone, under a clip (W f) and as a clip's
 * path (W n); a stroke outside.
 */
const PAGE = onePagePdf(
  [
    "q 50 0 0 50 72 600 cm /X1 Do Q",
    "q 100 0 0 100 400 100 cm /X1 Do Q",
    "/X2 Do",
    "/X3 Do",
    "0 g 400 700 50 50 re f",
    "q 400 400 50 50 re W f 0 0 612 792 re f Q",
    "q 300 300 50 50 re W n Q",
    "400 200 50 50 re S",
  ].join("\n"),
  {
    xobjects: [
      IMAGE,
      form("1 0 0 1 400 500", "0 g 0 0 50 50 re f"),
      form("1 0 0 1 100 600", "q 30 0 0 30 10 10 cm /X1 Do Q 0 g 0 0 20 20 re f"),
    ],
  },
);
const CROP = { x1: 60, y1: 130, x2: 200, y2: 200 };

interface OperatorList {
  fnArray: number[];
  argsArray: unknown[][];
}

/** Counts of the operators of the page's render without text, as its worker builds them for `region` (or none). */
async function textlessOperators(doc: PDFDocumentProxy, region?: Box) {
  await renderPage(doc, 1, { dpi: 72, crop: CROP, text: false, keepPage: true, region });
  const page = await doc.getPage(1);
  // pdf.js's per-intent state of the page (render.test.ts reads it too): the render's operator list.
  const states = (page as unknown as { _intentStates: Map<unknown, { operatorList: OperatorList }> })
    ._intentStates;
  assert.equal(states.size, 1);
  const [{ operatorList: list }] = states.values();
  await releasePage(doc, 1);
  const count = (fn: number, paint?: number) =>
    list.fnArray.filter((f, i) => f === fn && (paint === undefined || list.argsArray[i][0] === paint)).length;
  return {
    images: count(OPS.paintImageXObject),
    forms: count(OPS.paintFormXObjectBegin),
    fills: count(OPS.constructPath, OPS.fill),
    clipPaths: count(OPS.constructPath, OPS.endPath),
    strokes: count(OPS.constructPath, OPS.stroke),
  };
}

test("a render without text leaves out images, forms and fills wholly outside its region, and nothing else", async () => {
  const doc = await openPdf(PAGE);
  try {
    const whole = await textlessOperators(doc);
    assert.deepEqual(whole, { images: 3, forms: 2, fills: 5, clipPaths: 1, strokes: 1 });
    const region = await textlessOperators(doc, CROP);
    // Left out: X1 at (400, 100), the form X2 with its fill, the fill at (400, 700). Kept: X1 in the region and inside X3 (which
    // its matrix moves there), X3's own fill, the fill under a clip, the clip's path, the stroke.
    assert.deepEqual(region, { images: 2, forms: 1, fills: 3, clipPaths: 1, strokes: 1 });
  } finally {
    await closePdf(doc);
  }
});

test("a crop drawn with its region has the same pixels as drawn from the whole page; a region must hold its crop", async () => {
  const doc = await openPdf(PAGE);
  try {
    const options = { dpi: 150, grayscale: true, text: false, crop: CROP };
    const alone = await renderPage(doc, 1, options);
    const whole = await renderPage(doc, 1, { ...options, keepPage: true });
    await releasePage(doc, 1);
    assert.ok(alone.png.equals(whole.png));
    await assert.rejects(renderPage(doc, 1, { ...options, region: { ...CROP, x2: 150 } }), RangeError);
  } finally {
    await closePdf(doc);
  }
});

test("the OCR crops of public pages with images and drawings come out the same drawn with their region", {
  skip: NO_CORPUS,
}, async () => {
  // Pages of docling's sources whose crops are read for text in images, beside images and drawings outside them.
  for (const [file, pageNumber] of [
    ["redp5110_sampled.pdf", 3],
    ["picture_classification.pdf", 2],
    ["normal_4pages.pdf", 1],
  ] as const) {
    const doc = await openPdf(readFileSync(corpusPath("docling/tests/data/pdf/sources", file)));
    try {
      const page = await extractPdfPage(doc, pageNumber, DOCUMENT_PAGE_OPTIONS);
      const unread = unreadText(page);
      const crops = ocrCrops(unread, page);
      assert.ok(crops.length > 0, `${file} has crops to read`);
      const region = box.union(crops);
      const drawn = async (withRegion: boolean) => {
        const pngs = [];
        for (const crop of crops) {
          const options = { dpi: 200, grayscale: true, crop, keepPage: true, text: unread.garbled.size > 0 };
          pngs.push((await renderPage(doc, pageNumber, withRegion ? { ...options, region } : options)).png);
        }
        await releasePage(doc, pageNumber);
        return pngs;
      };
      const [inRegion, fromWhole] = [await drawn(true), await drawn(false)];
      for (const [i, png] of inRegion.entries()) assert.ok(png.equals(fromWhole[i]), `${file} crop ${i}`);
    } finally {
      await closePdf(doc);
    }
  }
});
