import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test } from "node:test";
import sharp from "sharp";
import { DocumentLoadError } from "../model.ts";
import { doclingData, NO_CORPUS, renderParagraphsPage, renderTextPage } from "../ocr/test-support.ts";
import { decodeImage, decodeImagePages, imagePageCount, ocrScale } from "./decode.ts";
import { estimateTextHeight } from "./text-height.ts";

const corpusFile = (path: string) => readFile(doclingData(path));

async function rejectsAsInvalidFile(promise: Promise<unknown>, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DocumentLoadError, `expected a DocumentLoadError, got ${String(error)}`);
    assert.equal(error.code, "INVALID_FILE");
    if (message) assert.match(error.message, message);
    return true;
  });
}

async function pngInfo(png: Buffer) {
  const metadata = await sharp(png).metadata();
  return {
    format: metadata.format,
    channels: metadata.channels,
    width: metadata.width,
    height: metadata.height,
  };
}

describe("decodeImage", () => {
  test("WebP: one page; without a density the page is 72 dpi, so its size in points is its size in pixels", {
    skip: NO_CORPUS,
  }, async () => {
    const [page, ...rest] = await decodeImage(await corpusFile("webp/sources/webp-test.webp"));
    assert.equal(rest.length, 0);
    assert.deepEqual(
      {
        n: page.pageNumber,
        w: page.widthPx,
        h: page.heightPx,
        dpi: page.dpi,
        wPt: page.widthPt,
        hPt: page.heightPt,
      },
      { n: 1, w: 2000, h: 2829, dpi: 72, wPt: 2000, hPt: 2829 },
    );
    // Its text is large (37 px): OCR reads it at half the size, which is as well and faster.
    assert.equal(page.scale, 0.49);
    assert.deepEqual(await pngInfo(page.png), { format: "png", channels: 1, width: 980, height: 1386 });
  });

  test("TIFF: every page; small text is scaled up for OCR and the scale maps OCR pixels back to points", {
    skip: NO_CORPUS,
  }, async () => {
    const bytes = await corpusFile("tiff/sources/2206.01062.tif");
    assert.equal(await imagePageCount(bytes), 2);
    const pages = await decodeImage(bytes);
    assert.deepEqual(
      pages.map((p) => p.pageNumber),
      [1, 2],
    );
    for (const page of pages) {
      // A letter page at 72 dpi: its body text is about 5 pixels high, too small for Tesseract.
      assert.equal(page.widthPt, 612);
      assert.equal(page.heightPt, 792);
      assert.ok(page.scale >= 2 && page.scale <= 4, `scale ${page.scale}`);
      assert.ok(page.ocrDpi >= 144, `ocrDpi ${page.ocrDpi}`);
      const info = await pngInfo(page.png);
      assert.equal(info.channels, 1);
      assert.equal(info.width, Math.round(612 * page.scale));
      // A pixel of the OCR raster is 72 / ocrDpi points: the raster's width is the page's width.
      assert.ok(Math.abs(((info.width ?? 0) * 72) / page.ocrDpi - page.widthPt) < 0.5);
    }
    const only = await decodeImage(bytes, { pageNumbers: [2] });
    assert.deepEqual(
      only.map((p) => p.pageNumber),
      [2],
    );
    const streamed: number[] = [];
    for await (const page of decodeImagePages(bytes)) streamed.push(page.pageNumber);
    assert.deepEqual(streamed, [1, 2]);
  });

  test("JPEG and PNG: the density in the file sets the page size in points", {
    skip: NO_CORPUS,
  }, async () => {
    const [bill] = await decodeImage(await corpusFile("ocr/sources/qr_bill_example.jpg"));
    assert.equal(bill.dpi, 300);
    assert.equal(bill.widthPt, (1021 * 72) / 300);
    assert.equal(bill.heightPt, (1423 * 72) / 300);
    const [newspaper] = await decodeImage(await corpusFile("ocr/sources/old_newspaper.png"));
    assert.equal(newspaper.dpi, 72);
    assert.equal(newspaper.widthPt, 1473);
    // A clean letter page rendered at 300 dpi is a letter page; its 12 pt text is read at about 200 dpi.
    const clean = await decodeImage((await renderTextPage()).png);
    assert.deepEqual([clean[0].widthPt, clean[0].heightPt, Math.round(clean[0].ocrDpi)], [612, 792, 207]);
  });

  test("GIF, AVIF and RGBA PNG are read; the EXIF orientation of a JPEG is applied", async () => {
    const { png } = await renderTextPage({ widthIn: 4, heightIn: 2, dpi: 150 });
    for (const bytes of [
      await sharp(png).gif().toBuffer(),
      await sharp(png).avif().toBuffer(),
      await sharp(png).ensureAlpha(0.5).png().toBuffer(),
    ]) {
      const [page] = await decodeImage(bytes);
      assert.deepEqual([page.widthPx, page.heightPx], [600, 300]);
      assert.equal((await pngInfo(page.png)).channels, 1);
    }
    // Orientation 6: stored landscape, shown turned 90° clockwise, i.e. portrait.
    const turned = await sharp(png).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const [page] = await decodeImage(turned);
    assert.deepEqual([page.widthPx, page.heightPx], [300, 600]);
  });

  test("corrupt, unsupported and oversized input is a DocumentLoadError with code INVALID_FILE", {
    skip: NO_CORPUS,
  }, async () => {
    const png = await corpusFile("ocr/sources/old_newspaper.png");
    const jpeg = await corpusFile("ocr/sources/qr_bill_example.jpg");
    await rejectsAsInvalidFile(
      decodeImage(new TextEncoder().encode("not an image at all")),
      /could not be read/,
    );
    await rejectsAsInvalidFile(decodeImage(new Uint8Array(0)));
    await rejectsAsInvalidFile(decodeImage(png.subarray(0, png.length / 2)));
    await rejectsAsInvalidFile(decodeImage(jpeg.subarray(0, 2000)));
    // A PNG whose image data is damaged but whose header is intact.
    const damaged = Buffer.from(png);
    damaged.fill(0x5a, 200, 4000);
    await rejectsAsInvalidFile(decodeImage(damaged));
    await rejectsAsInvalidFile(
      decodeImage(
        new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
      ),
      /format svg/,
    );
    // Decompression bombs: too many pixels on a page, too many pages.
    await rejectsAsInvalidFile(decodeImage(png, { maxPixels: 1_000_000 }), /too many pixels/);
    const tiff = await corpusFile("tiff/sources/2206.01062.tif");
    await rejectsAsInvalidFile(decodeImage(tiff, { maxPages: 1 }), /2 pages/);
    await rejectsAsInvalidFile(decodeImage(tiff, { pageNumbers: [3] }), /no page 3/);
  });
});

