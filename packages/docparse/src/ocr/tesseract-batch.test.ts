import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { PageRaster } from "../images/decode.ts";
import { box } from "../paginated/geometry.ts";
import { extractPages } from "../pdf/extract-pages.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import { renderPage } from "../pdf/render.ts";
import { ocrCrops, unreadText } from "../pdf/unread-text.ts";
import { OcrError } from "./ocr-error.ts";
import { recognizeCrops } from "./recognize-page.ts";
import { spawnHelper } from "./spawn-helper.ts";
import { tesseractAvailable, tesseractCli } from "./tesseract.ts";
import { splitTesseractPages } from "./tsv.ts";

/**
 * The tesseract program reading many crops in one process (readWordsBatch), on the crops a real slide deck's
 * parse reads: its title banners and labels are text in images (pdf/unread-text.ts).
 */

const SLIDES = fileURLToPath(new URL("../../test/real-world/brand-template-slides.pdf", import.meta.url));
const skip = (await tesseractAvailable()) ? false : "the tesseract program is not installed";

/** The unread-text crops of the deck, rendered as a parse renders them. */
async function slideCrops(): Promise<PageRaster[]> {
  const bytes = new Uint8Array(readFileSync(SLIDES));
  const doc = await openPdf(bytes);
  try {
    const pages = await extractPages(
      doc,
      bytes,
      Array.from({ length: doc.numPages }, (_, i) => i + 1),
    );
    const rasters: PageRaster[] = [];
    for (const page of pages) {
      if (page.textSource !== "text-layer") continue;
      for (const crop of ocrCrops(unreadText(page), page)) {
        const r = await renderPage(doc, page.pageNumber, { dpi: 200, grayscale: true, crop });
        rasters.push({
          pageNumber: page.pageNumber,
          widthPx: r.widthPx,
          heightPx: r.heightPx,
          dpi: r.dpi,
          widthPt: box.width(crop),
          heightPt: box.height(crop),
          png: r.png,
          scale: 1,
          ocrDpi: r.dpi,
        });
      }
    }
    return rasters;
  } finally {
    await closePdf(doc);
  }
}

describe("tesseract: many crops read in one process", { skip, timeout: 600_000 }, () => {
  let crops: PageRaster[] = [];
  const images = () => crops.map((c) => ({ png: c.png, dpi: c.ocrDpi }));
  before(async () => {
    crops = await slideCrops();
  });

  test("each crop of a batch reads as it reads alone, in the first and the sparse pass", async () => {
    assert.ok(crops.length >= 4, `the deck has ${crops.length} crops`);
    for (const sparse of [false, true]) {
      const context = { language: "eng", signal: new AbortController().signal, sparse };
      const batch = await tesseractCli.readWordsBatch?.(images(), context);
      const alone = [];
      for (const crop of crops) alone.push(await tesseractCli.readWords(crop.png, crop.ocrDpi, context));
      assert.deepEqual(batch, alone);
      assert.ok(alone.some((page) => page.words.length > 0));
    }
  });

  test("a crop the program cannot read fails alone: the others keep their words", async () => {
    const [first, second] = crops;
    const broken = { ...first, png: Buffer.from("not a PNG at all") };
    const context = { language: "eng", signal: new AbortController().signal };
    // The program stops at the broken image: the batch as a whole fails...
    const pair = [first, broken].map((c) => ({ png: c.png, dpi: c.ocrDpi }));
    await assert.rejects(async () => tesseractCli.readWordsBatch?.(pair, context), { name: "OcrError" });
    // ...and the crops are then read one by one.
    const read = await recognizeCrops([first, broken, second], tesseractCli, context);
    assert.ok(read[1] instanceof OcrError, "the broken crop's error");
    const [alone] = await recognizeCrops([first], tesseractCli, context);
    const [secondAlone] = await recognizeCrops([second], tesseractCli, context);
    assert.deepEqual(read[0], alone);
    assert.deepEqual(read[2], secondAlone);
    assert.ok(!(read[0] instanceof OcrError) && read[0].runs.length > 0);
  });

  test("tesseract crashing mid-batch fails that batch only; the spawn helper goes on to the next", async () => {
    const many = Array.from({ length: 12 }, images).flat();
    const context = { language: "eng", signal: new AbortController().signal };
    const reading = tesseractCli.readWordsBatch?.(many, context);
    process.kill(await childTesseract(), "SIGSEGV");
    await assert.rejects(reading ?? Promise.resolve(), (error: unknown) => {
      assert.ok(error instanceof OcrError);
      assert.equal(error.code, "OCR_FAILED");
      return true;
    });
    const again = await tesseractCli.readWordsBatch?.(images(), context);
    const alone = [];
    for (const crop of crops) alone.push(await tesseractCli.readWords(crop.png, crop.ocrDpi, context));
    assert.deepEqual(again, alone);
  });

  describe("an abort", () => {
    let privateTmp = "";
    const savedTmp = process.env.TMPDIR;
    before(async () => {
      privateTmp = await mkdtemp(path.join(tmpdir(), "batch-abort-"));
      process.env.TMPDIR = privateTmp;
    });
    after(async () => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      await rm(privateTmp, { recursive: true, force: true });
    });

    test("kills the batch's process and removes its temporary files", async () => {
      // Enough crops that the process is still reading when it is seen.
      const many = Array.from({ length: 12 }, images).flat();
      const abort = new AbortController();
      const reading = tesseractCli.readWordsBatch?.(many, { language: "eng", signal: abort.signal });
      const pid = await childTesseract();
      assert.ok((await readdir(privateTmp)).length === 1, "the batch's images are in a temporary directory");
      abort.abort();
      await assert.rejects(reading ?? Promise.resolve(), (error: unknown) => {
        assert.ok(error instanceof OcrError);
        assert.equal(error.code, "OCR_ABORTED");
        return true;
      });
      assert.equal(await alive(pid), false, "the tesseract process is gone");
      assert.deepEqual(await readdir(privateTmp), []);
    });
  });
});

/** The pid of a tesseract process this process (or its spawn helper) started, once there is one (polled in /proc). */
async function childTesseract(): Promise<number> {
  for (let i = 0; i < 6000; i++) {
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // Started by this thread's spawn helper (spawn-helper.ts), a child of this process.
      const parent = Number(fields[1]);
      if (stat.includes("(tesseract)") && (parent === process.pid || parent === spawnHelper.pid))
        return Number(entry);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("no tesseract process started");
}

/** Whether a process with this pid still exists (a zombie, not yet reaped, counts as gone). */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
}

test("splitTesseractPages: rows by their page_num, each image's text after its rows, form feeds dropped", () => {
  const header =
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";
  const row = (level: number, page: number, text = "") =>
    `${level}\t${page}\t1\t1\t1\t1\t0\t0\t10\t10\t${text ? 95 : -1}\t${text}`;
  const output = [
    header,
    row(1, 1),
    row(5, 1, "Hello"),
    "Hello",
    row(1, 2),
    `\f${row(1, 3)}`,
    row(5, 3, "Bye"),
    "\fBye",
    "",
  ].join("\n");
  const pages = splitTesseractPages(output, 3);
  assert.deepEqual(pages, [
    [row(1, 1), row(5, 1, "Hello"), "Hello"].join("\n"),
    row(1, 2),
    [row(1, 3), row(5, 3, "Bye"), "Bye", ""].join("\n"),
  ]);
  // An output that stopped before the last image is no batch's answer.
  assert.equal(splitTesseractPages(output, 4), null);
  assert.equal(splitTesseractPages([header, row(1, 2)].join("\n"), 1), null);
});
