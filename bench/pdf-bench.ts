/**
 * Born-digital PDF parsing speed: the whole engine (geometry, tables, layout, views) over the corpus's PDFs, in
 * worker threads as the server runs it, against a geometry-only baseline measured in the same run (pdf.js reading
 * each page's text and nothing else, in as many threads).
 *
 *   node bench/pdf-bench.ts [--threads 2] [--rounds 5]
 *
 * Prints pages per second and CPU milliseconds per page (the whole process: every thread, pdf.js's helper
 * threads and the garbage collector included; its OCR child processes apart) for both, and their ratios, the medians of the rounds, with the
 * load average (other processes on the machine slow the pages per second, less the CPU per page). Scanned pages
 * (OCR) are left out: bench/ocr-bench.ts measures those.
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";
import { childrenCpuMs } from "./children-cpu.ts";

type Mode = "engine" | "geometry";
/** One round: pages/s, CPU ms a page of this process and of its child processes (OCR), cores kept busy. */
interface Figure {
  rate: number;
  cpuMs: number;
  childMs: number;
  cores: number;
}
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

  /**
   * One round: every thread parses every file once; pages per second over the round's wall time, and the CPU
   * time of the whole process meanwhile per page.
   */
  async function round(mode: Mode): Promise<Figure> {
    const cpu = process.cpuUsage();
    const children = childrenCpuMs();
    const start = performance.now();
    const pages = (await Promise.all(workers.map((worker) => run(worker, { mode, files })))).reduce(
      (a, b) => a + b,
      0,
    );
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - start) / 1000;
    const childMs = childrenCpuMs() - children;
    return {
      rate: pages / seconds,
      cpuMs: (used.user + used.system) / 1000 / pages,
      childMs: childMs / pages,
      cores: ((used.user + used.system) / 1000 + childMs) / 1000 / seconds,
    };
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

  // Warm-up: code compiled, fonts and CMaps read once in each thread.
  await round("engine");
  await round("geometry");
  const engine: Figure[] = [];
  const geometry: Figure[] = [];
  for (let i = 0; i < rounds; i++) {
    engine.push(await round("engine"));
    geometry.push(await round("geometry"));
  }
  const rate = (figures: { rate: number }[]) => median(figures.map((f) => f.rate));
  const cpuMs = (figures: { cpuMs: number }[]) => median(figures.map((f) => f.cpuMs));
  const line = (label: string, figures: Figure[]) =>
    console.log(
      `${label.padEnd(34)}${rate(figures).toFixed(1).padStart(6)} pages/s ${cpuMs(figures).toFixed(1).padStart(7)} CPU ms/page  + OCR children ${median(figures.map((f) => f.childMs)).toFixed(1)}  ${median(figures.map((f) => f.cores)).toFixed(2)} cores`,
    );
  console.log(
    `${files.length} PDFs, ${threads} threads, ${rounds} rounds (median), load average ${loadavg()[0].toFixed(1)}`,
  );
  line("engine (layout, tables, views):", engine);
  line("geometry only (pdf.js text):", geometry);
  console.log(
    `engine / geometry-only:           ${(rate(engine) / rate(geometry)).toFixed(2)} (pages/s), ${(cpuMs(geometry) / cpuMs(engine)).toFixed(2)} (CPU)`,
  );
  await Promise.all(workers.map((worker) => worker.terminate()));
}
