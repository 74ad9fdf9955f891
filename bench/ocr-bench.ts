/**
 * OCR speed and recall on clean scans: full letter pages of 12 pt prose (about 480 words each) drawn at 300 dpi,
 * read by our Tesseract engine and, as a baseline in the same run, by the raw `tesseract` program with its
 * default settings on the same PNGs.
 *
 *   node bench/ocr-bench.ts [--pages 8] [--parallel 2] [--rounds 3]
 *
 * In each round, each reader reads every page one at a time (seconds per page, the median; pages per second on one
 * core), then `--parallel` at a time (pages per second in all); the readers take turns, and each figure is the
 * median of the rounds. Rows:
 * - ours, image: what an uploaded image goes through, decodeImage (which sets the OCR resolution from the text
 *   height) and the engine's recognize;
 * - ours, 200 dpi raster: the engine alone on the page drawn at 200 dpi, as the PDF backend renders scanned pages;
 * - raw tesseract: `tesseract page.png stdout`, one thread per process (OMP_THREAD_LIMIT=1, as ours runs).
 * Recall is the mean word recall against the words drawn.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { decodeImage, type PageRaster } from "../packages/docparse/src/images/decode.ts";
import { ocrEngineFor } from "../packages/docparse/src/ocr/engine.ts";
import { tesseractAvailable, tesseractInstallation } from "../packages/docparse/src/ocr/tesseract.ts";
import { CLEAN_PAGE_TEXT, renderTextPage, wordRecall } from "../packages/docparse/src/ocr/test-support.ts";

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "8" },
    parallel: { type: "string", default: "2" },
    rounds: { type: "string", default: "3" },
  },
});
const pageCount = Number(values.pages);
const parallel = Number(values.parallel);
const rounds = Number(values.rounds);
for (const [name, value] of [
  ["pages", pageCount],
  ["parallel", parallel],
  ["rounds", rounds],
] as const) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
}
if (!(await tesseractAvailable())) throw new Error("the tesseract program (with English) is needed");

interface BenchPage {
  /** The page drawn at 300 dpi: the clean scan. */
  png300: Buffer;
  png300Path: string;
  /** The words drawn on it. */
  text: string;
  /** The same prose drawn at 200 dpi, already a raster for the engine, and its words (lines may wrap otherwise). */
  raster200: PageRaster;
  text200: string;
}

/** A reader of one page: the words it read, and the words drawn on the page it read. */
type Reader = (page: BenchPage) => Promise<{ read: string; drawn: string }>;

/** Prose enough to fill a page, starting at a different sentence on each page so the pages differ. */
function pageText(index: number): string {
  const sentences = CLEAN_PAGE_TEXT.split(/(?<=\.)\s+/);
  const start = index % sentences.length;
  const turned = [...sentences.slice(start), ...sentences.slice(0, start)].join(" ");
  return `${turned} ${turned} ${turned}`;
}

async function benchPages(dir: string): Promise<BenchPage[]> {
  const pages: BenchPage[] = [];
  for (let i = 0; i < pageCount; i++) {
    const text = pageText(i);
    const scan = await renderTextPage({ text, dpi: 300 });
    const low = await renderTextPage({ text, dpi: 200 });
    const png300Path = path.join(dir, `page-${i + 1}.png`);
    await writeFile(png300Path, scan.png);
    const raster200: PageRaster = {
      pageNumber: 1,
      widthPx: 8.5 * 200,
      heightPx: 11 * 200,
      dpi: 200,
      widthPt: 8.5 * 72,
      heightPt: 11 * 72,
      png: low.png,
      scale: 1,
      ocrDpi: 200,
    };
    pages.push({ png300: scan.png, png300Path, text: scan.text, raster200, text200: low.text });
  }
  return pages;
}

const engine = ocrEngineFor("model03");
const textOf = (runs: { text: string }[]) => runs.map((r) => r.text).join(" ");

const ourImagePath: Reader = async (page) => {
  const [raster] = await decodeImage(page.png300);
  return { read: textOf((await engine.recognize(raster)).runs), drawn: page.text };
};

