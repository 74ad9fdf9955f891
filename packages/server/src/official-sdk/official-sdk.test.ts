/**
 * The public platform's own TypeScript SDK (npm `tensorlake`) against this server and real sandboxes, configured
 * as a new user would: only the API URL and key. Every method of its sandbox client that the server serves is
 * called here; what it does not serve yet is listed in the README with the issue that brings it. Every request
 * the SDK makes is recorded (method, path, status) and printed, and none may hit a route the server lacks.
 */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { after, before, describe, test } from "node:test";
import { type Pty, Sandbox, SandboxClient, SandboxError, StdinMode } from "tensorlake";
import { missingPrerequisite, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import { startTestServer, type TestServer } from "../testing.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_SECS = 300;

interface Recorded {
  server: "control" | "proxy";
  method: string;
  path: string;
  status: number;
}

/** Ids and tokens in a path become placeholders, so the recording reads as the SDK's route table. */
function template(url: string): string {
  return url
    .split("?")[0]
    .replace(/sbx-[a-z2-7]{20}/g, "{sandbox_id}")
    .replace(/\/processes\/\d+/g, "/processes/{pid}")
    .replace(/\/pty\/[^/]+/g, "/pty/{session_id}");
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

describe("the official SDK (npm tensorlake) against this server", { skip }, () => {
  let server: TestServer;
  let options: { apiUrl: string; apiKey: string };
  let client: SandboxClient;
  let sandbox: Sandbox;
  const recorded: Recorded[] = [];

  before(async () => {
    server = await startTestServer({ executor: "local" });
    options = { apiUrl: server.url, apiKey: server.apiKey };
    client = new SandboxClient(options, true);
    const record = (kind: Recorded["server"]) => (req: IncomingMessage, res?: ServerResponse) => {
      const entry: Recorded = {
        server: kind,
        method: req.method ?? "",
        path: template(req.url ?? ""),
        status: 101,
      };
      recorded.push(entry);
      res?.on("finish", () => {
        entry.status = res.statusCode;
      });
    };
    server.app.server.on("request", record("control"));
    server.proxy.on("request", record("proxy"));
    server.proxy.on("upgrade", record("proxy"));
    sandbox = await Sandbox.create({
      ...options,
      name: "conformance",
      cpus: 0.5,
      memoryMb: 512,
      diskMb: 2048,
      requestTimeout: FIRST_START_SECS,
    });
  });

  after(async () => {
    await sandbox?.terminate().catch(() => undefined);
    if (!server) return;
    const table = [...new Set(recorded.map((r) => `${r.server} ${r.method} ${r.path} → ${r.status}`))].sort();
    console.log(`# requests the SDK made:\n${table.map((line) => `#   ${line}`).join("\n")}`);
    await server.stop();
  });

  test("lifecycle: create with name and resources, info, status, list, get", async () => {
    assert.match(sandbox.sandboxId, /^sbx-/);
    assert.equal(sandbox.name, "conformance");
    const info = await sandbox.info();
    assert.equal(info.sandboxId, sandbox.sandboxId);
    assert.equal(info.status, "running");
    assert.equal(info.name, "conformance");
    assert.deepEqual(info.resources, { cpus: 0.5, memoryMb: 512, ephemeralDiskMb: 2048 });
    assert.equal(info.namespace, "default");
    assert.ok(info.createdAt instanceof Date && Math.abs(info.createdAt.getTime() - Date.now()) < 600_000);
    assert.equal(await sandbox.status(), "running");
    const listed = await Sandbox.list(options);
    assert.ok(listed.some((s) => s.sandboxId === sandbox.sandboxId && s.status === "running"));
    const byName = await client.get("conformance");
    assert.equal(byName.sandboxId, sandbox.sandboxId);
    assert.deepEqual(await sandbox.health().then((h) => h.healthy), true);
    const daemon = await sandbox.daemonInfo();
    assert.equal(typeof daemon.version, "string");
    assert.ok(daemon.uptimeSecs >= 0);
  });

  test("lifecycle: update, expose and unexpose ports, port access", async () => {
    const updated = await sandbox.update({ exposedPorts: [8080], allowUnauthenticatedAccess: false });
    assert.deepEqual(updated.exposedPorts, [8080]);
    const exposed = await client.exposePorts(sandbox.sandboxId, [9090]);
    assert.deepEqual(exposed.exposedPorts?.sort(), [8080, 9090]);
    const access = await client.getPortAccess(sandbox.sandboxId);
    assert.deepEqual(access.exposedPorts.sort(), [8080, 9090]);
    assert.equal(access.allowUnauthenticatedAccess, false);
    const unexposed = await client.unexposePorts(sandbox.sandboxId, [8080, 9090]);
    assert.deepEqual(unexposed.exposedPorts ?? [], []);
  });

  test("processes: run with env, working dir and timeout", async () => {
    const result = await sandbox.run("sh", {
      args: ["-c", "echo $GREETING; pwd; echo oops >&2; exit 3"],
      env: { GREETING: "hello" },
      workingDir: "/tmp",
    });
    assert.equal(result.exitCode, 3);
    assert.equal(result.stdout, "hello\n/tmp");
    assert.equal(result.stderr, "oops");
    const started = Date.now();
    const slow = await sandbox.run("sleep", { args: ["30"], timeout: 1 });
    assert.notEqual(slow.exitCode, 0, "the timeout kills it");
    assert.ok(Date.now() - started < 15_000, "and it does not wait for the sleep");
  });

  test("processes: piped stdin, stdout, stderr, output, follow each, list, get", async () => {
    const proc = await sandbox.startProcess("sh", {
      args: ["-c", 'while read line; do echo "out:$line"; echo "err:$line" >&2; done'],
      stdinMode: StdinMode.PIPE,
    });
    assert.equal(proc.status, "running");
    assert.equal(proc.stdinWritable, true);
    await sandbox.writeStdin(proc.pid, new TextEncoder().encode("a\nb\n"));
    await sandbox.closeStdin(proc.pid);
    const out: string[] = [];
    for await (const event of sandbox.followStdout(proc.pid)) out.push(event.line);
    assert.deepEqual(out, ["out:a", "out:b"]);
    const err: string[] = [];
    for await (const event of sandbox.followStderr(proc.pid)) err.push(event.line);
    assert.deepEqual(err, ["err:a", "err:b"]);
    const both: string[] = [];
    for await (const event of sandbox.followOutput(proc.pid)) both.push(`${event.stream}:${event.line}`);
    assert.deepEqual(both.sort(), ["stderr:err:a", "stderr:err:b", "stdout:out:a", "stdout:out:b"]);
    assert.deepEqual((await sandbox.getStdout(proc.pid)).lines, ["out:a", "out:b"]);
    assert.deepEqual((await sandbox.getStderr(proc.pid)).lines, ["err:a", "err:b"]);
    assert.equal((await sandbox.getOutput(proc.pid)).lineCount, 4);
    const ended = await sandbox.getProcess(proc.pid);
    assert.equal(ended.status, "exited");
    assert.equal(ended.exitCode, 0);
    assert.ok((await sandbox.listProcesses()).some((p) => p.pid === proc.pid && p.command === "sh"));
  });

  test("processes: signal and kill", async () => {
    const terminated = await sandbox.startProcess("sleep", { args: ["300"] });
    assert.deepEqual(
      { ...(await sandbox.sendSignal(terminated.pid, 15)), traceId: "" },
      { success: true, traceId: "" },
    );
    const afterSignal = await waitForEnd(sandbox, terminated.pid);
    assert.equal(afterSignal.status, "signaled");
    assert.equal(afterSignal.signal, 15);
    const killed = await sandbox.startProcess("sleep", { args: ["300"] });
    await sandbox.killProcess(killed.pid);
    const afterKill = await waitForEnd(sandbox, killed.pid);
    assert.equal(afterKill.signal, 9);
  });

  test("files: write, read, list, delete; 1 MiB of binary content unchanged", async () => {
    const content = new Uint8Array(1024 * 1024);
    for (let i = 0; i < content.length; i++) content[i] = (i * 2654435761) >>> 24;
    await sandbox.writeFile("/tmp/sdk/blob.bin", content);
    const read = await sandbox.readFile("/tmp/sdk/blob.bin");
    assert.equal(read.length, content.length);
    assert.ok(Buffer.from(read).equals(Buffer.from(content)), "byte for byte");
    const listing = await sandbox.listDirectory("/tmp/sdk");
    assert.deepEqual(
      listing.entries.map((e) => [e.name, e.isDir, e.size]),
      [["blob.bin", false, content.length]],
    );
    await sandbox.deleteFile("/tmp/sdk/blob.bin");
    await assert.rejects(sandbox.readFile("/tmp/sdk/blob.bin"));
    assert.deepEqual((await sandbox.listDirectory("/tmp/sdk")).entries, []);
  });

  test("PTY: create, a second connection, resize, kill", async () => {
    let output = "";
    const pty = await sandbox.createPty({
      command: "bash",
      rows: 24,
      cols: 80,
      onData: (data) => {
        output += decode(data);
      },
    });
    await pty.sendInput("stty size\n");
    await until(() => output.includes("24 80"), "the first size");
    await pty.resize(120, 40);
    await pty.sendInput("stty size\n");
    await until(() => output.includes("40 120"), "the new size");
    let second = "";
    const other: Pty = await sandbox.connectPty(pty.sessionId, pty.token, {
      onData: (data) => {
        second += decode(data);
      },
    });
    await pty.sendInput("echo from-the-first\n");
    await until(() => second.includes("from-the-first"), "output on the second connection");
    other.disconnect();
    // A killed session closes its connections with the reason the SDK takes as a deliberate end.
    const waited = pty.wait();
    waited.catch(() => undefined);
    await pty.kill();
    await assert.rejects(waited, (error: unknown) => {
      assert.ok(error instanceof SandboxError);
      assert.match(error.message, /PTY session terminated/);
      return true;
    });
    // A shell that exits ends wait() with its code.
    const short = await sandbox.createPty({ command: "bash", args: ["-c", "exit 7"] });
    assert.equal(await short.wait(), 7);
  });

  test("tunnels: an HTTP server in the sandbox, reached through the SDK's local listener", async () => {
    await sandbox.writeFile("/tmp/www/hello.txt", new TextEncoder().encode("hello through the tunnel\n"));
    const server = await sandbox.startProcess("python3", {
      args: ["-m", "http.server", "8765", "--bind", "127.0.0.1"],
      workingDir: "/tmp/www",
    });
    await until(
      async () =>
        (await sandbox.run("bash", { args: ["-c", "exec 3<>/dev/tcp/127.0.0.1/8765"] })).exitCode === 0,
      "the server to listen",
    );
    const tunnel = await sandbox.createTunnel(8765, { connectTimeout: 10 });
    try {
      const { host, port } = tunnel.address();
      const response = await fetch(`http://${host}:${port}/hello.txt`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "hello through the tunnel\n");
    } finally {
      await tunnel.close();
      await sandbox.killProcess(server.pid);
    }
  });

  test("logs: process output as log records, filtered, paged; the processes that logged", async () => {
    const proc = await sandbox.startProcess("sh", {
      args: ["-c", "for i in 1 2 3; do echo log-$i; done; echo bad >&2"],
    });
    await waitForEnd(sandbox, proc.pid);
    const all = await sandbox.getLogs({ processIds: [String(proc.pid)] });
    assert.deepEqual(
      all.logs.map((l) => [l.body, l.level]),
      [
        ["log-1", 3],
        ["log-2", 3],
        ["log-3", 3],
        ["bad", 5],
      ],
    );
    assert.equal(all.logs[0].sandboxId, sandbox.sandboxId);
    assert.ok(all.logs.every((l) => /^[0-9a-f-]{36}$/.test(l.uuid)));
    const errors = await sandbox.getLogs({ processIds: [String(proc.pid)], levels: ["error"] });
    assert.deepEqual(
      errors.logs.map((l) => l.body),
      ["bad"],
    );
    const first = await sandbox.getLogs({ processIds: [String(proc.pid)], head: 2 });
    assert.deepEqual(
      first.logs.map((l) => l.body),
      ["log-1", "log-2"],
    );
    assert.ok(first.nextToken);
    const rest = await sandbox.getLogs({
      processIds: [String(proc.pid)],
      head: 2,
      nextToken: first.nextToken,
    });
    assert.deepEqual(
      rest.logs.map((l) => l.body),
      ["log-3", "bad"],
    );
    assert.equal(rest.nextToken ?? undefined, undefined);
    assert.deepEqual(
      (await sandbox.getLogs({ tail: 1, body: "log-" })).logs.map((l) => l.body),
      ["log-3"],
    );
    const processes = await sandbox.listLogProcesses();
    const mine = processes.processes.find((p) => p.processPid === String(proc.pid));
    assert.equal(mine?.logCount, 4);
    assert.equal(mine?.processCommand, "sh");
  });

  test("file systems: attachFileSystem, listFileSystems, detachFileSystem", async () => {
    const headers = { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" };
    const created = (await (
      await fetch(`${server.url}/file-systems`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "sdkfs" }),
      })
    ).json()) as { id: string };
    await fetch(`${server.url}/file-systems/sdkfs/files?path=hello.txt`, {
      method: "PUT",
      headers: { ...headers, "content-type": "application/octet-stream" },
      body: "mounted\n",
    });
    const attached = await sandbox.attachFileSystem(created.id, "/mnt/sdkfs");
    assert.deepEqual(
      attached.fileSystems?.map((m) => [m.fileSystemId, m.mountPath]),
      [[created.id, "/mnt/sdkfs"]],
    );
    await until(
      async () => (await sandbox.run("cat", { args: ["/mnt/sdkfs/hello.txt"] })).stdout === "mounted",
      "the mount to be usable",
    );
    const listed = await sandbox.listFileSystems();
    assert.deepEqual(
      listed.map((m) => m.mountPath),
      ["/mnt/sdkfs"],
    );
    const detached = await sandbox.detachFileSystem("/mnt/sdkfs");
    assert.deepEqual(detached.fileSystems ?? [], []);
    assert.notEqual((await sandbox.run("test", { args: ["-e", "/mnt/sdkfs/hello.txt"] })).exitCode, 0);
  });

  test("suspend and resume; snapshot, snapshotAndWait, getSnapshot, listSnapshots, create from one, deleteSnapshot", async () => {
    await sandbox.writeFile("/tmp/before.txt", new TextEncoder().encode("before\n"));
    await sandbox.suspend({ pollInterval: 0.05 });
    assert.equal(await sandbox.status(), "suspended");
    await sandbox.resume({ pollInterval: 0.05 });
    assert.equal(await sandbox.status(), "running");
    assert.equal(decode(await sandbox.readFile("/tmp/before.txt")), "before\n");

    const started = await client.snapshot(sandbox.sandboxId);
    assert.match(started.snapshotId, /^snap_/);
    const done = await client.snapshotAndWait(sandbox.sandboxId, {
      pollInterval: 0.05,
      waitUntil: "completed",
    });
    assert.equal(done.status, "completed");
    assert.equal(done.sandboxId, sandbox.sandboxId);
    assert.equal(done.snapshotType, "filesystem");
    const got = await client.getSnapshot(done.snapshotId);
    assert.equal(got.snapshotId, done.snapshotId);
    const listed = await client.listSnapshots();
    assert.ok(listed.some((s) => s.snapshotId === done.snapshotId));
    await sandbox.writeFile("/tmp/before.txt", new TextEncoder().encode("after\n"));
    const restored = await Sandbox.create({
      ...options,
      snapshotId: done.snapshotId,
      requestTimeout: FIRST_START_SECS,
    });
    try {
      assert.equal(decode(await restored.readFile("/tmp/before.txt")), "before\n");
    } finally {
      await restored.terminate();
    }
    await client.deleteSnapshot(started.snapshotId);
    await client.deleteSnapshot(done.snapshotId);
    assert.ok(!(await client.listSnapshots()).some((s) => s.snapshotId === done.snapshotId));
  });

  test("pools: createPool, getPool, listPools, updatePool, claim, deletePool", async () => {
    const created = await client.createPool({
      image: "default",
      cpus: 0.5,
      memoryMb: 256,
      ephemeralDiskMb: 1024,
      warmContainers: 1,
      maxContainers: 2,
    });
    assert.match(created.poolId, /^pool_/);
    const deadline = Date.now() + FIRST_START_SECS * 1000;
    let pool = await client.getPool(created.poolId);
    while (!pool.containers?.some((c) => c.state === "Idle") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      pool = await client.getPool(created.poolId);
    }
    assert.equal(pool.warmContainers, 1);
    assert.equal(pool.maxContainers, 2);
    assert.deepEqual(pool.resources, { cpus: 0.5, memoryMb: 256, ephemeralDiskMb: 1024 });
    assert.ok((await client.listPools()).some((p) => p.poolId === created.poolId));
    const updated = await client.updatePool(created.poolId, {
      image: "default",
      cpus: 0.5,
      memoryMb: 256,
      ephemeralDiskMb: 1024,
      warmContainers: 1,
      maxContainers: 3,
    });
    assert.equal(updated.maxContainers, 3);
    const claimed = await client.claim(created.poolId);
    assert.match(claimed.sandboxId, /^sbx-/);
    for (let i = 0; i < 600 && (await client.get(claimed.sandboxId)).status !== "running"; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const handle = await Sandbox.connect({ ...options, sandboxId: claimed.sandboxId });
    assert.equal((await handle.run("echo", { args: ["claimed"] })).stdout, "claimed");
    await client.delete(claimed.sandboxId);
    await client.deletePool(created.poolId);
    assert.ok(!(await client.listPools()).some((p) => p.poolId === created.poolId));
  });

  test("copy: running copies with the sandbox's files", async () => {
    await sandbox.writeFile("/tmp/copied.txt", new TextEncoder().encode("copied\n"));
    const result = await sandbox.copy({ times: 2 });
    assert.equal(result.sourceSandboxId, sandbox.sandboxId);
    assert.equal(result.sandboxes.length, 2);
    for (const copy of result.sandboxes) {
      assert.equal(copy.status, "running");
      assert.notEqual(copy.sandboxId, sandbox.sandboxId);
      const handle = await Sandbox.connect({ ...options, sandboxId: copy.sandboxId });
      assert.equal(decode(await handle.readFile("/tmp/copied.txt")), "copied\n");
      await client.delete(copy.sandboxId);
    }
    assert.ok(
      !(await client.listSnapshots()).some(
        (s) => s.sandboxId === sandbox.sandboxId && s.status === "completed",
      ),
      "the copy's snapshot is gone",
    );
  });

  test("terminate: the sandbox ends, and the archive lists it", async () => {
    const other = await Sandbox.create({ ...options, requestTimeout: FIRST_START_SECS });
    const id = other.sandboxId;
    await other.terminate();
    assert.equal((await client.get(id)).status, "terminated");
    const archived = await client.getArchived(id);
    assert.equal(archived.sandboxId, id);
    assert.ok(archived.archivedAt instanceof Date);
    const listing = await client.listArchived({ limit: 100 });
    assert.ok(listing.sandboxes.some((s) => s.sandboxId === id));
    assert.ok(
      !listing.sandboxes.some((s) => s.sandboxId === sandbox.sandboxId),
      "a live sandbox is not archived",
    );
    await assert.rejects(client.getArchived(sandbox.sandboxId));
  });

  test("every request the SDK made reached a route the server serves", () => {
    const missing = recorded.filter((r) => r.status === 404 && /^\/(v1|api|sandboxes)/.test(r.path));
    // The deliberate 404s of the suite: a deleted file read and an archived lookup of a live sandbox.
    const unexpected = missing.filter(
      (r) =>
        !r.path.startsWith("/sandboxes/{sandbox_id}/api/v1/files") && !r.path.includes("archived-sandboxes"),
    );
    assert.deepEqual(unexpected, []);
    assert.ok(
      recorded.some((r) => r.server === "proxy" && r.path.startsWith("/sandboxes/{sandbox_id}/api/v1/")),
    );
  });
});

/** Polls a process until it has ended. */
async function waitForEnd(sandbox: Sandbox, pid: number) {
  for (let i = 0; i < 200; i++) {
    const info = await sandbox.getProcess(pid);
    if (info.status !== "running") return info;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`process ${pid} still running`);
}

/** Polls a condition for up to 10 s. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
