/**
 * CPU milliseconds a page of the engine in this process (all its threads, and its OCR children) on the large
 * born-digital PDF of `pdf-api-bench.ts` (docling's `pdf/sources`, 44 pages, repeated `--repeat` times): a quicker
 * figure than the API bench for comparing two versions of the code back to back on a loaded machine, where pages
 * per second are noise and CPU a page is not.
 *
 *   node bench/pdf-cpu.ts [--repeat 14] [--rounds 3]
 *
 * Prints each round and the median, with the load average (other processes slow the machine, and a busy core
 * costs more CPU time for the same work, so compare runs made at similar load, alternating), and each round's CPU
 * and page faults a page by kind of thread (thread-cpu.ts: the parse, the extraction helper, V8's background
 * compilers and collectors, sharp's threads).
 */
import { readdir, readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument } from "pdf-lib";
import { parseDocument } from "../packages/docparse/src/index.ts";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";
import { childrenCpuMs } from "./children-cpu.ts";
import { threadKinds, threadKindsPerPage } from "./thread-cpu.ts";

const { values } = parseArgs({
  options: { repeat: { type: "string", default: "14" }, rounds: { type: "string", default: "3" } },
});
if (!DOCLING_DATA) throw new Error("the shared corpus is needed: set SVC_CORPUS_DIR");
const dir = path.join(DOCLING_DATA, "pdf/sources");
const names = (await readdir(dir)).filter((name) => name.endsWith(".pdf")).sort();
const sources = await Promise.all(
  names.map(async (name) => PDFDocument.load(await readFile(path.join(dir, name)))),
);
const large = await PDFDocument.create();
for (let r = 0; r < Number(values.repeat); r++) {
  for (const source of sources) {
    for (const page of await large.copyPages(source, source.getPageIndices())) large.addPage(page);
  }
}
const bytes = new Uint8Array(await large.save());

async function round(): Promise<{
  cpu: number;
  child: number;
  seconds: number;
  faults: number;
  threads: string;
}> {
  const cpu = process.cpuUsage();
  const faults = process.resourceUsage().minorPageFault;
  const threads = threadKinds();
  const children = childrenCpuMs();
  const start = performance.now();
  const { result } = await parseDocument({ bytes: bytes.slice(), mimeType: "application/pdf" });
  const used = process.cpuUsage(cpu);
  const pages = result.parsed_pages_count;
  return {
    cpu: (used.user + used.system) / 1000 / pages,
    child: (childrenCpuMs() - children) / pages,
    seconds: (performance.now() - start) / 1000,
    faults: (process.resourceUsage().minorPageFault - faults) / pages,
    threads: threadKindsPerPage(threads, threadKinds(), pages),
  };
}

await round(); // warm-up
const figures = [];
for (let r = 0; r < Number(values.rounds); r++) {
  const f = await round();
  figures.push(f);
  console.log(
    `round ${r + 1}: ${f.cpu.toFixed(1)} CPU ms/page + ${f.child.toFixed(1)} OCR children, ${f.faults.toFixed(0)} page faults/page, ${f.seconds.toFixed(1)} s, load ${loadavg()[0].toFixed(1)}\n  by thread: ${f.threads}`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `median: ${median(figures.map((f) => f.cpu)).toFixed(1)} CPU ms/page + ${median(figures.map((f) => f.child)).toFixed(1)} OCR children (load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")})`,
);