const ourPdfPath: Reader = async (page) => ({
  read: textOf((await engine.recognize(page.raster200)).runs),
  drawn: page.text200,
});

const rawTesseract: Reader = (page) =>
  new Promise((resolve, reject) => {
    const child = spawn("tesseract", [page.png300Path, "stdout"], {
      env: { ...process.env, OMP_THREAD_LIMIT: "1" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    const out: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve({ read: Buffer.concat(out).toString("utf8"), drawn: page.text })
        : reject(new Error(`tesseract exit ${code}`)),
    );
  });

interface Figures {
  medianSeconds: number;
  pagesPerSecondOneCore: number;
  pagesPerSecondParallel: number;
  recall: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One round of a reader: every page one at a time, then `parallel` at a time. */
async function measure(read: Reader, pages: BenchPage[]): Promise<Figures> {
  const seconds: number[] = [];
  let recall = 0;
  for (const page of pages) {
    const start = performance.now();
    const { read: text, drawn } = await read(page);
    seconds.push((performance.now() - start) / 1000);
    recall += wordRecall(drawn, text);
  }
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < pages.length) await read(pages[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, pages.length) }, worker));
  const parallelSeconds = (performance.now() - start) / 1000;
  return {
    medianSeconds: median(seconds),
    pagesPerSecondOneCore: seconds.length / seconds.reduce((a, b) => a + b, 0),
    pagesPerSecondParallel: pages.length / parallelSeconds,
    recall: recall / pages.length,
  };
}

const dir = await mkdtemp(path.join(os.tmpdir(), "ocr-bench-"));
try {
  const pages = await benchPages(dir);
  const words = pages.reduce((n, p) => n + p.text.split(" ").length, 0) / pages.length;
  const readers: [string, Reader][] = [
    ["ours, image (decode + OCR)", ourImagePath],
    ["ours, 200 dpi raster (PDF path)", ourPdfPath],
    ["raw tesseract, defaults", rawTesseract],
  ];
  // Warm-up: modules, caches, the engine's installation check.
  for (const [, read] of readers) await read(pages[0]);
  const results: Figures[][] = readers.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, read]] of readers.entries()) results[i].push(await measure(read, pages));
  }
  const rows: [string, Figures][] = readers.map(([name], i) => [
    name,
    {
      medianSeconds: median(results[i].map((f) => f.medianSeconds)),
      pagesPerSecondOneCore: median(results[i].map((f) => f.pagesPerSecondOneCore)),
      pagesPerSecondParallel: median(results[i].map((f) => f.pagesPerSecondParallel)),
      recall: median(results[i].map((f) => f.recall)),
    },
  ]);
  const raw = rows[2][1];
  const version = (await tesseractInstallation())?.version ?? "unknown";
  console.log(
    `${pages.length} clean 12 pt letter pages (${Math.round(words)} words each) at 300 dpi; tesseract ${version}, ` +
      `one thread per process; ${os.availableParallelism()} cores, ${parallel} pages at a time in the parallel run; ` +
      `median of ${rounds} rounds`,
  );
  const header = ["", "s/page (median)", "pages/s/core", `pages/s (${parallel} at once)`, "recall"];
  const table = rows.map(([name, f]) => [
    name,
    f.medianSeconds.toFixed(2),
    f.pagesPerSecondOneCore.toFixed(2),
    f.pagesPerSecondParallel.toFixed(2),
    f.recall.toFixed(3),
  ]);
  for (const [name, f] of rows.slice(0, 2)) {
    table.push([
      `${name.split(" (")[0]} / raw`,
      (f.medianSeconds / raw.medianSeconds).toFixed(2),
      (f.pagesPerSecondOneCore / raw.pagesPerSecondOneCore).toFixed(2),
      (f.pagesPerSecondParallel / raw.pagesPerSecondParallel).toFixed(2),
      "",
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
  for (const row of [header, ...table]) {
    console.log(
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "),
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
