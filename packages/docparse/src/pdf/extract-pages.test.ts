import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Worker } from "node:worker_threads";
import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import sharp from "sharp";
import { layoutPage, type PageLayout } from "../paginated/layout.ts";
import { type LayoutRequest, layoutStages, withoutUnmapped } from "./arrival-layout.ts";
import { CLEANUP_EVERY_PAGES, DOCUMENT_PAGE_OPTIONS, extractCounted, extractPdfPage } from "./extract.ts";
import { extractPages, SHARED_EXTRACTION_MIN_PAGES, stopExtractionHelper } from "./extract-pages.ts";
import type { ExtractReply, ExtractTask } from "./extract-thread.ts";
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

  const request: LayoutRequest = { tables: true, dropStruck: false, signatures: true };

  /** Each page read alone and laid out in this thread. */
  async function laidOutHere(bytes: Uint8Array, pages: readonly number[]): Promise<PageLayout[]> {
    const read = await onePageAtATime(bytes, pages);
    return read.map((page) => layoutPage(withoutUnmapped(page), layoutStages(request)));
  }

  test("a page laid out by the helper thread is the page this thread lays out", {
    timeout: 120_000,
  }, async () => {
    const bytes = await reportPdf(6);
    const pages = [1, 2, 3, 4, 5, 6];
    // The helper alone: the counter it shares says no page is taken yet, and nothing here takes any.
    const worker = new Worker(new URL("./extract-thread.ts", import.meta.url));
    const layouts: PageLayout[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on("error", reject);
        worker.on("message", (reply: ExtractReply) => {
          if (reply.kind === "page") {
            assert.ok(reply.layout, `page ${reply.page.pageNumber} laid out by the helper`);
            assert.equal(reply.layout.page, reply.page, "the page posted is the one laid out");
            layouts[reply.index] = reply.layout;
          } else if (reply.kind === "done") resolve();
          else reject(new Error(reply.message));
        });
        const task: ExtractTask = {
          bytes,
          pages,
          counter: new Int32Array(new SharedArrayBuffer(4)),
          layout: request,
        };
        worker.postMessage(task);
      });
    } finally {
      await worker.terminate();
    }
    assert.equal(layouts.filter(Boolean).length, pages.length);
    assert.ok(
      layouts.every((layout) => layout.entries.length >= 3),
      "each page has its blocks",
    );
    assert.deepEqual(layouts, await laidOutHere(bytes, pages));
  });

  test("with a layout request every page comes laid out, whichever thread read it, and a helper that dies mid-parse loses none", {
    timeout: 180_000,
  }, async () => {
    const count = SHARED_EXTRACTION_MIN_PAGES * 3;
    const bytes = await reportPdf(count);
    const pages = Array.from({ length: count }, (_, i) => i + 1);
    const expected = await laidOutHere(bytes, pages);
    const doc = await openPdf(bytes);
    try {
      const layouts = new Map<number, PageLayout>();
      const geometry = await extractPages(
        doc,
        bytes,
        pages,
        (page, { layout }) => {
          assert.ok(layout, `page ${page.pageNumber} laid out on arrival`);
          layouts.set(page.pageNumber, layout);
        },
        request,
      );
      assert.deepEqual(
        pages.map((n) => layouts.get(n)),
        expected,
      );
      assert.deepEqual(
        geometry,
        expected.map((layout) => layout.page),
      );

      // The helper ends as the first page from the back half comes in: the pages it had taken are read here.
      layouts.clear();
      let stopped: Promise<void> | null = null;
      await extractPages(
        doc,
        bytes,
        pages,
        (page, { layout }) => {
          if (layout) layouts.set(page.pageNumber, layout);
          if (page.pageNumber > count / 2) stopped ??= stopExtractionHelper();
        },
        request,
      );
      await stopped;
      assert.deepEqual(
        pages.map((n) => layouts.get(n)),
        expected,
      );
    } finally {
      await closePdf(doc);
    }
  });
});
