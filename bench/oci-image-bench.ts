/**
 * Sandboxes from OCI images on the local executor (run as root), with Debian's docker-registry on loopback
 * (htpasswd auth) as the registry and images made here with umoci:
 *
 *   node bench/oci-image-bench.ts [--runs 5] [--mb 30]
 *
 * Prints: the first pull of a `--mb` MB image (a busybox-static tree plus incompressible data), the executor's
 * `image` step and create → running, against the 5 s target; then create → running of a sandbox from the now
 * cached image and from the built-in image, alternating, medians and their ratio (target: the cached image
 * starts within the built-in image's budget, ratio ≤ 1.2 on a quiet machine).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@svc/sdk";
import { pushTestImage, startRegistry } from "../packages/server/src/executor/linux/registry-testbed.ts";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, mb: { type: "string", default: "30" } },
});
const RUNS = Number(values.runs);
const MB = Number(values.mb);
if (process.getuid?.() !== 0) {
  console.error("oci-image-bench: run as root (the local executor needs it)");
  process.exit(2);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const ms = (x: number) => `${x.toFixed(0)} ms`;

const registry = await startRegistry();
const busybox = readFileSync(execFileSync("sh", ["-c", "command -v busybox"], { encoding: "utf8" }).trim());
const layout = pushTestImage(registry, "bench/big", "v1", {
  files: {
    "bin/sh": busybox,
    "etc/passwd": "root:x:0:0:root:/root:/bin/sh\n",
    "data/blob": randomBytes(MB * 1024 * 1024 - busybox.length),
  },
  modes: { "bin/sh": 0o755 },
});
const imageSteps = new Map<string, number>();
const server = await startTestServer(
  { executor: "local", allowedRegistries: [registry.address] },
  { onSandboxStarted: (id, timeline) => imageSteps.set(id, timeline.durations().image ?? Number.NaN) },
);
const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
const resources = { cpus: 1, memory_mb: 512, disk_mb: 256 };
/** create → running, and the sandbox deleted after. */
const start = async (image?: string) => {
  const began = performance.now();
  const sandbox = await client.sandboxes.create({ resources, ...(image ? { image } : {}) });
  await sandbox.waitUntilRunning({ timeoutMs: 600_000 });
  const took = performance.now() - began;
  await sandbox.delete();
  return { took, image: imageSteps.get(sandbox.id) ?? Number.NaN };
};
try {
  await client.registries.put(registry.address, { username: registry.username, password: registry.password });
  const reference = `${registry.address}/bench/big:v1`;
  // The built-in image first (built if missing), so neither side below pays for it.
  await start();
  const first = await start(reference);
  console.log(
    `first pull of a ${MB} MB image from the loopback registry: image step ${ms(first.image)}, create → running ${ms(first.took)}  (target pull ≤ 5000 ms: ${first.image <= 5000 ? "met" : "NOT met"})`,
  );
  const cached: number[] = [];
  const builtIn: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    cached.push((await start(reference)).took);
    builtIn.push((await start()).took);
  }
  const ratio = median(cached) / median(builtIn);
  console.log(`create → running, cached OCI image: median ${ms(median(cached))} over ${RUNS}`);
  console.log(`create → running, built-in image:   median ${ms(median(builtIn))} over ${RUNS}`);
  console.log(
    `ratio cached OCI / built-in: ${ratio.toFixed(2)}  (target ≤ 1.2: ${ratio <= 1.2 ? "met" : "NOT met"})`,
  );
} finally {
  await server.stop();
  await registry.stop();
  rmSync(dirname(layout), { recursive: true, force: true });
}