describe("ocrScale", () => {
  test("scales small text up, large text down, and leaves readable text alone", () => {
    assert.equal(ocrScale(612, 792, 5), 2.8);
    assert.equal(ocrScale(2000, 2800, 20), 1);
    assert.equal(ocrScale(2000, 2800, 13), 1);
    assert.equal(ocrScale(2000, 2800, 24), 1);
    // 12 pt type at 300 dpi is read at about 200 dpi; a 1200 dpi scan at a quarter of its size at most.
    assert.equal(ocrScale(2550, 3300, 26), 0.69);
    assert.equal(ocrScale(10200, 13200, 104), 0.25);
    // Never past the pixel budget or 4×.
    assert.equal(ocrScale(100, 50, 2), 4);
    assert.ok(ocrScale(5000, 5000, 4) <= Math.sqrt(40_000_000 / 25_000_000) + 0.01);
    // Without a text height, a small image is brought to about 2000 pixels on its long side.
    assert.equal(ocrScale(500, 1000, null), 2);
    assert.equal(ocrScale(2550, 3300, null), 1);
  });
});

describe("estimateTextHeight", () => {
  test("is about the x-height of the text, and null for a blank page", async () => {
    for (const fontPt of [6, 12]) {
      const { png } = await renderTextPage({ fontPt, dpi: 300 });
      const { data, info } = await sharp(png)
        .toColourspace("b-w")
        .raw()
        .toBuffer({ resolveWithObject: true });
      const height = estimateTextHeight(new Uint8Array(data), info.width, info.height);
      const fontPx = (fontPt * 300) / 72;
      assert.ok(height !== null && height > 0.4 * fontPx && height < 0.8 * fontPx, `${fontPt} pt: ${height}`);
    }
    const blank = new Uint8Array(200 * 100).fill(255);
    assert.equal(estimateTextHeight(blank, 200, 100), null);
  });

  test("joins the strokes of a glyph met row by row, past the first thousands of components", () => {
    // 6000 glyphs in cells of 10 × 12 px: 3100 "U"s 7 px tall, whose two strokes become one component only at
    // their bottom row, and 2900 squares 5 px tall. Read as separate strokes (6 px) or with components lost past
    // the first few thousand, the median would not be 7.
    const columns = 100;
    const rows = 60;
    const width = columns * 10;
    const height = rows * 12;
    const gray = new Uint8Array(width * height).fill(255);
    const ink = (x: number, y: number) => {
      gray[y * width + x] = 0;
    };
    for (let n = 0; n < columns * rows; n++) {
      const x0 = (n % columns) * 10 + 2;
      const y0 = Math.floor(n / columns) * 12 + 2;
      if (n < 3100) {
        for (let y = 0; y < 6; y++) {
          ink(x0, y0 + y);
          ink(x0 + 4, y0 + y);
        }
        for (let x = 0; x < 5; x++) ink(x0 + x, y0 + 6);
      } else {
        for (let y = 0; y < 5; y++) for (let x = 0; x < 4; x++) ink(x0 + x, y0 + y);
      }
    }
    assert.equal(estimateTextHeight(gray, width, height), 7);
  });

  test("Arabic is measured by its letters' bodies, not its dots: a 12 pt page at 300 dpi is not blown up", async () => {
    const text =
      "اجتمعت اللجنة صباح يوم الثلاثاء لمراجعة الميزانية السنوية لشبكة المكتبات الإقليمية. وأوضح أمين الصندوق أن الإنفاق على الكتب المطبوعة انخفض للسنة الثالثة على التوالي، بينما ارتفعت تكلفة الاشتراكات الرقمية.";
    const png = await renderParagraphsPage([{ text, font: "Noto Naskh Arabic", rtl: true }]);
    const { data, info } = await sharp(png).toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
    const height = estimateTextHeight(new Uint8Array(data), info.width, info.height);
    assert.ok(height !== null);
    // Its dots (about 6 px) outnumber its joined letters: taken for the text height they made the page 2.1 times
    // larger (4.6 times the pixels) for OCR. Read by its bodies it is enlarged by at most half.
    const scale = ocrScale(info.width, info.height, height);
    assert.ok(scale >= 1 && scale <= 1.5, `text height ${height}, scale ${scale}`);
  });
});
