import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { PDFDocument, StandardFonts } from "pdf-lib";
import type { PageRaster } from "../images/decode.ts";
import { extractPages, SHARED_EXTRACTION_MIN_PAGES } from "../pdf/extract-pages.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import { CropQueue } from "./crop-queue.ts";
import type { OcrEngine } from "./engine.ts";
import { OcrError } from "./ocr-error.ts";
import type { OcrPage } from "./ocr-page.ts";
import { Slots } from "./slots.ts";

/** A crop whose page number names it. */
const crop = (n: number): PageRaster => ({
  pageNumber: n,
  widthPx: 10,
  heightPx: 10,
  dpi: 200,
  widthPt: 4,
  heightPt: 4,
  png: Buffer.alloc(0),
  scale: 1,
  ocrDpi: 200,
});

const pageOf = (raster: PageRaster): OcrPage => ({
  pageNumber: raster.pageNumber,
  width: raster.widthPt,
  height: raster.heightPt,
  runs: [],
  lines: [],
  rules: [],
  rotation: 0,
  skewAngle: 0,
  language: "eng",
  engine: "fake",
});

/** An engine that reads each crop as its number, fails the crops `failing` names, and records its chunks. */
function fakeEngine(failing: (n: number) => boolean = () => false) {
  const chunks: number[][] = [];
  const engine: OcrEngine = {
    name: "fake",
    recognize: () => Promise.reject(new Error("not used")),
    async recognizeCrops(rasters) {
      chunks.push(rasters.map((r) => r.pageNumber));
      await tick();
      return rasters.map((r) =>
        failing(r.pageNumber) ? new OcrError(`crop ${r.pageNumber} failed`, "OCR_FAILED") : pageOf(r),
      );
    },
  };
  return { engine, chunks };
}

