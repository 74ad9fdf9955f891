import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import { Client, type Sandbox } from "@svc/sdk";
import {
  removeDataDir,
  type ServerProcess,
  serverDataDir,
  startServerProcess,
  stopServerProcess,
} from "../../server-process.testing.ts";
import { startTestServer, type TestServer } from "../../testing.ts";
import { cgroupLayout, DEFAULT_CGROUP_PARENT } from "./cgroup.ts";
import { listLeftovers } from "./disk.ts";
import { hostResourcesOf } from "./local-executor.ts";
import { missingPrerequisite, removeLeftovers, SANDBOX_TOOLS } from "./test-support.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;

async function sigkill(server: ServerProcess): Promise<void> {
  server.child.kill("SIGKILL");
  const { signal } = await server.exited;
  assert.equal(signal, "SIGKILL");
}

/** The network index a sandbox's directory records (state.json of the local executor), if it has one yet. */
function netIndexFromState(dataDir: string, id: string): number | undefined {
  try {
    return (
      JSON.parse(readFileSync(join(dataDir, "sandboxes", id, "state.json"), "utf8")) as { netIndex: number }
    ).netIndex;
  } catch {
    return undefined;
  }
}

/** Host pids of a sandbox's processes, all of them or those whose argv[0] ends with `program`. */
function sandboxPids(id: string, program?: string): number[] {
  // The daemon's group and the workload's (each process tree in its own group below it).
  const groups = join(cgroupLayout().v1.pids, DEFAULT_CGROUP_PARENT, id);
  const dirs = [join(groups, "daemon")];
  const workload = join(groups, "workload");
  try {
    dirs.push(
      workload,
      ...readdirSync(workload, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(workload, e.name)),
    );
  } catch {
    // No workload group (none yet, or removed with the sandbox).
  }
  const pids = dirs.flatMap((dir) => {
    try {
      return readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
    } catch {
      return []; // removed with the sandbox (or meanwhile)
    }
  });
  return pids.filter((pid) => {
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
      return program === undefined || argv0.endsWith(`/${program}`);
    } catch {
      return false;
    }
  });
}

