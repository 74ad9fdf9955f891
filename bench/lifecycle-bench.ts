/**
 * Suspend, resume, pool claims and snapshots on real sandboxes of the local executor, on a server in this process
 * with a fresh data dir (the default image from the tests' shared cache). Run as root:
 *
 *   npx node bench/lifecycle-bench.ts [--runs 20] [--gib 1]
 *
 * Prints, each against its target: suspend and resume (the API call, which answers once the sandbox is frozen or
 * running again), p50 and p90; a claim from a warm pool (the API call, which answers with a running sandbox),
 * p50 and p90; a snapshot (from the call until it is completed) of a sandbox with `--gib` GiB of changed files,
 * seconds per GiB, against copying the same bytes on the host with cp.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@svc/sdk";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "20" }, gib: { type: "string", default: "1" } },
});
const RUNS = Number(values.runs);
const GIB = Number(values.gib);
if (process.getuid?.() !== 0) {
  console.error("lifecycle-bench: run as root (the local executor needs it)");
  process.exit(2);
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
};
const line = (label: string, xs: number[], target: number) =>
  console.log(
    `${label.padEnd(30)} p50 ${quantile(xs, 0.5).toFixed(1)} ms  p90 ${quantile(xs, 0.9).toFixed(1)} ms  (target p50 ≤ ${target} ms: ${quantile(xs, 0.5) <= target ? "met" : "NOT met"})`,
  );
const timed = async (action: () => Promise<unknown>) => {
  const started = performance.now();
  await action();
  return performance.now() - started;
};

const server = await startTestServer({ executor: "local" });
try {
  const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  const sandbox = await client.sandboxes.create({
    name: "bench",
    resources: { cpus: 1, memory_mb: 2048, disk_mb: 1024 * (GIB + 2) },
  });
  await sandbox.waitUntilRunning({ timeoutMs: 300_000 });
  await sandbox.processes.start({ command: "sleep", args: ["3600"] });

  const suspend: number[] = [];
  const resume: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    suspend.push(await timed(() => sandbox.suspend()));
    resume.push(await timed(() => sandbox.resume()));
  }
  line("suspend", suspend, 50);
  line("resume", resume, 50);

  const { pool_id } = await client.pools.create({
    resources: { cpus: 0.5, memory_mb: 256, disk_mb: 512 },
    warm_containers: 2,
  });
  const warmRunning = async () => {
    for (let i = 0; i < 3000; i++) {
      const idle = (await client.pools.get(pool_id)).containers.filter((c) => c.state === "Idle");
      const states = await Promise.all(
        idle.map(async (c) => (await client.sandboxes.get(c.id)).record?.status),
      );
      if (states.filter((s) => s === "running").length >= 2) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error("the pool never refilled");
  };
  const claims: number[] = [];
  const claimed: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    await warmRunning();
    let id = "";
    claims.push(await timed(async () => ({ sandbox_id: id } = await client.pools.claim(pool_id))));
    claimed.push(id);
    await (await client.sandboxes.get(id)).delete();
  }
  line("claim from a warm pool", claims, 30);
  for (const id of claimed) await (await client.sandboxes.get(id)).delete().catch(() => undefined);
  await client.pools.delete(pool_id);

  // Changed files: GIB GiB of random bytes written in the sandbox, then a snapshot.
  await sandbox.run("dd", {
    args: ["if=/dev/urandom", "of=/home/svc-user/changed.bin", "bs=1M", `count=${1024 * GIB}`],
  });
  const snapshotMs = await timed(async () => {
    const { snapshot_id } = await sandbox.snapshot();
    await client.snapshots.wait(snapshot_id);
  });
  const file = join(server.dataDir, "bench-copy.bin");
  execFileSync("dd", ["if=/dev/urandom", `of=${file}`, "bs=1M", `count=${1024 * GIB}`, "status=none"]);
  const cpMs = await timed(async () => execFileSync("cp", [file, `${file}.copy`]));
  execFileSync("rm", ["-f", file, `${file}.copy`]);
  console.log(
    `${"snapshot".padEnd(30)} ${(snapshotMs / 1000 / GIB).toFixed(2)} s per GiB changed; cp of the same bytes on the host ${(cpMs / 1000 / GIB).toFixed(2)} s per GiB (ratio ${(snapshotMs / cpMs).toFixed(2)})`,
  );
  await sandbox.delete();
} finally {
  await server.stop();
}
