/**
 * Born-digital PDF parsing speed: the whole engine (geometry, tables, layout, views) over the corpus's PDFs, in
 * worker threads as the server runs it, against a geometry-only baseline measured in the same run (pdf.js reading
 * each page's text and nothing else, in as many threads).
 *
 *   node bench/pdf-bench.ts [--threads 2] [--rounds 5]
 *
 * Prints pages per second for both and their ratio, the median of the rounds. Scanned pages (OCR) are left out:
 * bench/ocr-bench.ts measures those.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";

type Mode = "engine" | "geometry";
interface Job {
  mode: Mode;
  files: string[];
}

async function runJob(job: Job): Promise<number> {
  let pages = 0;
  if (job.mode === "engine") {
    const { parseDocument } = await import("../packages/docparse/src/index.ts");
    for (const file of job.files) {
      const { result } = await parseDocument({
        bytes: new Uint8Array(readFileSync(file)),
        mimeType: "application/pdf",
      });
      pages += result.parsed_pages_count;
    }
  } else {
    const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
    for (const file of job.files) {
      const doc = await pdfjs.getDocument({ data: new Uint8Array(readFileSync(file)), verbosity: 0 }).promise;
      for (let n = 1; n <= doc.numPages; n++) {
        const page = await doc.getPage(n);
        await page.getTextContent();
        page.cleanup();
        pages++;
      }
      await doc.destroy();
    }
  }
  return pages;
}

if (!isMainThread) {
  parentPort?.on("message", async (job: Job) => parentPort?.postMessage(await runJob(job)));
  // Announce readiness once imports are done, so thread start-up is not timed.
  parentPort?.postMessage("ready");
} else {
  const { values } = parseArgs({
    options: { threads: { type: "string", default: "2" }, rounds: { type: "string", default: "5" } },
  });
  const threads = Number(values.threads);
  const rounds = Number(values.rounds);
  if (!DOCLING_DATA) throw new Error("the shared corpus is needed: set SVC_CORPUS_DIR");
  const dir = path.join(DOCLING_DATA, "pdf/sources");
  // Born-digital only: the corpus's scanned PDFs live under ocr/.
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".pdf"))
    .map((name) => path.join(dir, name));

  const workers = await Promise.all(
    Array.from({ length: threads }, async () => {
      const worker = new Worker(new URL(import.meta.url));
      await new Promise((resolve) => worker.once("message", resolve));
      return worker;
    }),
  );
  const run = (worker: Worker, job: Job) =>
    new Promise<number>((resolve) => {
      worker.once("message", resolve);
      worker.postMessage(job);
    });

  /** One round: every thread parses every file once; pages per second over the round's wall time. */
  async function round(mode: Mode): Promise<number> {
    const start = performance.now();
    const pages = await Promise.all(workers.map((worker) => run(worker, { mode, files })));
    return pages.reduce((a, b) => a + b, 0) / ((performance.now() - start) / 1000);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

  // Warm-up: code compiled, fonts and CMaps read once in each thread.
  await round("engine");
  await round("geometry");
  const engine: number[] = [];
  const geometry: number[] = [];
  for (let i = 0; i < rounds; i++) {
    engine.push(await round("engine"));
    geometry.push(await round("geometry"));
  }
  console.log(`${files.length} PDFs, ${threads} threads, ${rounds} rounds (median)`);
  console.log(`engine (layout, tables, views):  ${median(engine).toFixed(1)} pages/s`);
  console.log(`geometry only (pdf.js text):     ${median(geometry).toFixed(1)} pages/s`);
  console.log(`engine / geometry-only:          ${(median(engine) / median(geometry)).toFixed(2)}`);
  await Promise.all(workers.map((worker) => worker.terminate()));
}
