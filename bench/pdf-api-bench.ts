/**
 * Born-digital PDF speed through the API: a real server (SQLite, its default parse workers) parses one large
 * born-digital PDF uploaded with `PUT /documents/v2/files` and submitted with `POST /documents/v2/parse`, timed
 * from the submit until the job reads `successful`. In the same run, as baselines: the engine on the same file in
 * this process (`parseDocument`, no server), and pdf.js reading only the text of its pages.
 *
 *   node bench/pdf-api-bench.ts [--repeat 14] [--rounds 3]
 *
 * The PDF is built in a temporary directory with pdf-lib from the corpus's born-digital PDFs (docling's
 * `pdf/sources`, 44 pages), repeated `--repeat` times (616 pages by default, the size of the issue's report);
 * no font beyond the PDFs' own is needed. Prints the medians of the rounds: pages per second and CPU
 * milliseconds per page (the whole process: server, worker threads, this client; not the OCR child processes) for
 * each path, and the ratios, with the load average (other processes on the machine slow every figure alike).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument } from "pdf-lib";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";
import { startTestServer, type TestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: { repeat: { type: "string", default: "14" }, rounds: { type: "string", default: "3" } },
});
const REPEAT = Number(values.repeat);
const ROUNDS = Number(values.rounds);

/** The corpus's born-digital PDFs, each repeated `repeat` times in a row, as one document. */
async function largePdf(repeat: number): Promise<Uint8Array<ArrayBuffer>> {
  if (!DOCLING_DATA) throw new Error("the shared corpus is needed: set SVC_CORPUS_DIR");
  const dir = path.join(DOCLING_DATA, "pdf/sources");
  const names = (await readdir(dir)).filter((name) => name.endsWith(".pdf")).sort();
  const sources = await Promise.all(
    names.map(async (name) => PDFDocument.load(await readFile(path.join(dir, name)))),
  );
  const out = await PDFDocument.create();
  for (let r = 0; r < repeat; r++) {
    for (const source of sources) {
      for (const page of await out.copyPages(source, source.getPageIndices())) out.addPage(page);
    }
  }
  return new Uint8Array(await out.save());
}

interface Figure {
  seconds: number;
  cpuMs: number;
  pages: number;
}

/** Runs `work` and measures its wall time and the CPU time of the whole process (all threads) meanwhile. */
async function timed(work: () => Promise<number>): Promise<Figure> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const pages = await work();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { seconds, cpuMs: (used.user + used.system) / 1000, pages };
}

/** The engine in this process, as a parse thread runs it. */
async function inProcess(bytes: Uint8Array): Promise<number> {
  const { parseDocument } = await import("../packages/docparse/src/index.ts");
  const { result } = await parseDocument({ bytes: bytes.slice(), mimeType: "application/pdf" });
  return result.parsed_pages_count;
}

/** pdf.js reading each page's text and nothing else. */
async function textOnly(bytes: Uint8Array): Promise<number> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const doc = await pdfjs.getDocument({ data: bytes.slice(), verbosity: 0 }).promise;
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    await page.getTextContent();
    page.cleanup();
  }
  const pages = doc.numPages;
  await doc.destroy();
  return pages;
}

/** Uploads the PDF once; each call submits a parse of it and waits until it is `successful`. */
async function apiParser(server: TestServer, bytes: Uint8Array<ArrayBuffer>) {
  const authorization = `Bearer ${server.apiKey}`;
  const form = new FormData();
  form.set("file", new Blob([bytes], { type: "application/pdf" }), "large.pdf");
  const upload = await fetch(`${server.url}/documents/v2/files`, {
    method: "PUT",
    headers: { authorization },
    body: form,
  });
  const { file_id } = (await upload.json()) as { file_id: string };
  if (!file_id) throw new Error(`upload answered ${upload.status}`);
  return async (): Promise<number> => {
    const submit = await fetch(`${server.url}/documents/v2/parse`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify({ file_id }),
    });
    const { parse_id } = (await submit.json()) as { parse_id: string };
    if (!parse_id) throw new Error(`POST /parse answered ${submit.status}`);
    for (;;) {
      const response = await fetch(`${server.url}/documents/v2/parse/${parse_id}`, {
        headers: { authorization },
      });
      const job = (await response.json()) as { status: string; parsed_pages_count?: number; error?: string };
      if (job.status === "successful") return job.parsed_pages_count ?? 0;
      if (job.status === "failure") throw new Error(`the parse failed: ${job.error}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
}

const median = (figures: number[]) => [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)];
function summary(label: string, figures: Figure[]): { pagesPerSecond: number; cpuMsPerPage: number } {
  const pagesPerSecond = median(figures.map((f) => f.pages / f.seconds));
  const cpuMsPerPage = median(figures.map((f) => f.cpuMs / f.pages));
  const wall = median(figures.map((f) => f.seconds));
  console.log(
    `${label.padEnd(34)} ${pagesPerSecond.toFixed(1).padStart(6)} pages/s  ${cpuMsPerPage.toFixed(1).padStart(6)} CPU ms/page  (${wall.toFixed(2)} s)`,
  );
  return { pagesPerSecond, cpuMsPerPage };
}

const bytes = await largePdf(REPEAT);
const pageCount = (await PDFDocument.load(bytes)).getPageCount();
const dataDir = await mkdtemp(path.join(tmpdir(), "svc-pdf-api-bench-"));
let server: TestServer | undefined;
try {
  // The server with its default settings: as many parse workers as a plain start has.
  server = await startTestServer({ dataDir });
  const viaApi = await apiParser(server, bytes);
  // Warm-up: code compiled, fonts and CMaps read once, the parse threads started.
  await inProcess(bytes);
  await textOnly(bytes);
  await viaApi();
  const api: Figure[] = [];
  const engine: Figure[] = [];
  const text: Figure[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    api.push(await timed(viaApi));
    engine.push(await timed(() => inProcess(bytes)));
    text.push(await timed(() => textOnly(bytes)));
  }
  console.log(
    `one ${pageCount}-page born-digital PDF (${(bytes.length / 1e6).toFixed(1)} MB), ${ROUNDS} rounds (median); load average ${loadavg()[0].toFixed(1)} at the end (other processes share the cores)`,
  );
  const a = summary("API (submit → successful)", api);
  const e = summary("engine in process (no server)", engine);
  const t = summary("pdf.js text only", text);
  console.log(`API / engine in process:           ${(a.pagesPerSecond / e.pagesPerSecond).toFixed(2)}`);
  console.log(`API / pdf.js text only:            ${(a.pagesPerSecond / t.pagesPerSecond).toFixed(2)}`);
} finally {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
}
