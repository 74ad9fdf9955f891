import assert from "node:assert/strict";
import os from "node:os";
import { after, before, describe, test } from "node:test";
import { Client, type Sandbox } from "@svc/sdk";
import { startTestServer, type TestServer } from "../../testing.ts";
import { daemonReserve } from "./cgroup.ts";
import { missingPrerequisite, removeLeftovers, SANDBOX_TOOLS } from "./test-support.ts";

const skip = missingPrerequisite([...SANDBOX_TOOLS, "lxcfs", "taskset"]);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;

/**
 * Issue 30, item 3: inside a 1-CPU, 1 GiB sandbox, `free`, /proc/meminfo, /proc/uptime and `nproc` show the
 * sandbox's own limits (lxcfs and CPU pinning), not the host's.
 */
describe("a sandbox sees its own limits in /proc and nproc", { skip }, () => {
  let server: TestServer;
  let sandbox: Sandbox;
  let createdAt = 0;

  before(async () => {
    server = await startTestServer({ executor: "local" });
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    createdAt = Date.now();
    sandbox = await client.sandboxes.create({ resources: { cpus: 1, memory_mb: 1024, disk_mb: 1024 } });
    await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
  });

  after(async () => {
    await sandbox?.delete().catch(() => undefined);
    if (!server) return;
    await removeLeftovers(server.dataDir);
    await server.stop();
  });

  test("free and /proc/meminfo: the sandbox's memory; nproc: its CPUs; /proc/uptime: its own", {
    timeout: FIRST_START_MS + 60_000,
  }, async () => {
    const result = await sandbox.run("sh", {
      args: [
        "-c",
        "nproc; awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo; free -b | awk '/^Mem:/ {print $2}'; cut -d' ' -f1 /proc/uptime; grep -c ^processor /proc/cpuinfo; grep -c '^cpu[0-9]' /proc/stat",
      ],
    });
    assert.equal(result.exitCode, 0, result.stderr);
    const [nproc, memTotal, freeTotal, uptime, cpuinfo, statCpus] = result.stdout
      .trim()
      .split("\n")
      .map(Number);
    console.log(
      `# in the sandbox: nproc ${nproc}, MemTotal ${memTotal} B, uptime ${uptime} s, cpuinfo ${cpuinfo} CPUs, /proc/stat ${statCpus} CPUs (host: ${os.availableParallelism()} CPUs)`,
    );
    const mib = 1024 * 1024;
    // The user's processes get the sandbox's memory less the daemon's reserve: that is what they can use.
    const reserve = daemonReserve({ cpus: 1, memoryMb: 1024 }).memoryMb;
    assert.ok(memTotal <= 1024 * mib, `MemTotal ${memTotal / mib} MiB is the host's, not 1024 MiB`);
    assert.ok(memTotal >= (1024 - reserve) * mib, `MemTotal ${memTotal / mib} MiB`);
    assert.equal(freeTotal, memTotal);
    assert.ok(os.totalmem() > 2048 * mib, "this check needs a host with more memory than the sandbox");
    if (os.availableParallelism() > 1) assert.equal(nproc, 1);
    const ageSecs = (Date.now() - createdAt) / 1000;
    assert.ok(uptime <= ageSecs + 5, `uptime ${uptime} s is older than the sandbox (${ageSecs} s)`);
  });
});
