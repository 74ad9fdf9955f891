/**
 * HTML (and CSV) parsing throughput: small documents through the whole engine (decode, parse5, items, views),
 * in worker threads as the server runs them, against parse5 alone parsing the same pages in as many threads
 * (the floor the reader adds to).
 *
 *   node bench/markup-bench.ts [--threads 2] [--docs 4000] [--format html|csv]
 *
 * The documents are the corpus's HTML (or CSV) files under 10 KB, repeated to --docs. Prints documents per
 * second for both after a warm-up round, and their ratio.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";

interface Job {
  mode: "engine" | "parse5";
  format: "html" | "csv";
  files: string[];
  docs: number;
}

async function runJob(job: Job): Promise<number> {
  const inputs = job.files.map((file) => new Uint8Array(readFileSync(file)));
  const mimeType = job.format === "html" ? "text/html" : "text/csv";
  const { parseDocument } = await import("../packages/docparse/src/index.ts");
  const { parse } = await import("parse5");
  const once = async (bytes: Uint8Array) => {
    if (job.mode === "engine") await parseDocument({ bytes, mimeType });
    else parse(new TextDecoder().decode(bytes), { sourceCodeLocationInfo: true });
  };
  for (const bytes of inputs) await once(bytes); // warm-up
  const started = performance.now();
  for (let i = 0; i < job.docs; i++) await once(inputs[i % inputs.length]);
  return performance.now() - started;
}

if (!isMainThread) {
  parentPort?.postMessage(await runJob(workerData as Job));
} else {
  const { values } = parseArgs({
    options: {
      threads: { type: "string", default: "2" },
      docs: { type: "string", default: "4000" },
      format: { type: "string", default: "html" },
    },
  });
  if (!DOCLING_DATA) throw new Error("the shared corpus is needed (SVC_CORPUS_DIR)");
  const format = values.format === "csv" ? "csv" : "html";
  const dir = path.join(DOCLING_DATA, format, "sources");
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(`.${format}`))
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).size < 10_000);
  const threads = Number(values.threads);
  const docs = Number(values.docs);
  const measure = async (mode: Job["mode"]) => {
    const started = performance.now();
    await Promise.all(
      Array.from(
        { length: threads },
        () =>
          new Promise<number>((resolve, reject) => {
            const worker = new Worker(new URL(import.meta.url), {
              workerData: { mode, format, files, docs: Math.ceil(docs / threads) } satisfies Job,
            });
            worker.once("message", resolve);
            worker.once("error", reject);
          }),
      ),
    );
    // Whole wall time, thread start-up and warm-up included: what a burst of jobs would see.
    return (Math.ceil(docs / threads) * threads) / ((performance.now() - started) / 1000);
  };
  const engine = await measure("engine");
  console.log(`${files.length} ${format} files under 10 KB, ${docs} documents, ${threads} threads`);
  console.log(`engine: ${engine.toFixed(0)} documents/s`);
  if (format === "html") {
    const floor = await measure("parse5");
    console.log(
      `parse5 alone: ${floor.toFixed(0)} documents/s (engine at ${((engine / floor) * 100).toFixed(0)}%)`,
    );
  }
}
