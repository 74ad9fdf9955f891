import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@svc/sdk";
import { startTestServer, TEST_IMAGES_DIR, type TestServer } from "../../testing.ts";
import { cgroupLayout, DEFAULT_CGROUP_PARENT, unifiedCgroupDir } from "./cgroup.ts";
import { LocalExecutor } from "./local-executor.ts";
import { missingPrerequisite, REPO_ROOT } from "./test-support.ts";

const skip = missingPrerequisite(["bwrap", "nsenter", "setpriv", "ip", "nft", "mkfs.ext4", "debootstrap"]);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;
const CLI_MAIN = join(REPO_ROOT, "packages", "cli", "src", "main.ts");

interface ServerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

/** `svc server` on free ports and `dataDir`; resolves once it prints its URL. */
function startServerProcess(dataDir: string): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        CLI_MAIN,
        "server",
        "--port",
        "0",
        "--proxy-port",
        "0",
        "--data-dir",
        dataDir,
        "--log-level",
        "error",
      ].concat(["--image-cache-dir", dirname(TEST_IMAGES_DIR)]),
      { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once("exit", (code, signal) => done({ code, signal })),
    );
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server printed no URL within ${FIRST_START_MS} ms: ${output}`));
    }, FIRST_START_MS);
    let served = false;
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-16_384);
      const url = /control API on (http:\/\/\S+)/.exec(output)?.[1];
      if (url && !served) {
        served = true;
        clearTimeout(timer);
        resolve({ child, url, exited, output: () => output });
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      if (!served) reject(new Error(`the server exited (${code ?? signal}) before serving: ${output}`));
    });
  });
}

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

/** Whatever sandboxes of `dataDir` are left (a test failed half-way), removed the way a restarted server would. */
async function removeLeftovers(dataDir: string): Promise<void> {
  const executor = new LocalExecutor({ dataDir, cpuOvercommit: 1, memoryOvercommit: 1, log: () => {} });
  for (const id of await executor.leftovers()) await executor.stop(id).catch(() => undefined);
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
    dataDir = await mkdtemp(join(tmpdir(), "svc-delete-stop-"));
    await mkdir(TEST_IMAGES_DIR, { recursive: true });
    await symlink(TEST_IMAGES_DIR, join(dataDir, "images"));
  });

  after(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    if (!dataDir) return;
    await removeLeftovers(dataDir);
    await rm(dataDir, { recursive: true, force: true });
  });

  const clientOf = async (running: ServerProcess) =>
    new Client({ apiKey: (await readFile(join(dataDir, "api-key"), "utf8")).trim(), baseUrl: running.url });

  test("an accepted delete is carried out before the exit; a refused one leaves a sandbox the restart adopts", {
    timeout: FIRST_START_MS + 600_000,
  }, async () => {
    server = await startServerProcess(dataDir);
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

      server = await startServerProcess(dataDir);
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
    await removeLeftovers(server.dataDir);
    await rm(server.dataDir, { recursive: true, force: true });
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
