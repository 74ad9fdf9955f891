/**
 * Parse jobs benchmark: a real server on SQLite, small markdown jobs.
 *
 *   npx node bench/documents-bench.ts [--jobs 1000] [--workers 2] [--concurrency 8]
 *
 * Prints: latency of `POST /documents/v2/parse` (p50, p90, p99) with no worker running; how fast the workers drain
 * the queued jobs (jobs/s, the server's start with its worker threads included); and end to end, jobs/s of
 * submitting and running at once, with the POST p50 while the workers run.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startTestServer, type TestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "1000" },
    workers: { type: "string", default: "2" },
    concurrency: { type: "string", default: "8" },
  },
});
const JOBS = Number(values.jobs);
const WORKERS = Number(values.workers);
const CONCURRENCY = Number(values.concurrency);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function start(dataDir: string, workers: number): Promise<TestServer> {
  return startTestServer({ dataDir }, { documents: { workers } });
}

/** Submits `count` small text jobs from `concurrency` clients; returns each POST's latency in ms. */
async function submit(server: TestServer, count: number, concurrency: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        const started = performance.now();
        const response = await fetch(`${server.url}/documents/v2/parse`, {
          method: "POST",
          headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({
            raw_text: `# Note ${n}\n\nA small document of a few words.\n\n- one\n- two`,
            mime_type: "text/markdown",
          }),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`POST /parse answered ${response.status}`);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

async function waitForAll(server: TestServer, count: number): Promise<void> {
  for (;;) {
    const [row] = await server.store.db.query<{ done: number; failed: number }>(
      "SELECT SUM(CASE WHEN status = 'successful' THEN 1 ELSE 0 END) AS done, SUM(CASE WHEN status = 'failure' THEN 1 ELSE 0 END) AS failed FROM parse_jobs",
    );
    if (Number(row.failed) > 0) throw new Error(`${row.failed} jobs failed`);
    if (Number(row.done) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function run(): Promise<void> {
  console.log(
    `documents bench: ${JOBS} small markdown jobs, ${WORKERS} workers, ${CONCURRENCY} concurrent clients, SQLite`,
  );

  // 1. POST latency with nobody running jobs, then the workers drain the queue.
  const queued = await mkdtemp(path.join(tmpdir(), "svc-bench-"));
  try {
    let server = await start(queued, 0);
    const idle = await submit(server, JOBS, 1);
    await server.close();
    console.log(
      `POST /parse, one client, no workers:  p50 ${ms(percentile(idle, 50))}  p90 ${ms(percentile(idle, 90))}  p99 ${ms(percentile(idle, 99))}`,
    );
    const started = performance.now();
    server = await start(queued, WORKERS);
    await waitForAll(server, JOBS);
    const seconds = (performance.now() - started) / 1000;
    await server.close();
    console.log(
      `drain: ${JOBS} queued jobs in ${seconds.toFixed(2)} s = ${(JOBS / seconds).toFixed(0)} jobs/s with ${WORKERS} workers`,
    );
  } finally {
    await rm(queued, { recursive: true, force: true });
  }

  // 2. End to end: clients submit while the workers run.
  const live = await mkdtemp(path.join(tmpdir(), "svc-bench-"));
  try {
    const server = await start(live, WORKERS);
    const started = performance.now();
    const busy = await submit(server, JOBS, CONCURRENCY);
    await waitForAll(server, JOBS);
    const seconds = (performance.now() - started) / 1000;
    await server.close();
    console.log(
      `end to end: ${JOBS} jobs submitted and run in ${seconds.toFixed(2)} s = ${(JOBS / seconds).toFixed(0)} jobs/s; POST /parse p50 ${ms(percentile(busy, 50))} with ${CONCURRENCY} clients while workers run`,
    );
  } finally {
    await rm(live, { recursive: true, force: true });
  }
}

await run();
