import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import sharp from "sharp";
import { CLEANUP_EVERY_PAGES, DOCUMENT_PAGE_OPTIONS, extractCounted, extractPdfPage } from "./extract.ts";
import { extractPages, SHARED_EXTRACTION_MIN_PAGES } from "./extract-pages.ts";
import { closePdf, openPdf } from "./open.ts";

/**
 * A report of `count` pages sharing two fonts and one logo image: a heading, a paragraph, a ruled box and the
 * page's number, each page's text its own, so a page put in another page's place shows.
 */
async function reportPdf(count: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const png = await sharp({ create: { width: 24, height: 24, channels: 3, background: "#3060a0" } })
    .png()
    .toBuffer();
  const logo = await pdf.embedPng(png);
  for (let n = 1; n <= count; n++) {
    const page = pdf.addPage([612, 792]);
    page.drawImage(logo, { x: 540, y: 740, width: 24, height: 24 });
    page.drawText(`Section ${n}: findings`, { x: 72, y: 700, size: 18, font: bold });
    page.drawText(`Measurements of site ${n} were taken ${n + 2} times this year.`, {
      x: 72,
      y: 660,
      size: 11,
      font: regular,
    });
    page.drawRectangle({ x: 72, y: 500, width: 300, height: 100, borderColor: rgb(0, 0, 0), borderWidth: 1 });
    page.drawText(`Box ${n}`, { x: 80, y: 580, size: 11, font: regular });
    page.drawText(String(n), { x: 300, y: 40, size: 9, font: regular });
  }
  return pdf.save();
}

/** Each page read alone by extractPdfPage, on a document opened for it. */
async function onePageAtATime(bytes: Uint8Array, pages: readonly number[]) {
  const doc = await openPdf(bytes);
  try {
    const read = [];
    for (const n of pages) read.push(await extractPdfPage(doc, n, DOCUMENT_PAGE_OPTIONS));
    return read;
  } finally {
    await closePdf(doc);
  }
}

describe("extractPages", () => {
  test("a long PDF read by two threads gives each page's own geometry, in the order asked", {
    timeout: 120_000,
  }, async () => {
    const bytes = await reportPdf(SHARED_EXTRACTION_MIN_PAGES * 2 + 3);
    // Every page but the third: the page numbers asked for, not their positions, say which page is read.
    const wanted = Array.from({ length: SHARED_EXTRACTION_MIN_PAGES * 2 + 3 }, (_, i) => i + 1).filter(
      (n) => n !== 3,
    );
    const doc = await openPdf(bytes);
    let shared: Awaited<ReturnType<typeof extractPages>>;
    try {
      shared = await extractPages(doc, bytes, wanted);
      // The helper is kept and serves the next document too.
      assert.deepEqual(await extractPages(doc, bytes, wanted), shared);
    } finally {
      await closePdf(doc);
    }
    assert.deepEqual(
      shared.map((page) => page.pageNumber),
      wanted,
    );
    assert.deepEqual(shared, await onePageAtATime(bytes, wanted));
    const last = shared.at(-1);
    assert.ok(last?.runs.some((run) => run.text === `Section ${wanted.at(-1)}: findings`));
    assert.equal(last?.images.length, 1);
  });

  test("a short PDF is read here alone, the same way", async () => {
    const bytes = await reportPdf(3);
    const doc = await openPdf(bytes);
    try {
      assert.deepEqual(await extractPages(doc, bytes, [1, 2, 3]), await onePageAtATime(bytes, [1, 2, 3]));
    } finally {
      await closePdf(doc);
    }
  });

  test("cleaning the document up every so many pages changes no page", { timeout: 120_000 }, async () => {
    const count = CLEANUP_EVERY_PAGES + 6;
    const bytes = await reportPdf(count);
    const pages = Array.from({ length: count }, (_, i) => i + 1);
    const doc = await openPdf(bytes);
    const read = { pages: 0 };
    const counted = [];
    try {
      for (const n of pages) counted.push(await extractCounted(doc, n, read));
    } finally {
      await closePdf(doc);
    }
    assert.equal(read.pages, count);
    assert.deepEqual(counted, await onePageAtATime(bytes, pages));
  });
});