/** The host pid of a sandbox's daemon (Node, not the bwrap processes whose argv also names the daemon). */
function daemonPidOf(id: string): number | undefined {
  return sandboxPids(id, "node")[0];
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Point 5 of the issue: a server killed with SIGKILL, while sandboxes run and while one is being created, finds
 * on restart every sandbox adopted (still running and reachable) or terminated with a reason, and nothing of a
 * removed sandbox on the host. The server is the real CLI in a child process on one data directory, killed and
 * started again.
 */
describe("server restart after SIGKILL: adopted or terminated, never stuck, never leaking", { skip }, () => {
  let dataDir: string;
  let server: ServerProcess | undefined;
  /** Another server on this host (another data dir) with a sandbox of its own, which no restart may touch. */
  let neighbour: TestServer | undefined;
  let bystander: Sandbox | undefined;
  /** Every sandbox made here, with the network indexes it was seen with (for the leak checks). */
  const made = new Map<string, Set<number>>();

  const clientOf = async (running: ServerProcess) =>
    new Client({ apiKey: (await readFile(join(dataDir, "api-key"), "utf8")).trim(), baseUrl: running.url });
  const remember = (id: string) => {
    const indexes = made.get(id) ?? new Set<number>();
    const index = netIndexFromState(dataDir, id);
    if (index !== undefined) indexes.add(index);
    made.set(id, indexes);
  };
  const leftoversOf = async (id: string) => {
    const found: string[] = [];
    for (const netIndex of [...(made.get(id) ?? []), undefined]) {
      found.push(...(await hostResourcesOf({ dataDir, id, netIndex })));
    }
    return [...new Set(found)];
  };

  before(async () => {
    dataDir = await serverDataDir("svc-restart-");
  });

  after(async () => {
    if (neighbour) {
      await bystander?.delete().catch(() => undefined);
      await removeLeftovers(neighbour.dataDir);
      await neighbour.stop().catch(() => undefined);
    }
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      const client = await clientOf(server).catch(() => undefined);
      for (const id of made.keys()) {
        await client?.sandboxes
          .get(id)
          .then((s) => s.delete())
          .catch(() => undefined);
      }
      await stopServerProcess(server, 10_000);
    }
    if (dataDir) await removeDataDir(dataDir);
  });

  test("killed while two sandboxes run and a third is being created: the two are adopted, the third runs", {
    timeout: FIRST_START_MS + 120_000,
  }, async () => {
    neighbour = await startTestServer({ executor: "local" });
    const neighbourClient = new Client({ apiKey: neighbour.apiKey, baseUrl: neighbour.url });
    bystander = await neighbourClient.sandboxes.create({ resources: { cpus: 0.5, memory_mb: 256 } });
    await bystander.waitUntilRunning({ timeoutMs: FIRST_START_MS });
    const bystanderDaemon = daemonPidOf(bystander.id);

    server = await startServerProcess(dataDir, FIRST_START_MS);
    let client = await clientOf(server);
    const created: Sandbox[] = [];
    for (let i = 0; i < 2; i++) {
      created.push(await client.sandboxes.create({ resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } }));
    }
    for (const sandbox of created) {
      await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
      remember(sandbox.id);
    }
    const [first, second] = created;
    const sleeper = await first.processes.start({ command: "sleep", args: ["600"] });
    const daemonPids = new Map(created.map((s) => [s.id, daemonPidOf(s.id)]));

    // The third: killed while the executor builds it (claimed, pending with waiting_for_container).
    const third = await client.sandboxes.create({ resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } });
    made.set(third.id, new Set());
    const seen = await until("the third sandbox being created", 30_000, async () => {
      const record = await third.refresh();
      if (record.status !== "pending" || record.pending_reason === "waiting_for_container") return record;
      return undefined;
    });
    assert.equal(seen.status, "pending", "the kill must land while the third sandbox is being created");
    // Into the build: once its network namespace exists, the disk and the daemon's start are still to come.
    await until("the third sandbox's network namespace", 10_000, async () =>
      existsSync(`/run/netns/svc-${third.id}`) ? true : undefined,
    );
    await sigkill(server);
    remember(third.id);
    const halfMade = await leftoversOf(third.id);
    assert.ok(halfMade.length > 0, "the killed server left a half-made sandbox");

    // The sandboxes outlive the server: their daemons are the same processes.
    for (const sandbox of created) {
      assert.equal(daemonPidOf(sandbox.id), daemonPids.get(sandbox.id));
    }

    server = await startServerProcess(dataDir, FIRST_START_MS);
    client = await clientOf(server);
    for (const sandbox of [first, second]) {
      const adopted = await client.sandboxes.get(sandbox.id);
      assert.equal(adopted.record?.status, "running", `${sandbox.id} adopted: ${server.output()}`);
      const result = await adopted.run("sh", { args: ["-c", "echo adopted; id -un"] });
      assert.equal(result.stdout, "adopted\nsvc-user\n");
      assert.equal(daemonPidOf(sandbox.id), daemonPids.get(sandbox.id));
    }
    const firstAgain = await client.sandboxes.get(first.id);
    assert.equal((await firstAgain.processes.get(sleeper.pid)).status, "running", "the sleep still runs");
    const ps = await firstAgain.run("sh", { args: ["-c", "ps -eo args | grep -c '^sleep 600$'"] });
    assert.equal(ps.stdout.trim(), "1");

    // The third ends running or terminated with a reason, never stuck pending.
    const thirdAgain = await client.sandboxes.get(third.id);
    const settled = await until("the third sandbox leaving pending", 60_000, async () => {
      const record = await thirdAgain.refresh();
      return record.status === "pending" ? undefined : record;
    });
    assert.ok(
      settled.status === "running" || (settled.status === "terminated" && settled.termination_reason),
      `third sandbox (at the kill: ${halfMade.join(", ")}): ${JSON.stringify(settled)}`,
    );
    if (settled.status === "running") {
      remember(third.id);
      const result = await thirdAgain.run("echo", { args: ["third"] });
      assert.equal(result.stdout, "third\n");
    }

    for (const id of [first.id, second.id, third.id]) {
      const deleted = await (await client.sandboxes.get(id)).delete();
      assert.equal(deleted.status, "terminated");
      assert.deepEqual(await leftoversOf(id), [], `${id} left something on the host`);
    }
    assert.deepEqual(listLeftovers(dataDir), { mounts: [], loopDevices: [] });

    // The restart cleaned up after its own data dir only: the other server's sandbox runs on, untouched.
    assert.equal(daemonPidOf(bystander.id), bystanderDaemon);
    assert.equal((await bystander.run("echo", { args: ["untouched"] })).stdout, "untouched\n");
    await bystander.delete();
    await neighbour.stop();
    neighbour = undefined;
  });

  test("a suspended sandbox stays suspended across a restart and resumes; a pool keeps its warm sandbox", {
    timeout: 180_000,
  }, async () => {
    assert.ok(server, "the server of the previous test runs");
    let client = await clientOf(server);
    const sandbox = await client.sandboxes.create({
      name: "frozen-across",
      resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 },
    });
    made.set(sandbox.id, new Set());
    await sandbox.waitUntilRunning({ timeoutMs: 60_000 });
    remember(sandbox.id);
    const sleeper = await sandbox.processes.start({ command: "sleep", args: ["600"] });
    assert.equal((await sandbox.suspend()).status, "suspended");
    const daemon = daemonPidOf(sandbox.id);
    const { pool_id } = await client.pools.create({
      resources: { memory_mb: 256, disk_mb: 256 },
      warm_containers: 1,
    });
    const warm = await until("the pool's warm sandbox", 60_000, async () => {
      const idle = (await client.pools.get(pool_id)).containers.find((c) => c.state === "Idle");
      if (!idle) return undefined;
      return (await client.sandboxes.get(idle.id)).record?.status === "running" ? idle.id : undefined;
    });
    made.set(warm, new Set());
    remember(warm);

    await sigkill(server);
    server = await startServerProcess(dataDir, FIRST_START_MS);
    client = await clientOf(server);
    const again = await client.sandboxes.get(sandbox.id);
    assert.equal(again.record?.status, "suspended", server.output());
    assert.equal(daemonPidOf(sandbox.id), daemon, "the same processes, still frozen");
    assert.equal((await again.resume()).status, "running");
    assert.equal((await again.processes.get(sleeper.pid)).status, "running");
    const pool = await client.pools.get(pool_id);
    assert.deepEqual(
      pool.containers.map((c) => [c.id, c.state]),
      [[warm, "Idle"]],
      "the warm sandbox was adopted, not replaced",
    );
    const claimed = await client.pools.claim(pool_id);
    assert.equal(claimed.sandbox_id, warm);
    assert.equal(claimed.status, "running");
    for (const id of [sandbox.id, warm]) await (await client.sandboxes.get(id)).delete();
    await client.pools.delete(pool_id);
    for (const id of [sandbox.id, warm]) assert.deepEqual(await leftoversOf(id), [], `${id} left something`);
  });

  test("at a restart, a sandbox whose daemon runs but does not answer is adopted; one whose daemon died ends executor_lost; a DELETE accepted just before a SIGTERM is carried out before the exit", {
    timeout: 240_000,
  }, async () => {
    assert.ok(server, "the server of the previous test runs");
    let client = await clientOf(server);
    // Both made before one kill: one restart finds the two cases.
    const [stalled, dead] = await Promise.all(
      ["stalled", "dead"].map((name) =>
        client.sandboxes.create({ name, resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } }),
      ),
    );
    for (const sandbox of [stalled, dead]) {
      made.set(sandbox.id, new Set());
      await sandbox.waitUntilRunning({ timeoutMs: 60_000 });
      remember(sandbox.id);
    }
    await stalled.run("sh", { args: ["-c", "echo kept > /tmp/before"] });
    await sigkill(server);

    // A daemon too busy to answer (here: stopped) while the server restarts; its process is there all along.
    const stalledPid = daemonPidOf(stalled.id);
    assert.ok(stalledPid, "the stalled sandbox's daemon runs on the host");
    // The other's daemon dies; its init (bwrap) goes with it; the cgroups, netns and disk stay for the server.
    const deadPid = daemonPidOf(dead.id);
    assert.ok(deadPid, "the dead sandbox's daemon runs on the host");
    process.kill(deadPid, "SIGKILL");
    await until("the dead sandbox's processes gone", 10_000, async () =>
      sandboxPids(dead.id).length === 0 ? true : undefined,
    );
    assert.ok((await leftoversOf(dead.id)).length > 0, "the dead sandbox still holds host resources");
    process.kill(stalledPid, "SIGSTOP");
    try {
      server = await startServerProcess(dataDir, FIRST_START_MS);
      client = await clientOf(server);
      const record = (await client.sandboxes.get(stalled.id)).record;
      assert.equal(
        record?.status,
        "running",
        `adopted, not ended: ${JSON.stringify(record)} ${server.output()}`,
      );
    } finally {
      // Gone when the restart ended the sandbox (the failure above says so).
      try {
        process.kill(stalledPid, "SIGCONT");
      } catch {}
    }
    const again = await client.sandboxes.get(stalled.id);
    assert.equal((await again.run("cat", { args: ["/tmp/before"] })).stdout, "kept\n");
    assert.equal(daemonPidOf(stalled.id), stalledPid, "the same daemon");

    const ended = (await client.sandboxes.get(dead.id)).record;
    assert.equal(ended?.status, "terminated");
    assert.equal(ended?.termination_reason, "executor_lost");
    assert.equal(ended?.outcome, "failed");
    assert.deepEqual(await leftoversOf(dead.id), []);

    // A DELETE of the suspended sandbox, and a SIGTERM as soon as the server has accepted it (its row ended
    // terminated) while its work (thaw, kill, unmount) is under way: the delete is carried out before the exit,
    // so nothing of the sandbox outlives the server. (The in-process race is sandbox-delete-stop.test.ts.)
    await again.processes.start({ command: "sleep", args: ["600"] });
    assert.equal((await again.suspend()).status, "suspended");
    assert.ok(sandboxPids(stalled.id).length > 0, "the suspended sandbox has processes");
    const apiKey = (await readFile(join(dataDir, "api-key"), "utf8")).trim();
    const db = new DatabaseSync(join(dataDir, "svc.db"), { readOnly: true });
    const status = () =>
      (db.prepare("SELECT status FROM sandboxes WHERE id = ?").get(stalled.id) as { status: string }).status;
    try {
      const deleting = fetch(`${server.url}/sandboxes/${stalled.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${apiKey}` },
      }).then(
        (response) => response.status,
        (error: Error) => `no answer (${error.message})`,
      );
      await until("the delete accepted", 60_000, async () => (status() === "terminated" ? true : undefined));
      server.child.kill("SIGTERM");
      const answer = await deleting;
      assert.equal((await server.exited).code, 0, `the server stops cleanly on SIGTERM: ${server.output()}`);
      server = undefined;
      assert.deepEqual(
        sandboxPids(stalled.id),
        [],
        `deleted (answer ${answer}), yet its processes outlived the server`,
      );
      assert.equal(status(), "terminated");
    } finally {
      db.close();
    }
    assert.deepEqual(await leftoversOf(stalled.id), [], "the accepted delete removed everything");
    assert.deepEqual(listLeftovers(dataDir), { mounts: [], loopDevices: [] });
  });
});