describe("CropQueue", () => {
  test("crops wait while more may come, then are read in a few chunks, each crop given its own page", async () => {
    const { engine, chunks } = fakeEngine();
    const queue = new CropQueue(engine, { language: "eng", slots: new Slots(2) });
    const release = queue.hold();
    const reads = [1, 2, 3, 4, 5].map((n) => queue.read(crop(n)));
    await tick();
    assert.deepEqual(chunks, [], "too few crops for a chunk while a page is still coming");
    queue.close();
    await tick();
    assert.deepEqual(chunks, [], "nor while a hold is open");
    for (const n of [6, 7, 8, 9, 10, 11]) reads.push(queue.read(crop(n)));
    release();
    const pages = await Promise.all(reads);
    assert.deepEqual(
      pages.map((p) => p.pageNumber),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    // Two free slots: two chunks, every crop in one of them once.
    assert.equal(chunks.length, 2);
    assert.deepEqual(
      chunks.flat().sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
  });

  test("enough crops start a chunk before the queue is closed", async () => {
    const { engine, chunks } = fakeEngine();
    const queue = new CropQueue(engine, { language: "eng", slots: new Slots(1) });
    const release = queue.hold();
    const reads = Array.from({ length: 30 }, (_, i) => queue.read(crop(i + 1)));
    await tick();
    assert.ok(chunks.length >= 1 && chunks[0].length >= 2, `chunks before the close: ${chunks.length}`);
    release();
    queue.close();
    await Promise.all(reads);
    assert.equal(chunks.flat().length, 30);
    assert.ok(chunks.length < 30, "crops share processes");
  });

  test("crops waiting hold a bounded number of bytes: a full queue starts a chunk, and room() waits", async () => {
    // An engine that holds every chunk until the gate opens, as busy OCR slots would.
    const chunks: number[][] = [];
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const engine: OcrEngine = {
      name: "gated",
      recognize: () => Promise.reject(new Error("not used")),
      async recognizeCrops(rasters) {
        chunks.push(rasters.map((r) => r.pageNumber));
        await gate;
        return rasters.map(pageOf);
      },
    };
    const queue = new CropQueue(engine, { language: "eng", slots: new Slots(1), maxWaitingBytes: 100 });
    // Held open: without the bound no chunk would start before 12 crops, and every crop would wait in memory.
    const release = queue.hold();
    const reads: Promise<OcrPage>[] = [];
    let most = 0;
    const producing = (async () => {
      for (let n = 1; n <= 10; n++) {
        await queue.room();
        reads.push(queue.read({ ...crop(n), png: Buffer.alloc(40) }));
        most = Math.max(most, queue.queuedBytes);
      }
    })();
    for (let i = 0; i < 20; i++) await tick();
    assert.deepEqual(chunks, [[1, 2, 3]], "three crops of 40 bytes fill the queue: a chunk takes them");
    assert.equal(reads.length, 6, "the producer waits while the next three fill it again");
    assert.equal(queue.queuedBytes, 120);
    open();
    await producing;
    release();
    queue.close();
    const pages = await Promise.all(reads);
    assert.deepEqual(
      pages.map((p) => p.pageNumber),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    assert.ok(most <= 100 + 40, `at most the bound and one crop waited, not ${most} bytes`);
  });

  test("a language found by a function is looked for once, at the first chunk, and never with no crop", async () => {
    const asked: string[] = [];
    const languages: string[] = [];
    const engine: OcrEngine = {
      name: "fake",
      recognize: () => Promise.reject(new Error("not used")),
      async recognizeCrops(rasters, options) {
        languages.push(options.language);
        return rasters.map(pageOf);
      },
    };
    const find = async () => {
      asked.push("fra");
      return "fra";
    };
    const idle = new CropQueue(engine, { language: find, slots: new Slots(1) });
    idle.close();
    await tick();
    assert.deepEqual(asked, []);
    const queue = new CropQueue(engine, { language: find, slots: new Slots(2) });
    const reads = Array.from({ length: 30 }, (_, i) => queue.read(crop(i + 1)));
    queue.close();
    await Promise.all(reads);
    assert.deepEqual(asked, ["fra"]);
    assert.ok(languages.length >= 2, "the crops were read in several chunks");
    assert.ok(languages.every((language) => language === "fra"));
  });

  test("a crop that fails rejects alone; an abort rejects what is still queued", async () => {
    const { engine } = fakeEngine((n) => n === 2);
    const queue = new CropQueue(engine, { language: "eng", slots: new Slots(1) });
    const reads = [1, 2, 3].map((n) => queue.read(crop(n)));
    queue.close();
    const settled = await Promise.allSettled(reads);
    assert.deepEqual(
      settled.map((s) => s.status),
      ["fulfilled", "rejected", "fulfilled"],
    );

    const abort = new AbortController();
    const busy = new Slots(1);
    let free = () => {};
    const holding = busy.run(() => new Promise<void>((resolve) => (free = resolve)));
    const stopped = new CropQueue(engine, { language: "eng", slots: busy, signal: abort.signal });
    const waiting = [4, 5].map((n) => stopped.read(crop(n)));
    stopped.close();
    abort.abort();
    for (const read of waiting) {
      await assert.rejects(
        read,
        (error: unknown) => error instanceof OcrError && error.code === "OCR_ABORTED",
      );
    }
    await assert.rejects(stopped.read(crop(6)), { name: "OcrError" });
    free();
    await holding;
  });

  test("OCR of a long document's crops starts while its later pages are still being read", {
    timeout: 300_000,
  }, async () => {
    // Every page is handed on as it is read, and queues a crop: a chunk must start before the last page is in.
    const count = SHARED_EXTRACTION_MIN_PAGES * 3;
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    for (let n = 1; n <= count; n++) {
      pdf.addPage([612, 792]).drawText(`Page ${n} of a long report`, { x: 72, y: 700, size: 12, font });
    }
    const bytes = await pdf.save();
    let delivered = 0;
    const deliveredAtChunks: number[] = [];
    const { engine } = fakeEngine();
    const watched: OcrEngine = {
      ...engine,
      recognizeCrops(rasters, context) {
        deliveredAtChunks.push(delivered);
        return engine.recognizeCrops(rasters, context);
      },
    };
    const queue = new CropQueue(watched, { language: "eng", slots: new Slots(2) });
    const reads: Promise<OcrPage>[] = [];
    const doc = await openPdf(bytes);
    let pages: Awaited<ReturnType<typeof extractPages>>;
    try {
      const numbers = Array.from({ length: count }, (_, i) => i + 1);
      pages = await extractPages(doc, bytes, numbers, (page) => {
        delivered++;
        reads.push(queue.read(crop(page.pageNumber)));
      });
    } finally {
      queue.close();
      await closePdf(doc);
    }
    const read = await Promise.all(reads);
    assert.deepEqual(
      pages.map((p) => p.pageNumber),
      Array.from({ length: count }, (_, i) => i + 1),
    );
    assert.deepEqual(
      read.map((p) => p.pageNumber).sort((a, b) => a - b),
      pages.map((p) => p.pageNumber),
    );
    assert.ok(deliveredAtChunks[0] < count, `the first chunk started after ${deliveredAtChunks[0]} pages`);
  });
});
