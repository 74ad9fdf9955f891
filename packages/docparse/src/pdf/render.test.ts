import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import sharp from "sharp";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { closePdf, openPdf } from "./open.ts";
import { MAX_RENDER_PIXELS, releasePage, renderPage } from "./render.ts";
import { onePagePdf } from "./test-pdf.ts";

/** A file of Docling's test data in the shared corpus; only called by tests that skip without it. */
const corpus = (path: string) => readFileSync(corpusPath("docling/tests/data", path));

/** Width, height and channels of a PNG, and the share of its pixels darker than mid-gray. */
async function inspect(
  png: Buffer,
): Promise<{ width: number; height: number; channels: number; dark: number }> {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const { channels } = await sharp(png).metadata();
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  let dark = 0;
  for (const value of data) if (value < 128) dark++;
  return { width: info.width, height: info.height, channels, dark: dark / data.length };
}

describe("renderPage", () => {
  /** redp5110_sampled.pdf of the corpus, open when the corpus is there (the tests using it skip otherwise). */
  let redp: PDFDocumentProxy;
  before(async () => {
    if (!NO_CORPUS) redp = await openPdf(corpus("pdf/sources/redp5110_sampled.pdf"));
  });
  after(async () => {
    if (redp) await closePdf(redp);
  });

  test("a page at 200 dpi: Letter is 1700×2200 px, RGB, with ink on it", { skip: NO_CORPUS }, async () => {
    const page = await renderPage(redp, 12, { dpi: 200 });
    assert.deepEqual([page.widthPx, page.heightPx, page.dpi], [1700, 2200, 200]);
    const png = await inspect(page.png);
    assert.deepEqual([png.width, png.height, png.channels], [1700, 2200, 3]);
    assert.ok(png.dark > 0.01 && png.dark < 0.2, `dark share ${png.dark}`);
  });

  test("crops drawn with keepPage share one reading of the page and come out as each drawn alone; releasePage frees it", {
    skip: NO_CORPUS,
  }, async () => {
    const crops = [
      { x1: 64, y1: 104, x2: 549, y2: 296 },
      { x1: 30.5, y1: 400.25, x2: 300.75, y2: 520.5 },
      { x1: 0, y1: 0, x2: 612, y2: 80 },
    ];
    const alone = [];
    for (const crop of crops) alone.push(await renderPage(redp, 12, { dpi: 200, crop, grayscale: true }));
    const page = await redp.getPage(12);
    // pdf.js's per-intent state of the page: its operator lists and their render tasks.
    const states = (page as unknown as { _intentStates: Map<unknown, unknown> })._intentStates;
    assert.equal(states.size, 0, "a render frees the page by default");
    const kept = [];
    for (const crop of crops) {
      kept.push(await renderPage(redp, 12, { dpi: 200, crop, grayscale: true, keepPage: true }));
      assert.equal(states.size, 1, "the page's operator list is kept for the next crop");
    }
    await releasePage(redp, 12);
    assert.equal(states.size, 0);
    for (const [i, crop] of kept.entries()) {
      assert.deepEqual(
        [crop.widthPx, crop.heightPx, crop.dpi],
        [alone[i].widthPx, alone[i].heightPx, alone[i].dpi],
      );
      assert.ok(crop.png.equals(alone[i].png), `crop ${i} drawn from the kept page is the same PNG`);
    }
  });

  test("grayscale gives one channel", { skip: NO_CORPUS }, async () => {
    const page = await renderPage(redp, 12, { dpi: 72, grayscale: true });
    const png = await inspect(page.png);
    assert.deepEqual([png.width, png.height, png.channels], [612, 792, 1]);
  });

  test("a crop renders only that box: the ruled table of page 12, its grid lines dark at the edges", {
    skip: NO_CORPUS,
  }, async () => {
    // The table's outer rules (see graphics.test.ts): x 64.3–548.4, y 104–296 in points.
    const crop = { x1: 64, y1: 104, x2: 549, y2: 296 };
    const page = await renderPage(redp, 12, { dpi: 100, crop, grayscale: true });
    assert.deepEqual(
      [page.widthPx, page.heightPx],
      [Math.round((485 * 100) / 72), Math.round((192 * 100) / 72)],
    );
    const { data, info } = await sharp(page.png).greyscale().raw().toBuffer({ resolveWithObject: true });
    const column = (x: number) => {
      let dark = 0;
      for (let y = 0; y < info.height; y++) if (data[y * info.width + x] < 192) dark++;
      return dark / info.height;
    };
    // The left rule runs down the crop's first pixel columns; a column inside the last cells is mostly white.
    assert.ok(Math.max(column(0), column(1), column(2)) > 0.9);
    assert.ok(column(Math.round(info.width * 0.8)) < 0.3);
  });

  test("a crop outside the page is refused", { skip: NO_CORPUS }, async () => {
    await assert.rejects(
      renderPage(redp, 1, { dpi: 72, crop: { x1: 700, y1: 0, x2: 800, y2: 10 } }),
      RangeError,
    );
  });

  test("text in a non-embedded standard font is drawn (open.test.ts checks the font data is loaded)", async () => {
    const doc = await openPdf(onePagePdf("BT /F1 24 Tf 72 600 Td (Hello Helvetica) Tj ET"));
    try {
      const page = await renderPage(doc, 1, {
        dpi: 150,
        crop: { x1: 60, y1: 170, x2: 300, y2: 200 },
        grayscale: true,
      });
      const png = await inspect(page.png);
      assert.ok(png.dark > 0.05, `dark share ${png.dark}`);
    } finally {
      await closePdf(doc);
    }
  });

  test("without its text a render draws no glyph of the text layer, and the page's other ink as before", async () => {
    // Text, then a black bar to its right on the same line; both in the crop.
    const doc = await openPdf(
      onePagePdf("BT /F1 24 Tf 72 600 Td (Hello Helvetica) Tj ET 0 g 320 600 100 20 re f"),
    );
    try {
      const crop = { x1: 60, y1: 170, x2: 440, y2: 200 };
      const bar = { x1: 330, y1: 174, x2: 410, y2: 190 };
      const textless = await renderPage(doc, 1, {
        dpi: 150,
        crop: { ...crop, x2: 300 },
        text: false,
        keepPage: true,
      });
      const barOnly = await renderPage(doc, 1, { dpi: 150, crop: bar, text: false, keepPage: true });
      // With keepPage the page's operator lists stay cached: a render with text after one without draws it.
      const withText = await renderPage(doc, 1, { dpi: 150, crop: { ...crop, x2: 300 }, keepPage: true });
      await releasePage(doc, 1);
      assert.equal((await inspect(textless.png)).dark, 0);
      assert.equal((await inspect(barOnly.png)).dark, 1);
      assert.ok((await inspect(withText.png)).dark > 0.05);
    } finally {
      await closePdf(doc);
    }
  });

  test("text that clips (render mode 7) still clips in a render without text", async () => {
    // The glyphs of "WWW" are the clip of a black square drawn after them: only the letters' shapes are inked.
    const doc = await openPdf(onePagePdf("BT /F1 48 Tf 7 Tr 72 600 Td (WWW) Tj ET 0 g 60 590 200 60 re f"));
    try {
      const crop = { x1: 60, y1: 142, x2: 260, y2: 202 };
      const drawn = await inspect((await renderPage(doc, 1, { dpi: 100, crop, grayscale: true })).png);
      const textless = await inspect(
        (await renderPage(doc, 1, { dpi: 100, crop, grayscale: true, text: false })).png,
      );
      assert.ok(drawn.dark > 0.1 && drawn.dark < 0.9, `dark share ${drawn.dark}`);
      assert.equal(textless.dark, drawn.dark);
    } finally {
      await closePdf(doc);
    }
  });

  test("a render without text and with annotations is refused", async () => {
    const doc = await openPdf(onePagePdf("BT /F1 24 Tf 72 600 Td (Hello) Tj ET"));
    try {
      await assert.rejects(renderPage(doc, 1, { dpi: 72, text: false, annotations: true }), RangeError);
    } finally {
      await closePdf(doc);
    }
  });

  test("a page too large for the pixel budget is rendered at a lower resolution", async () => {
    const doc = await openPdf(onePagePdf("0 g 100 100 1000 1000 re f", { width: 14400, height: 14400 }));
    try {
      // 14400 pt (200 in) at 300 dpi would be 60000 px square; MAX_RENDER_PIXELS is the default budget.
      assert.ok(60000 * 60000 > MAX_RENDER_PIXELS);
      const page = await renderPage(doc, 1, { dpi: 300, grayscale: true, maxPixels: 4_000_000 });
      assert.ok(page.widthPx * page.heightPx <= 4_000_000 * 1.001);
      assert.equal(page.dpi, 10);
      assert.equal(page.widthPx, 2000);
    } finally {
      await closePdf(doc);
    }
  });

  test("a scanned page (a 600 dpi gray image) renders at the asked resolution", {
    skip: NO_CORPUS,
  }, async () => {
    const doc = await openPdf(corpus("ocr/sources/ocr_test.pdf"));
    try {
      const page = await renderPage(doc, 1, { dpi: 200, grayscale: true });
      assert.deepEqual([page.widthPx, page.heightPx], [1653, 2339]);
      const png = await inspect(page.png);
      assert.ok(png.dark > 0.005, `dark share ${png.dark}`);
    } finally {
      await closePdf(doc);
    }
  });
});
