import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@svc/sdk";
import {
  removeDataDir,
  type ServerProcess,
  serverDataDir,
  startServerProcess,
  stopServerProcess,
} from "../../server-process.testing.ts";
import { startTestServer, type TestServer } from "../../testing.ts";
import { cgroupLayout, DEFAULT_CGROUP_PARENT, unifiedCgroupDir } from "./cgroup.ts";
import { LocalExecutor } from "./local-executor.ts";
import { missingPrerequisite, SANDBOX_TOOLS } from "./test-support.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;

/** Host pids still in any of a sandbox's cgroups (the cgroup2 group and the v1 pids group, with their children). */
function sandboxPids(id: string): number[] {
  const roots = [unifiedCgroupDir(id), join(cgroupLayout().v1.pids, DEFAULT_CGROUP_PARENT, id)];
  const pids: number[] = [];
  const walk = (dir: string) => {
    let procs: string;
    try {
      procs = readFileSync(join(dir, "cgroup.procs"), "utf8");
    } catch {
      return; // removed meanwhile, or never made
    }
    pids.push(...procs.split("\n").filter(Boolean).map(Number));
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
    }
  };
  for (const root of roots) if (existsSync(root)) walk(root);
  return pids;
}

/**
 * A DELETE of a suspended sandbox and a SIGTERM of the server at the same moment. The rule: a delete the server
 * accepted (its row ended terminated) is carried out before the server exits, so the sandbox's processes are gone
 * by then; one it refused leaves a sandbox that the next start adopts, still suspended. Several rounds, each
 * with the signal a little later, put the signal before and during the delete's work.
 */
describe("DELETE of a suspended sandbox while the server stops", { skip }, () => {
  let dataDir: string;
  let server: ServerProcess | undefined;

  before(async () => {
    dataDir = await serverDataDir("svc-delete-stop-");
  });

  after(async () => {
    if (server) await stopServerProcess(server);
    if (dataDir) await removeDataDir(dataDir);
  });

  const clientOf = async (running: ServerProcess) =>
    new Client({ apiKey: (await readFile(join(dataDir, "api-key"), "utf8")).trim(), baseUrl: running.url });

  test("an accepted delete is carried out before the exit; a refused one leaves a sandbox the restart adopts", {
    timeout: FIRST_START_MS + 600_000,
  }, async () => {
    server = await startServerProcess(dataDir, FIRST_START_MS);
    const outcomes: string[] = [];
    for (const delayMs of [0, 15]) {
      let client = await clientOf(server);
      const sandbox = await client.sandboxes.create({
        name: `delete-stop-${delayMs}`,
        resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 },
      });
      await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
      await sandbox.processes.start({ command: "sleep", args: ["600"] });
      assert.equal((await sandbox.suspend()).status, "suspended");
      assert.ok(sandboxPids(sandbox.id).length > 0, "the suspended sandbox has processes");

      const apiKey = (await readFile(join(dataDir, "api-key"), "utf8")).trim();
      const deleting: Promise<number | string> = fetch(`${server.url}/sandboxes/${sandbox.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${apiKey}` },
      }).then(
        (response) => response.status,
        (error: Error) => `no answer (${error.message})`,
      );
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      server.child.kill("SIGTERM");
      const answer: number | string = await deleting;
      const { code }: { code: number | null } = await server.exited;
      assert.equal(code, 0, `the server stops cleanly on SIGTERM: ${server.output()}`);
      // What the exit left, before anything else runs.
      const leftAtExit = sandboxPids(sandbox.id);

      server = await startServerProcess(dataDir, FIRST_START_MS);
      client = await clientOf(server);
      const record = (await client.sandboxes.get(sandbox.id)).record;
      outcomes.push(`${delayMs} ms: ${answer} -> ${record?.status}`);
      if (answer === 200) assert.equal(record?.status, "terminated", "an answered delete ended the sandbox");
      if (record?.status === "terminated") {
        assert.deepEqual(leftAtExit, [], `deleted (answer ${answer}), yet its processes outlived the server`);
      } else {
        assert.equal(
          record?.status,
          "suspended",
          `a refused delete leaves the sandbox as it was (${answer})`,
        );
        assert.ok(leftAtExit.length > 0, "the refused delete left the suspended sandbox's processes");
        await (await client.sandboxes.get(sandbox.id)).delete();
      }
      assert.deepEqual(sandboxPids(sandbox.id), [], "nothing of the sandbox runs after the restart");
      assert.equal(existsSync(unifiedCgroupDir(sandbox.id)), false, "its cgroup is removed");
    }
    console.log(`# ${outcomes.join("; ")}`);
    server.child.kill("SIGTERM");
    assert.equal((await server.exited).code, 0);
    server = undefined;
  });
});

/**
 * The same rule for an end that no HTTP request holds open (a pool's warm sandbox, a timeout): the server's
 * close waits for an end under way, so the frozen sandbox's processes are gone when close resolves.
 */
describe("an end under way when the server closes", { skip }, () => {
  let server: TestServer | undefined;

  after(async () => {
    if (!server) return;
    await server.close().catch(() => undefined);
    await removeDataDir(server.dataDir);
  });

  test("close waits for it: the suspended sandbox's cgroup is empty and removed", {
    timeout: FIRST_START_MS,
  }, async () => {
    server = await startTestServer({ executor: "local" });
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    const sandbox = await client.sandboxes.create({
      name: "ended-at-close",
      resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 },
    });
    await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
    await sandbox.processes.start({ command: "sleep", args: ["600"] });
    assert.equal((await sandbox.suspend()).status, "suspended");
    assert.ok(sandboxPids(sandbox.id).length > 0, "the suspended sandbox has processes");

    const { repo, scheduler } = server.sandboxes;
    const row = await repo.get(sandbox.id);
    assert.ok(row);
    const ending = scheduler.terminate(row, { outcome: "timeout" });
    await server.close();
    assert.deepEqual(
      sandboxPids(sandbox.id),
      [],
      "the ended sandbox's processes outlived the server's close",
    );
    assert.equal(existsSync(unifiedCgroupDir(sandbox.id)), false, "its cgroup is removed");
    assert.equal((await ending).status, "terminated");
    assert.deepEqual(
      await new LocalExecutor({
        dataDir: server.dataDir,
        cpuOvercommit: 1,
        memoryOvercommit: 1,
        log: () => {},
      }).leftovers(),
      [],
    );
  });
});
