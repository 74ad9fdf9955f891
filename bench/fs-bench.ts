/**
 * File-system mount benchmark: real sandboxes of the local executor, a server in this process with a fresh data
 * dir (the default image from the tests' shared cache). Run as root:
 *
 *   npx node bench/fs-bench.ts [--attaches 20] [--mib 256] [--runs 3]
 *
 * Prints:
 * - attach → usable: from POST /sandboxes/{id}/file_systems until a process in the sandbox reads a file of the
 *   tree, p50 and p90 over `--attaches` attaches (each then detached); the same poll of a path already there is
 *   the baseline (it is what one round trip of the check costs);
 * - read throughput of a `--mib` MiB file through a read-only mount against the same read of the same file on
 *   the host, both cold (the page cache dropped first) and warm, medians of `--runs`, and the ratio.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@svc/sdk";
import { LocalFileSystemStorage } from "../packages/server/src/filesystems/storage.ts";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: {
    attaches: { type: "string", default: "20" },
    mib: { type: "string", default: "256" },
    runs: { type: "string", default: "3" },
  },
});
const ATTACHES = Number(values.attaches);
const MIB = Number(values.mib);
const RUNS = Number(values.runs);

if (process.getuid?.() !== 0) {
  console.error("fs-bench: run as root (the local executor needs it)");
  process.exit(2);
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
};
const line = (label: string, text: string) => console.log(`${label.padEnd(46)} ${text}`);
const dropCaches = () => writeFileSync("/proc/sys/vm/drop_caches", "3");

const server = await startTestServer({ executor: "local" });
try {
  const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  const fs = await client.fileSystems.create({ name: "bench" });
  await client.fileSystems.write("bench", "probe.txt", "x");
  const sandbox = await client.sandboxes.create({ resources: { cpus: 1, memory_mb: 1024, disk_mb: 1024 } });
  await sandbox.waitUntilRunning({ timeoutMs: 300_000 });
  const readable = async (path: string) => (await sandbox.run("test", { args: ["-r", path] })).exitCode === 0;

  const attach: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < ATTACHES; i++) {
    const path = `/mnt/bench-${i}`;
    const started = performance.now();
    await sandbox.mount({ file_system_id: "bench", mount_path: path, read_only: true });
    for (let tries = 0; !(await readable(`${path}/probe.txt`)); tries++) {
      if (tries > 2000) throw new Error(`${path} never became usable`);
    }
    attach.push(performance.now() - started);
    const again = performance.now();
    await readable(`${path}/probe.txt`);
    baseline.push(performance.now() - again);
    await sandbox.unmount(path);
  }
  line(
    "attach → usable (p50, p90)",
    `${quantile(attach, 0.5).toFixed(1)} ms, ${quantile(attach, 0.9).toFixed(1)} ms`,
  );
  line("one check round trip, baseline (p50)", `${quantile(baseline, 0.5).toFixed(1)} ms`);

  // A file of random bytes in the tree, read with dd inside the sandbox and on the host.
  const head = new LocalFileSystemStorage(server.dataDir).localPath(fs.id);
  const file = join(head, "big.bin");
  execFileSync("dd", ["if=/dev/urandom", `of=${file}`, "bs=1M", `count=${MIB}`, "status=none"]);
  await sandbox.mount({ file_system_id: "bench", mount_path: "/data", read_only: true });
  while (!(await readable("/data/big.bin"))) await new Promise((r) => setTimeout(r, 10));
  const timed = async (read: () => Promise<unknown> | unknown, cold: boolean) => {
    const results: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      if (cold) dropCaches();
      const started = performance.now();
      await read();
      results.push(MIB / ((performance.now() - started) / 1000));
    }
    return quantile(results, 0.5);
  };
  const inSandbox = () =>
    sandbox.run("dd", { args: ["if=/data/big.bin", "of=/dev/null", "bs=1M", "status=none"] });
  const onHost = () => execFileSync("dd", [`if=${file}`, "of=/dev/null", "bs=1M", "status=none"]);
  for (const cold of [true, false]) {
    const mounted = await timed(inSandbox, cold);
    const host = await timed(onHost, cold);
    line(
      `read ${MIB} MiB, ${cold ? "cold" : "warm"}: mount / host`,
      `${mounted.toFixed(0)} MiB/s / ${host.toFixed(0)} MiB/s = ${(mounted / host).toFixed(2)}`,
    );
  }
  await sandbox.delete();
} finally {
  await server.stop();
}
