/**
 * Born-digital PDF speed through the API: a real server (SQLite, its default parse workers) parses one large
 * born-digital PDF uploaded with `PUT /documents/v2/files` and submitted with `POST /documents/v2/parse`, timed
 * from the submit until the client holds the `successful` result, waited for as the SDK does (`documents.wait()`:
 * the job's event stream) or, with `--poll <ms>`, by GETs of the job at that interval. In the same run, as
 * baselines: the engine on the same file in this process (`parseDocument`, no server), and pdf.js reading only the
 * text of its pages.
 *
 *   node bench/pdf-api-bench.ts [--repeat 14] [--rounds 3] [--poll 20]
 *
 * The PDF is built in a temporary directory with pdf-lib from the corpus's born-digital PDFs (docling's
 * `pdf/sources`, 44 pages), repeated `--repeat` times (616 pages by default, the size of the issue's report);
 * no font beyond the PDFs' own is needed. Prints the medians of the rounds: pages per second, CPU milliseconds per
 * page of the whole process (server, parse and helper threads, this client) and of the OCR child processes that
 * read text in images, and how many cores they kept busy (2: both, all the time); then the ratios, with the load
 * average (other processes on the machine slow every figure alike).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@svc/sdk";
import { PDFDocument } from "pdf-lib";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";
import { startTestServer, type TestServer } from "../packages/server/src/testing.ts";
import { childrenCpuMs } from "./children-cpu.ts";

const { values } = parseArgs({
  options: {
    repeat: { type: "string", default: "14" },
    rounds: { type: "string", default: "3" },
    poll: { type: "string" },
  },
});
const REPEAT = Number(values.repeat);
const ROUNDS = Number(values.rounds);
const POLL_MS = values.poll === undefined ? null : Number(values.poll);

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
  /** CPU time of the child processes meanwhile (OCR of text in images: tesseract and the helper starting it). */
  childMs: number;
  pages: number;
}

/** Runs `work` and measures its wall time and the CPU time of the whole process (all threads) meanwhile. */
async function timed(work: () => Promise<number>): Promise<Figure> {
  const cpu = process.cpuUsage();
  const children = childrenCpuMs();
  const start = performance.now();
  const pages = await work();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return { seconds, cpuMs: (used.user + used.system) / 1000, childMs: childrenCpuMs() - children, pages };
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

/**
 * Uploads the PDF once; each call submits a parse of it and waits until it is `successful`: by default as the SDK
 * waits (`documents.wait()`: the job's event stream), with `--poll <ms>` by GETs of the job at that interval.
 */
async function apiParser(server: TestServer, bytes: Uint8Array<ArrayBuffer>) {
  const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  const { file_id } = await client.documents.files.upload(bytes, { fileName: "large.pdf" });
  return async (): Promise<number> => {
    const { parse_id } = await client.documents.parse({ file_id });
    const result =
      POLL_MS === null
        ? await client.documents.wait(parse_id)
        : await (async () => {
            for (;;) {
              const job = await client.documents.get(parse_id);
              if (job.status === "successful" || job.status === "failure") return job;
              await new Promise((resolve) => setTimeout(resolve, POLL_MS));
            }
          })();
    if (result.status !== "successful") throw new Error(`the parse failed: ${result.error}`);
    return result.parsed_pages_count ?? 0;
  };
}

const median = (figures: number[]) => [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)];
function summary(label: string, figures: Figure[]): { pagesPerSecond: number; cpuMsPerPage: number } {
  const pagesPerSecond = median(figures.map((f) => f.pages / f.seconds));
  const cpuMsPerPage = median(figures.map((f) => f.cpuMs / f.pages));
  const childMsPerPage = median(figures.map((f) => f.childMs / f.pages));
  // How many cores the process and its OCR children kept busy on average while it ran: 2 is both, all the time.
  const cores = median(figures.map((f) => (f.cpuMs + f.childMs) / 1000 / f.seconds));
  const wall = median(figures.map((f) => f.seconds));
  console.log(
    `${label.padEnd(34)} ${pagesPerSecond.toFixed(1).padStart(6)} pages/s  ${cpuMsPerPage.toFixed(1).padStart(6)} CPU ms/page  ${cores.toFixed(2)} cores  + OCR children ${childMsPerPage.toFixed(1)} CPU ms/page  (${wall.toFixed(2)} s)`,
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
