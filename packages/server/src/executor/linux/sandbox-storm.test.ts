import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, type Sandbox } from "@svc/sdk";
import { startTestServer, type TestServer } from "../../testing.ts";
import { cgroupLayout, DEFAULT_CGROUP_PARENT } from "./cgroup.ts";
import { missingPrerequisite, removeLeftovers, SANDBOX_TOOLS } from "./test-support.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;
/** How long the fork bomb runs before it is killed (the figure). */
const BOMB_SECS = 40;
/** How long the sandbox must stay running after the bomb (the figure). */
const AFTER_SECS = 60;

/** Tasks in the sandbox's workload group (every process the API started, and their descendants). */
function workloadTasks(id: string): number {
  const file = join(cgroupLayout().v1.pids, DEFAULT_CGROUP_PARENT, id, "workload", "pids.current");
  return Number(readFileSync(file, "utf8").trim());
}

/**
 * The two suites below run at the same time, each with its own server and sandbox, one test after another within
 * each: both mostly wait (a bomb's and a sandbox's figured seconds, a frozen daemon's), and a sandbox's storm stays
 * within its own cgroup's limits.
 */
describe("sandbox storms", { skip, concurrency: true }, () => {
  /**
   * Issue 31: a runaway process tree costs the user that tree, not the sandbox. A fork bomb and a memory storm run
   * in a real 1-CPU sandbox through the process API; the daemon keeps answering, the sandbox stays running with
   * its files, and killing the process ends its whole tree.
   */
  describe("a sandbox outlives its own fork bomb and memory storm", { concurrency: 1 }, () => {
    let server: TestServer;
    let sandbox: Sandbox;

    before(async () => {
      server = await startTestServer({ executor: "local" });
      const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
      sandbox = await client.sandboxes.create({ resources: { cpus: 1, memory_mb: 512, disk_mb: 1024 } });
      await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
    });

    after(async () => {
      await sandbox?.delete().catch(() => undefined);
      if (!server) return;
      await removeLeftovers(server.dataDir);
      await server.stop();
    });

    /** Fails unless the sandbox's record still says running. */
    const stillRunning = async (when: string) => {
      const record = await sandbox.refresh();
      assert.equal(record.status, "running", `${when}: ${record.termination_reason} ${record.error_details}`);
    };

    /** How many processes run `sleep <secs>` in the sandbox (as its default user sees them). */
    const sleepers = async (secs: number) => {
      const result = await sandbox.run("sh", { args: ["-c", `pgrep -c -f '^sleep ${secs}$' || true`] });
      return Number(result.stdout.trim());
    };

    test("a process's kill and a PTY session's delete end their whole trees, daemonized descendants included", {
      timeout: FIRST_START_MS + 120_000,
    }, async () => {
      // A grandchild in its own session and process group: a group kill would miss it.
      const proc = await sandbox.processes.start({
        command: "sh",
        args: ["-c", "setsid sleep 4242 & sleep 4242"],
      });
      const startedBy = Date.now() + 30_000;
      while ((await sleepers(4242)) < 2 && Date.now() < startedBy) await sleep(100);
      assert.equal(await sleepers(4242), 2);
      await sandbox.processes.kill(proc.pid);
      const goneBy = Date.now() + 30_000;
      while ((await sleepers(4242)) > 0 && Date.now() < goneBy) await sleep(100);
      assert.equal(await sleepers(4242), 0, "the daemonized grandchild escaped the kill");

      const term = await sandbox.pty({ command: "sh", args: ["-c", "setsid sleep 4343 & sleep 4343"] });
      const ptyBy = Date.now() + 30_000;
      while ((await sleepers(4343)) < 2 && Date.now() < ptyBy) await sleep(100);
      assert.equal(await sleepers(4343), 2);
      await term.kill();
      term.close();
      const ptyGoneBy = Date.now() + 30_000;
      while ((await sleepers(4343)) > 0 && Date.now() < ptyGoneBy) await sleep(100);
      assert.equal(await sleepers(4343), 0, "the PTY's daemonized grandchild escaped the delete");
      // The daemon was never in the groups it killed.
      assert.equal((await sandbox.run("echo", { args: ["alive"] })).stdout, "alive\n");
    });

    test("memory storm: its processes are OOM-killed, the daemon answers, the storm's kill ends it", {
      timeout: FIRST_START_MS + 180_000,
    }, async () => {
      // Each inner shell doubles a string until the OOM killer ends it; the outer loop starts another at once.
      const storm = await sandbox.processes.start({
        command: "sh",
        args: ["-c", "while :; do sh -c 'x=a; while :; do x=\"$x$x\"; done'; done"],
      });
      await sleep(10_000);
      const during = await sandbox.run("echo", { args: ["alive"] });
      assert.equal(during.stdout, "alive\n");
      await stillRunning("during the memory storm");
      await sandbox.processes.kill(storm.pid);
      const ended = await sandbox.processes.get(storm.pid);
      assert.notEqual(ended.status, "running");
      const after = await sandbox.run("echo", { args: ["alive"] });
      assert.equal(after.stdout, "alive\n");
    });

    test(`fork bomb: after ${BOMB_SECS} s, its kill ends the whole tree, the daemon answers and the sandbox lives on`, {
      timeout: 600_000,
    }, async () => {
      const content = `written before the bomb ${Date.now()}\n`;
      await sandbox.files.write("/home/svc-user/before-bomb.txt", content);

      // The classic bomb: every call starts two more in the background; fork fails with EAGAIN at the limit.
      const bomb = await sandbox.processes.start({
        command: "bash",
        args: ["-c", "b(){ b | b & }; b; sleep 3600"],
      });
      const bombStarted = Date.now();
      let maxTasks = 0;
      while (Date.now() - bombStarted < BOMB_SECS * 1000) {
        await sleep(5000);
        maxTasks = Math.max(maxTasks, workloadTasks(sandbox.id));
        await stillRunning(`${Math.round((Date.now() - bombStarted) / 1000)} s into the fork bomb`);
      }
      assert.ok(maxTasks > 100, `the bomb multiplied (${maxTasks} tasks at most)`);

      const killedAt = performance.now();
      try {
        await sandbox.processes.kill(bomb.pid);
      } catch (error) {
        // What the daemon said, for the failure message.
        const log = readFileSync(join(server.dataDir, "sandboxes", sandbox.id, "daemon.log"), "utf8").slice(
          -3000,
        );
        const daemonTasks = readFileSync(
          join(cgroupLayout().v1.pids, DEFAULT_CGROUP_PARENT, sandbox.id, "daemon", "pids.current"),
          "utf8",
        );
        throw new Error(
          `${(error as Error).message}; daemon tasks ${daemonTasks.trim()}; daemon log: ${log}`,
        );
      }
      const alive = await sandbox.run("echo", { args: ["alive"] });
      const answerMs = Math.round(performance.now() - killedAt);
      console.log(
        `# echo alive answered ${answerMs} ms after the bomb's kill (the issue asks within 5000 ms)`,
      );
      assert.equal(alive.stdout, "alive\n");
      // No escaped grandchildren: the bomb's whole tree goes with its cgroup. Thousands of dying tasks need CPU
      // under the 1-CPU quota to exit: a generous bound, no timing.
      const goneBy = Date.now() + 120_000;
      while (workloadTasks(sandbox.id) >= 20 && Date.now() < goneBy) await sleep(500);
      assert.ok(workloadTasks(sandbox.id) < 20, `tasks left in the workload: ${workloadTasks(sandbox.id)}`);
      console.log(`# the bomb's tree was gone ${Math.round(performance.now() - killedAt)} ms after its kill`);

      const afterKill = Date.now();
      while (Date.now() - afterKill < AFTER_SECS * 1000) {
        await sleep(10_000);
        await stillRunning(`${Math.round((Date.now() - afterKill) / 1000)} s after the bomb's kill`);
      }
      assert.equal(
        new TextDecoder().decode(await sandbox.files.read("/home/svc-user/before-bomb.txt")),
        content,
      );
    });
  });

  /**
   * The health check tells a busy daemon from a gone one: a daemon frozen (its process there, answering nothing)
   * is given `daemonUnresponsiveSecs`; beyond that the sandbox ends daemon_unreachable, saying why.
   */
  describe("a daemon that runs but does not answer is given daemonUnresponsiveSecs", {
    concurrency: 1,
  }, () => {
    let server: TestServer;
    let sandbox: Sandbox;
    const UNRESPONSIVE_SECS = 30;
    const daemonFreeze = (id: string, value: "0" | "1") =>
      writeFileSync(
        join(cgroupLayout().unified, DEFAULT_CGROUP_PARENT, id, "daemon", "cgroup.freeze"),
        value,
      );

    before(async () => {
      server = await startTestServer({ executor: "local", daemonUnresponsiveSecs: UNRESPONSIVE_SECS });
      const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
      sandbox = await client.sandboxes.create({ resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } });
      await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
    });

    after(async () => {
      if (sandbox) {
        try {
          daemonFreeze(sandbox.id, "0");
        } catch {
          // Already removed.
        }
        await sandbox.delete().catch(() => undefined);
      }
      if (!server) return;
      await removeLeftovers(server.dataDir);
      await server.stop();
    });

    test("frozen for less than daemonUnresponsiveSecs: running; frozen for longer: ended, saying so", {
      timeout: FIRST_START_MS + 240_000,
    }, async () => {
      // Several failed checks (every 5 s), less than UNRESPONSIVE_SECS: a gone daemon would have ended by now.
      daemonFreeze(sandbox.id, "1");
      await sleep(13_000);
      daemonFreeze(sandbox.id, "0");
      assert.equal((await sandbox.run("echo", { args: ["thawed"] })).stdout, "thawed\n");
      assert.equal((await sandbox.refresh()).status, "running");

      daemonFreeze(sandbox.id, "1");
      const deadline = Date.now() + 180_000;
      let record = await sandbox.refresh();
      while (record.status === "running" && Date.now() < deadline) {
        await sleep(1000);
        record = await sandbox.refresh();
      }
      assert.equal(record.status, "terminated");
      assert.equal(record.termination_reason, "daemon_unreachable");
      assert.match(record.error_details ?? "", /runs but has not answered its health checks for \d+ s/);
    });
  });
});
