/**
 * OOXML parsing speed: every corpus source of a format (DOCX, PPTX, XLSX) parsed to its views over and over, in
 * one thread and in N worker threads at once (the 2-core target of the parsing engine).
 *
 *   npx node bench/ooxml-bench.ts [--format docx] [--seconds 5] [--workers 2]
 *
 * Prints: documents per second and mean milliseconds per document in one thread, documents per second with
 * the workers, and the ratio between the two.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { defaultCorpus, mimeTypeOf } from "../packages/docparse/src/eval/reference.ts";
import { parseDocument } from "../packages/docparse/src/index.ts";

interface Job {
  format: string;
  seconds: number;
}

/** Parses the format's sources round after round for `seconds`; returns how many documents were parsed. */
async function run({ format, seconds }: Job): Promise<number> {
  const dir = path.join(defaultCorpus(), format, "sources");
  const files = readdirSync(dir)
    .filter((name) => mimeTypeOf(name) !== null)
    .map((name) => ({
      bytes: new Uint8Array(readFileSync(path.join(dir, name))),
      mimeType: mimeTypeOf(name) as string,
    }));
  const end = performance.now() + seconds * 1000;
  let count = 0;
  while (performance.now() < end) {
    for (const file of files) {
      await parseDocument({ ...file, options: { parsing: { table_output_mode: "markdown" } } });
      count++;
    }
  }
  return count;
}

if (!isMainThread) {
  parentPort?.postMessage(await run(workerData as Job));
} else {
  const { values } = parseArgs({
    options: {
      format: { type: "string", default: "docx" },
      seconds: { type: "string", default: "5" },
      workers: { type: "string", default: "2" },
    },
  });
  const job: Job = { format: values.format, seconds: Number(values.seconds) };
  await run({ ...job, seconds: 1 }); // warm-up
  const single = (await run(job)) / job.seconds;
  const workers = Number(values.workers);
  const counts = await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<number>((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), {
            workerData: { ...job, seconds: job.seconds + 1 },
          });
          worker.once("message", resolve);
          worker.once("error", reject);
        }),
    ),
  );
  // Each worker ran one extra second, its warm-up included.
  const parallel = counts.reduce((sum, count) => sum + count, 0) / (job.seconds + 1);
  console.log(`${job.format}: 1 thread ${single.toFixed(0)} docs/s (${(1000 / single).toFixed(2)} ms/doc)`);
  console.log(
    `${job.format}: ${workers} workers ${parallel.toFixed(0)} docs/s (×${(parallel / single).toFixed(2)})`,
  );
}
