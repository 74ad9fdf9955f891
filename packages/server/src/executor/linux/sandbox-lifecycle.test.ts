import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import { after, before, describe, test } from "node:test";
import type { SandboxNetworkAccessControl } from "@svc/contract";
import { Client, type Sandbox } from "@svc/sdk";
import { startTestServer, type TestServer } from "../../testing.ts";
import { cgroupLayout, DEFAULT_CGROUP_PARENT, killAll } from "./cgroup.ts";
import { listLeftovers } from "./disk.ts";
import { answerAddresses, buildQuery, parseAnswers } from "./dns-message.ts";
import { DAEMON_ENV, DAEMON_SPOOL_DIR, hostResourcesOf } from "./local-executor.ts";
import { addressesOf, netnsPath, runTool } from "./network.ts";
import {
  FAKE_DESTINATIONS,
  FAKE_INET_NETNS,
  missingNetworkRequirement,
  probeFrom,
  startFakeDns,
  startFakeInternet,
  startInNetns,
} from "./network-testbed.ts";
import { missingPrerequisite, removeLeftovers, SANDBOX_TOOLS } from "./test-support.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;

/** Polls the record until `done` holds, or fails after `timeoutMs`. */
async function waitForRecord(
  sandbox: Sandbox,
  done: (record: NonNullable<Sandbox["record"]>) => boolean,
  timeoutMs: number,
): Promise<NonNullable<Sandbox["record"]>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await sandbox.refresh();
    if (done(record)) return record;
    if (Date.now() > deadline) {
      assert.fail(`sandbox ${sandbox.id} still ${record.status} (${record.pending_reason ?? ""})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The "must show" path through the SDK and a real server running sandboxes with the local executor: create, run,
 * a file written by a process read back through the files API, delete, and nothing of the sandbox left on the
 * host. Then the ways a sandbox ends without a DELETE: an unknown image and timeout_secs.
 */
describe("sandbox lifecycle with the local executor", { skip }, () => {
  let server: TestServer;
  let client: Client;
  const sandboxes: Sandbox[] = [];

  const create = async (request: Parameters<Client["sandboxes"]["create"]>[0]) => {
    const sandbox = await client.sandboxes.create(request);
    sandboxes.push(sandbox);
    return sandbox;
  };
  const netIndexOf = async (id: string) => (await server.sandboxes.repo.get(id))?.netIndex ?? null;

  /** The host's answers for egress hostnames, which a test changes: the server resolves through this. */
  const names = new Map<string, string[]>();
  /** TTLs the fake upstream name server answers with, by name (60 s otherwise). */
  const ttls = new Map<string, number>();
  let dns: Awaited<ReturnType<typeof startFakeDns>> | undefined;
  const lookup = async (hostname: string) => {
    const found = names.get(hostname);
    if (found) return found;
    throw Object.assign(new Error(`${hostname} is not a test name`), { code: "ENOTFOUND" });
  };

  before(async () => {
    dns = await startFakeDns(names, ttls);
    server = await startTestServer({ executor: "local" }, { lookup, dnsUpstreams: [dns.address] });
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  });

  after(async () => {
    dns?.close();
    for (const sandbox of sandboxes) await sandbox.delete().catch(() => undefined);
    if (!server) return;
    // Whatever a failed test left: the executor's own cleanup, from the data dir.
    await removeLeftovers(server.dataDir);
    await server.stop();
  });

  test("create, run `uname -a && id`, read a file a process wrote, delete: nothing is left on the host", {
    timeout: FIRST_START_MS + 60_000,
  }, async () => {
    const sandbox = await create({ resources: { cpus: 1, memory_mb: 512, disk_mb: 1024 } });
    const record = await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
    assert.equal(record.status, "running");
    assert.equal(record.executor_id, `local-${os.hostname()}`);
    assert.deepEqual(record.resources, { cpus: 1, memory_mb: 512, disk_mb: 1024, ephemeral_disk_mb: 1024 });
    assert.ok(record.sandbox_url, "a running sandbox has a URL");

    // container_id is the pid of the sandbox's outer process (bwrap), a member of the sandbox's cgroup.
    const pid = Number(record.container_id);
    assert.ok(Number.isInteger(pid) && pid > 1, `container_id ${record.container_id} is a pid`);
    assert.match(readFileSync(`/proc/${pid}/cmdline`, "utf8"), /^bwrap\0/);
    const procs = readFileSync(
      `${cgroupLayout().v1.pids}/${DEFAULT_CGROUP_PARENT}/${sandbox.id}/daemon/cgroup.procs`,
      "utf8",
    );
    assert.ok(procs.split("\n").includes(String(pid)), "the container pid is in the sandbox's daemon cgroup");

    const uname = await sandbox.run("sh", { args: ["-c", "uname -a && id"] });
    assert.equal(uname.exitCode, 0, uname.stderr);
    const [kernel, identity] = uname.stdout.trim().split("\n");
    assert.match(kernel, new RegExp(`^Linux ${sandbox.id} ${os.release().replace(/\./g, "\\.")} `));
    assert.match(identity, /^uid=1500\(svc-user\) gid=1500\(svc-user\) groups=1500\(svc-user\)$/);

    const content = `written by a process ${randomBytes(8).toString("hex")}\n`;
    const write = await sandbox.run("sh", {
      args: [
        "-c",
        'printf %s "$CONTENT" > "$HOME/from-process.txt" && stat -c %U:%a "$HOME/from-process.txt"',
      ],
      env: { CONTENT: content },
    });
    assert.equal(write.exitCode, 0, write.stderr);
    assert.equal(write.stdout, "svc-user:644\n");
    const read = await sandbox.files.read("/home/svc-user/from-process.txt");
    assert.equal(new TextDecoder().decode(read), content);

    // The daemon spools output on the sandbox's disk (not the memory-backed /tmp) and runs with its own
    // Node options, which user processes do not inherit.
    const daemonPid = procs
      .split("\n")
      .filter(Boolean)
      .find((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("/opt/svc/node/"));
    assert.ok(daemonPid, "the daemon is in the sandbox's cgroup");
    const daemonEnv = readFileSync(`/proc/${daemonPid}/environ`, "utf8").split("\0");
    assert.ok(daemonEnv.includes(`NODE_OPTIONS=${DAEMON_ENV.NODE_OPTIONS}`), daemonEnv.join(" "));
    assert.ok(
      readFileSync(`/proc/${daemonPid}/cmdline`, "utf8").includes(`--spool-dir\0${DAEMON_SPOOL_DIR}\0`),
    );
    const asRoot = await sandbox.run("sh", {
      args: [
        "-c",
        `stat -c %U:%a ${DAEMON_SPOOL_DIR}; df --output=target ${DAEMON_SPOOL_DIR} | tail -1; env`,
      ],
      user: "root",
    });
    assert.equal(asRoot.exitCode, 0, asRoot.stderr);
    const [spoolOwner, spoolMount] = asRoot.stdout.split("\n");
    assert.equal(spoolOwner, "root:700");
    assert.equal(spoolMount, "/", "the spool is on the sandbox's disk");
    assert.doesNotMatch(asRoot.stdout, /NODE_OPTIONS|NODE_COMPILE_CACHE/);

    const netIndex = await netIndexOf(sandbox.id);
    assert.ok(netIndex !== null, "the record keeps its network index");
    assert.ok(
      (await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id, netIndex })).length >= 5,
      "a running sandbox holds cgroups, a netns, a veth, mounts and a loop device",
    );

    const deleted = await sandbox.delete();
    assert.equal(deleted.status, "terminated");
    assert.equal(deleted.outcome, "deleted");
    assert.equal(deleted.sandbox_url, null);
    assert.deepEqual(await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id, netIndex }), []);
    assert.deepEqual(listLeftovers(server.dataDir), { mounts: [], loopDevices: [] });
  });

  /**
   * The fake internet, and a running sandbox created with `network`; `reach` says whether the sandbox reaches
   * port 80 of the first two fake destinations. The caller deletes the sandbox and closes the fake internet.
   */
  async function egressSandbox(network: SandboxNetworkAccessControl) {
    const inet = await startFakeInternet();
    const sandbox = await create({ network });
    const destinations = FAKE_DESTINATIONS.slice(0, 2).map((host) => ({ host, port: 80 }));
    const reach = async () => (await probeFrom(sandbox.id, destinations)).map((result) => result.ok);
    try {
      await waitForRecord(sandbox, (record) => record.status === "running", FIRST_START_MS);
    } catch (error) {
      await inet.close();
      throw error;
    }
    return { sandbox, inet, reach };
  }

  test("PATCH network swaps a running sandbox's egress policy at once, keeping open connections; a hostname that does not resolve is a 400 and changes nothing", {
    timeout: FIRST_START_MS + 60_000,
    skip: missingNetworkRequirement() ?? false,
  }, async () => {
    const [one, two] = FAKE_DESTINATIONS;
    const patch = (network: unknown, other: Record<string, unknown> = {}) =>
      fetch(`${server.url}/sandboxes/${sandbox.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ network, ...other }),
      });
    const { sandbox, inet, reach } = await egressSandbox({ deny_out: [two] });
    let client: ChildProcess | undefined;
    try {
      assert.deepEqual(await reach(), [true, false], "the policy of the create is in force");
      // A connection open before the swap: the TCP echo of the fake internet.
      client = await startInNetns(
        netnsPath(sandbox.id),
        `const socket = require("node:net").connect(7, process.argv[1], () => console.log("connected"));
         socket.setEncoding("utf8").on("data", (data) => console.log("echo " + data.trim()));
         process.stdin.setEncoding("utf8").on("data", (line) => socket.write(line));`,
        [one],
      );
      const lines: string[] = [];
      client.stdout?.on("data", (chunk: string) => lines.push(...chunk.split("\n").filter(Boolean)));
      const swapped = await patch({ allow_internet_access: false, allow_out: [two] });
      assert.equal(swapped.status, 200);
      assert.deepEqual(await reach(), [false, true], "the new policy is in force when PATCH answers");
      client.stdin?.write("still-here\n");
      const deadline = Date.now() + 5000;
      while (!lines.includes("echo still-here") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      client.kill("SIGKILL");
      assert.ok(lines.includes("echo still-here"), `the open connection survives: ${lines.join(" | ")}`);

      const refused = await patch(
        { allow_internet_access: false, allow_out: [one, "gone.invalid"] },
        { exposed_ports: [4321] },
      );
      assert.equal(refused.status, 400);
      const body = (await refused.json()) as { code: string; error: string };
      assert.equal(body.code, "INVALID_REQUEST");
      assert.match(body.error, /gone\.invalid does not resolve/);
      assert.deepEqual(await reach(), [false, true], "the policy in force stays");
      const stored = await sandbox.refresh();
      assert.deepEqual(stored.network_policy?.allow_out, [two], "and so does the stored one");
      assert.equal(stored.exposed_ports, null, "a PATCH that fails changes no field");

      assert.equal((await patch(null)).status, 200);
      assert.deepEqual(await reach(), [true, true], "null lets everything out");
      assert.equal(await inet.guardDrops(), 0, "nothing tried to leave the machine");
    } finally {
      client?.kill("SIGKILL");
      await sandbox.delete().catch(() => undefined);
      await inet.close();
    }
  });

  /** Asks the sandbox's name server (from inside its namespace) for a name: its code and A addresses. */
  async function ask(
    sandbox: Sandbox,
    name: string,
    via = "",
  ): Promise<{ rcode: number; addresses: string[] }> {
    const { hostIp } = addressesOf((await netIndexOf(sandbox.id)) as number);
    const script = `const socket = require("node:dgram").createSocket("udp4");
      socket.on("message", (m) => { console.log(m.toString("hex")); process.exit(0); });
      setTimeout(() => { console.log("timeout"); process.exit(0); }, 2000);
      socket.send(Buffer.from(process.argv[1], "hex"), 53, process.argv[2]);`;
    const output = await runTool("nsenter", [
      `--net=${netnsPath(sandbox.id)}`,
      "--",
      process.execPath,
      "-e",
      script,
      buildQuery(4242, name).toString("hex"),
      via || hostIp,
    ]);
    if (output.trim() === "timeout") return { rcode: -1, addresses: [] };
    const parsed = parseAnswers(Buffer.from(output.trim(), "hex"));
    return { rcode: parsed?.rcode ?? -2, addresses: answerAddresses(parsed?.answers ?? []).addresses };
  }

  test("the sandbox's name server: names follow DNS at once, wildcards, no spoofing, no other server, TTLs", {
    timeout: FIRST_START_MS + 60_000,
    skip: missingNetworkRequirement() ?? false,
  }, async () => {
    const [one, two, three, four] = FAKE_DESTINATIONS;
    names.set("api.fake.test", [one]);
    names.set("a.wild.test", [two]);
    names.set("bad.wild.test", [three]);
    names.set("other.test", [three]);
    ttls.set("api.fake.test", 1);
    const { sandbox, inet } = await egressSandbox({
      allow_internet_access: false,
      allow_out: ["api.fake.test", "*.wild.test"],
      deny_out: ["bad.wild.test"],
    });
    const to = (host: string) => ({ host, port: 80 });
    const reachable = async (...hosts: string[]) =>
      (await probeFrom(sandbox.id, hosts.map(to))).map((result) => result.ok);
    try {
      // The resolv.conf inside names the sandbox's own server.
      assert.match(
        (await sandbox.run("cat", { args: ["/etc/resolv.conf"] })).stdout,
        /^nameserver 10\.213\./,
      );
      assert.deepEqual(await ask(sandbox, "api.fake.test"), { rcode: 0, addresses: [one] });
      assert.deepEqual(await reachable(one), [true]);
      // The name moves: the next answer opens the new address at once (no refresh timer).
      names.set("api.fake.test", [two]);
      assert.deepEqual(await ask(sandbox, "api.fake.test"), { rcode: 0, addresses: [two] });
      assert.deepEqual(await reachable(two), [true]);
      // A wildcard covers names under it; a denied name inside it stays shut, answered or not.
      names.set("a.wild.test", [four]);
      assert.deepEqual((await ask(sandbox, "a.wild.test")).addresses, [four]);
      assert.deepEqual(await reachable(four), [true]);
      await ask(sandbox, "bad.wild.test");
      assert.deepEqual(await reachable(three), [false], "deny wins inside an allowed wildcard");
      // A name no rule covers: refused, so names carry nothing out; its address stays shut.
      assert.equal((await ask(sandbox, "other.test")).rcode, 5);
      // An /etc/hosts line grants nothing: only the server's answers open addresses.
      await sandbox.run("sh", {
        args: ["-c", `echo "${three} spoofed.wild.test" >> /etc/hosts`],
        user: "root",
      });
      assert.deepEqual(await reachable(three), [false]);
      // No other name server is reachable, even with internet access: one answers on a fake destination.
      const otherDns = await startInNetns(
        `/run/netns/${FAKE_INET_NETNS}`,
        `const s = require("node:dgram").createSocket("udp4");
         s.on("message", (m, r) => { const a = Buffer.from(m); a[2] |= 0x80; s.send(a, r.port, r.address); });
         s.bind(53, process.argv[1], () => console.log("ready"));`,
        [four],
      );
      try {
        const opened = await fetch(`${server.url}/sandboxes/${sandbox.id}`, {
          method: "PATCH",
          headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ network: { deny_out: ["bad.wild.test"] } }),
        });
        assert.equal(opened.status, 200);
        assert.deepEqual(await reachable(four), [true], "internet access is on");
        assert.equal((await ask(sandbox, "api.fake.test", four)).rcode, -1, "DNS elsewhere is refused");
        assert.equal(
          (await ask(sandbox, "other.test")).rcode,
          0,
          "with internet access, any name is answered",
        );
      } finally {
        otherDns.kill("SIGKILL");
      }
      await fetch(`${server.url}/sandboxes/${sandbox.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ network: { allow_internet_access: false, allow_out: ["api.fake.test"] } }),
      });
      // TTLs: api.fake.test was answered with a 1 s TTL; after it, its address is shut again until asked.
      names.set("api.fake.test", [one]);
      assert.deepEqual(await ask(sandbox, "api.fake.test"), { rcode: 0, addresses: [one] });
      await new Promise((r) => setTimeout(r, 2500));
      assert.deepEqual(await reachable(one), [false], "expired with its TTL");
      assert.equal(await inet.guardDrops(), 0, "nothing tried to leave the machine");
    } finally {
      for (const name of ["api.fake.test", "a.wild.test", "bad.wild.test", "other.test"]) names.delete(name);
      ttls.clear();
      await sandbox.delete().catch(() => undefined);
      await inet.close();
    }
  });

  test("an unknown image ends terminated with ImageNotFound, leaving nothing", {
    timeout: 60_000,
  }, async () => {
    const sandbox = await create({ image: `no-such-image-${randomBytes(4).toString("hex")}` });
    const record = await waitForRecord(sandbox, (r) => r.status === "terminated", 30_000);
    assert.equal(record.termination_reason, "ImageNotFound");
    assert.equal(record.outcome, "failed");
    assert.match(record.error_details ?? "", /image not found/);
    await assert.rejects(sandbox.waitUntilRunning({ timeoutMs: 1000 }), { code: "ImageNotFound" });
    assert.deepEqual(await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id }), []);
  });

  test("timeout_secs ends a running sandbox with outcome timeout", { timeout: 60_000 }, async () => {
    const sandbox = await create({ timeout_secs: 2, resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } });
    const running = await sandbox.waitUntilRunning({ timeoutMs: 30_000 });
    assert.equal(running.timeout_secs, 2);
    const netIndex = await netIndexOf(sandbox.id);
    const started = Date.now();
    const ended = await waitForRecord(sandbox, (r) => r.status === "terminated", 15_000);
    assert.equal(ended.outcome, "timeout");
    assert.ok(Date.now() - started < 10_000, "ended soon after its timeout");
    const row = await server.sandboxes.repo.get(sandbox.id);
    assert.ok(row?.startedAt && row.endedAt, "start and end times are recorded");
    const lived = row.endedAt - row.startedAt;
    assert.ok(lived >= 2000 && lived < 5000, `lived ${lived} ms with timeout_secs 2`);
    // The executor removes what the sandbox had right after the row ends.
    const deadline = Date.now() + 10_000;
    let left = await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id, netIndex });
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      left = await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id, netIndex });
    }
    assert.deepEqual(left, []);
  });

  test("a sandbox whose daemon dies while the server runs ends daemon_unreachable, leaving nothing", {
    timeout: 60_000,
  }, async () => {
    const sandbox = await create({ resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } });
    await sandbox.waitUntilRunning({ timeoutMs: 30_000 });
    const netIndex = await netIndexOf(sandbox.id);
    // Every process of the sandbox dies behind the server's back (as an OOM of the daemon or a host admin would).
    await killAll(sandbox.id);
    const ended = await waitForRecord(sandbox, (r) => r.status === "terminated", 30_000);
    assert.equal(ended.termination_reason, "daemon_unreachable");
    const deadline = Date.now() + 10_000;
    let left = await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id, netIndex });
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      left = await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id, netIndex });
    }
    assert.deepEqual(left, []);
  });
});
