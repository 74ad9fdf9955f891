/**
 * Template builds on real sandboxes of the local executor, on a server in this process with a fresh data dir
 * (the default image from the tests' shared cache). Run as root:
 *
 *   npx node bench/template-build-bench.ts [--runs 3] [--run-secs 1]
 *
 * A three-step Dockerfile (ENV, COPY of a small tree, RUN of `sleep --run-secs`) is built uncached (a new file
 * content each run, so COPY and RUN run again) and fully cached (the same context under a new template name).
 * Prints, each against its target: the uncached build beyond its RUN time (target ≤ 10 s), with where the time
 * went (build sandbox start, each step, its snapshot), and the fully cached build (target ≤ 1 s).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { BuildLogEvent } from "@svc/contract";
import { Client } from "@svc/sdk";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "3" }, "run-secs": { type: "string", default: "1" } },
});
const RUNS = Number(values.runs);
const RUN_SECS = Number(values["run-secs"]);
if (process.getuid?.() !== 0) {
  console.error("template-build-bench: run as root (the local executor needs it)");
  process.exit(2);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

function context(nonce: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "svc-build-bench-"));
  try {
    mkdirSync(join(dir, "app"));
    for (let i = 0; i < 20; i++)
      writeFileSync(join(dir, "app", `file-${i}.txt`), `${nonce} ${i}\n`.repeat(100));
    writeFileSync(
      join(dir, "Dockerfile"),
      `FROM default\nENV MODE=bench\nCOPY app/ /opt/app/\nRUN sleep ${RUN_SECS} && ls /opt/app | wc -l > /opt/app/count\n`,
    );
    return execFileSync("tar", ["-C", dir, "-cf", "-", "."]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const server = await startTestServer({ executor: "local" });
try {
  const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  // A first sandbox warms the machine's default image (built once per machine, not part of a build's time).
  const warm = await client.sandboxes.create({ resources: { cpus: 0.5, memory_mb: 512 } });
  await warm.waitUntilRunning({ timeoutMs: 600_000 });
  await warm.delete();

  const uncached: number[] = [];
  const cached: number[] = [];
  const phases = new Map<string, number[]>();
  for (let run = 0; run < RUNS; run++) {
    const tar = context(`run-${run}-${Date.now()}`);
    const log: BuildLogEvent[] = [];
    let started = performance.now();
    const first = await client.templates.build(`bench-${run}`, tar, { onLog: (event) => log.push(event) });
    if (first.status !== "succeeded") throw new Error(`build failed: ${first.error}`);
    uncached.push(performance.now() - started);
    // Where the time went: from each builder line to the next.
    const marks = log.filter((event) => event.stream === "build");
    for (let i = 0; i + 1 < marks.length; i++) {
      const label = marks[i].line
        .replace(/sbx-\S+/, "sbx")
        .replace(/\s+\(cached\)$/, "")
        .slice(0, 50);
      const list = phases.get(label) ?? [];
      list.push(marks[i + 1].timestamp - marks[i].timestamp);
      phases.set(label, list);
    }
    started = performance.now();
    const again = await client.templates.build(`bench-${run}-cached`, tar);
    if (again.status !== "succeeded" || again.cached_steps !== again.steps)
      throw new Error("the rebuild was not cached");
    cached.push(performance.now() - started);
  }
  const beyondRun = median(uncached) / 1000 - RUN_SECS;
  console.log(
    `uncached 3-step build          median ${(median(uncached) / 1000).toFixed(2)} s, beyond its ${RUN_SECS} s RUN ${beyondRun.toFixed(2)} s  (target ≤ 10 s: ${beyondRun <= 10 ? "met" : "NOT met"})`,
  );
  for (const [label, xs] of phases) console.log(`  ${label.padEnd(50)} ${(median(xs) / 1000).toFixed(2)} s`);
  console.log(
    `fully cached rebuild           median ${(median(cached) / 1000).toFixed(3)} s  (target ≤ 1 s: ${median(cached) <= 1000 ? "met" : "NOT met"})`,
  );
} finally {
  await server.stop();
}
