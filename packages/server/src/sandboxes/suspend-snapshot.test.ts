import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { Client, type Sandbox } from "@svc/sdk";
import { controlApi } from "../api.testing.ts";
import { rootfsPaths } from "../executor/linux/disk.ts";
import { missingPrerequisite, REPO_ROOT, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import { startTestServer, type TestServer } from "../testing.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;

/** Suspend and resume, and filesystem snapshots, on real sandboxes. */
describe("suspend, resume and snapshots", { skip }, () => {
  let server: TestServer;
  let client: Client;
  const sandboxes: Sandbox[] = [];

  before(async () => {
    server = await startTestServer({ executor: "local" });
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  });
  after(async () => {
    for (const sandbox of sandboxes) await sandbox.delete().catch(() => undefined);
    await server?.stop();
  });

  const call = (method: string, path: string, body?: unknown) => controlApi(server)(method, path, body);

  async function running(request: Parameters<Client["sandboxes"]["create"]>[0]): Promise<Sandbox> {
    const sandbox = await client.sandboxes.create({
      resources: { cpus: 0.5, memory_mb: 512, disk_mb: 1024 },
      ...request,
    });
    sandboxes.push(sandbox);
    await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
    return sandbox;
  }

  /** The sandbox's CPU time so far, in nanoseconds (cpuacct). */
  function cpuNanos(id: string): number {
    return Number(readFileSync(`/sys/fs/cgroup/cpuacct/svc/${id}/cpuacct.usage`, "utf8"));
  }

  test("suspend freezes a named sandbox (no CPU, 503 through the proxy); resume goes on where it stopped", async () => {
    const sandbox = await running({ name: "sleeper" });
    const before = sandbox.record ?? (await sandbox.refresh());
    const counter = await sandbox.processes.start({
      command: "sh",
      // Renamed into place: a read never sees the file truncated half-way through a write.
      args: [
        "-c",
        "i=0; while true; do i=$((i+1)); echo $i > /tmp/count.new; mv /tmp/count.new /tmp/count; sleep 0.05; done",
      ],
    });
    await sandbox.files.write("/tmp/kept.txt", "kept\n");
    const countFile = join(
      rootfsPaths(join(server.dataDir, "sandboxes", sandbox.id)).upperDir,
      "tmp",
      "count",
    );
    // Counting before it is suspended (a loaded machine may take a while to start the loop).
    const counting = Date.now() + 60_000;
    while (!existsSync(countFile) && Date.now() < counting) await new Promise((r) => setTimeout(r, 20));
    const suspended = await call("POST", `/sandboxes/${sandbox.id}/suspend`);
    assert.equal(suspended.status, 202);
    assert.equal(suspended.json.status, "suspended");
    assert.equal((await call("POST", `/sandboxes/${sandbox.id}/suspend`)).status, 200, "already suspended");
    // The count stands still and no CPU is used while suspended.
    const frozenAt = Number(readFileSync(countFile, "utf8"));
    const cpu = cpuNanos(sandbox.id);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(Number(readFileSync(countFile, "utf8")), frozenAt);
    assert.equal(cpuNanos(sandbox.id), cpu, "no CPU while suspended");
    const proxied = await fetch(`${(await sandbox.refresh()).sandbox_url}/api/v1/info`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    });
    assert.equal(proxied.status, 503);

    const resumed = await call("POST", `/sandboxes/${sandbox.id}/resume`);
    assert.equal(resumed.status, 202);
    assert.equal(resumed.json.status, "running");
    assert.equal(resumed.json.id, before.id);
    assert.equal(resumed.json.sandbox_url, before.sandbox_url);
    // The first count after the resume: one more than where it stopped, not a restart from 1.
    let after = frozenAt;
    const deadline = Date.now() + 60_000;
    while (after === frozenAt && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      after = Number(readFileSync(countFile, "utf8"));
    }
    assert.ok(after > frozenAt && after < frozenAt + 40, `the count goes on from ${frozenAt}: ${after}`);
    const process = await sandbox.processes.get(counter.pid);
    assert.equal(process.status, "running", "the same process, not a new one");
    assert.equal((await sandbox.run("cat", { args: ["/tmp/kept.txt"] })).stdout, "kept\n");
    assert.equal((await call("POST", `/sandboxes/${sandbox.id}/resume`)).status, 200, "already running");
  });

  test("suspend needs a named, running sandbox", async () => {
    const unnamed = await running({});
    const refused = await call("POST", `/sandboxes/${unnamed.id}/suspend`);
    assert.equal(refused.status, 400);
    assert.match(refused.json.message, /named/);
    assert.equal(
      (await call("POST", `/sandboxes/${unnamed.id}/resume`)).status,
      200,
      "running: nothing to do",
    );
    await unnamed.delete();
    assert.equal((await call("POST", `/sandboxes/${unnamed.id}/resume`)).json.code, "SANDBOX_BUSY");
  });

  test("a snapshot keeps the files as they were; a sandbox created from it starts with them", async () => {
    const source = await running({});
    await source.files.write("/home/svc-user/state.txt", "v1\n");
    const taken = await call("POST", `/sandboxes/${source.id}/snapshot`, {});
    assert.equal(taken.status, 202);
    assert.equal(taken.json.status, "in_progress");
    const id = taken.json.snapshot_id;
    let snapshot = (await call("GET", `/snapshots/${id}`)).json;
    for (let i = 0; i < 200 && snapshot.status === "in_progress"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      snapshot = (await call("GET", `/snapshots/${id}`)).json;
    }
    assert.equal(snapshot.status, "completed", JSON.stringify(snapshot));
    assert.equal(snapshot.sandbox_id, source.id);
    assert.equal(snapshot.snapshot_type, "filesystem");
    assert.ok(snapshot.size_bytes > 0 && snapshot.rootfs_disk_bytes === 1024 * 1048576);
    assert.equal((await source.refresh()).status, "running", "back to running");
    // Later writes change the source, not the snapshot.
    await source.files.write("/home/svc-user/state.txt", "v2\n");
    const copy = await running({ snapshot_id: id });
    assert.equal((await copy.run("cat", { args: ["/home/svc-user/state.txt"] })).stdout, "v1\n");
    await copy.files.write("/home/svc-user/state.txt", "copy\n");
    const second = await running({
      snapshot_id: id,
      resources: { cpus: 0.5, memory_mb: 512, disk_mb: 2048 },
    });
    assert.equal((await second.run("cat", { args: ["/home/svc-user/state.txt"] })).stdout, "v1\n");
    const df = await second.run("sh", { args: ["-c", "df -m / | tail -1 | awk '{print $2}'"] });
    assert.ok(Number(df.stdout) > 1500, `the copy's disk grew to the size asked: ${df.stdout}`);
    assert.ok(
      (await call("GET", "/snapshots")).json.snapshots.some(
        (s: { snapshot_id: string }) => s.snapshot_id === id,
      ),
    );

    assert.equal(
      (await call("POST", `/sandboxes/${source.id}/snapshot`, { snapshot_type: "memory" })).status,
      501,
    );
    assert.equal((await call("DELETE", `/snapshots/${id}`)).status, 204);
    assert.equal((await call("GET", `/snapshots/${id}`)).status, 404);
    assert.equal((await call("POST", "/sandboxes", { snapshot_id: id })).status, 404);
  });

  test("templates: from a snapshot and from a tree; sandboxes start from them; what they use cannot go", async () => {
    const source = await running({});
    await source.files.write("/home/svc-user/from-snapshot.txt", "snap\n");
    const snapshotId = (await call("POST", `/sandboxes/${source.id}/snapshot`, {})).json.snapshot_id;
    for (
      let i = 0;
      i < 200 && (await call("GET", `/snapshots/${snapshotId}`)).json.status !== "completed";
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const fromSnapshot = await call("POST", "/templates", { name: "snapped", snapshot_id: snapshotId });
    assert.equal(fromSnapshot.status, 200);
    assert.equal(fromSnapshot.json.source, "snapshot");
    assert.equal(
      (await call("POST", "/templates", { name: "snapped", snapshot_id: snapshotId })).status,
      409,
    );
    assert.equal((await call("DELETE", `/snapshots/${snapshotId}`)).json.code, "SNAPSHOT_IN_USE");
    const a = await running({ template_id: "snapped" });
    assert.equal((await a.run("cat", { args: ["/home/svc-user/from-snapshot.txt"] })).stdout, "snap\n");
    assert.equal((await a.refresh()).template_id, fromSnapshot.json.template_id);

    // A tree laid over the default image; a device node in the tar does not survive.
    const dir = mkdtempSync(join(tmpdir(), "svc-template-"));
    try {
      mkdirSync(join(dir, "opt", "app"), { recursive: true });
      writeFileSync(join(dir, "opt", "app", "hello.txt"), "from the tree\n");
      execFileSync("mknod", [join(dir, "opt", "app", "disk"), "b", "8", "0"]);
      const tar = execFileSync("tar", ["-cz", "-C", dir, "."]);
      const response = await fetch(`${server.url}/templates/tree-tmpl/tree`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/octet-stream" },
        body: new Uint8Array(tar),
      });
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(((await response.json()) as { source: string }).source, "tree");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const b = await running({ template_id: "tree-tmpl" });
    assert.equal((await b.run("cat", { args: ["/opt/app/hello.txt"] })).stdout, "from the tree\n");
    assert.equal((await b.run("stat", { args: ["-c", "%U", "/opt/app/hello.txt"] })).stdout, "root\n");
    assert.notEqual((await b.run("test", { args: ["-e", "/opt/app/disk"] })).exitCode, 0, "no device node");
    assert.equal(
      (await b.run("python3", { args: ["-c", "print(2+2)"] })).stdout,
      "4\n",
      "the image is still there",
    );

    const names = (await call("GET", "/templates")).json.templates.map((t: { name: string }) => t.name);
    assert.deepEqual(names.sort(), ["snapped", "tree-tmpl"]);
    assert.equal((await call("GET", "/templates/tree-tmpl")).json.base_image, "default");
    assert.equal((await call("POST", "/sandboxes", { template_id: "nope" })).status, 404);
    const bad = await fetch(`${server.url}/templates/broken/tree`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/octet-stream" },
      body: "not a tar",
    });
    assert.equal(bad.status, 400);
    assert.equal((await call("DELETE", "/templates/snapped")).status, 204);
    assert.equal(
      (await call("DELETE", `/snapshots/${snapshotId}`)).status,
      204,
      "free once its template is gone",
    );
    assert.equal((await call("DELETE", "/templates/tree-tmpl")).status, 204);
    assert.equal((await call("GET", "/templates/tree-tmpl")).status, 404);
  });

  test("the CLI: sandbox suspend, resume, snapshot; snapshot list; template create, list, delete; pool create, list, delete", async () => {
    // Asynchronous: the server answering the CLI runs in this process.
    const cli = async (args: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(REPO_ROOT, "packages", "cli", "src", "main.ts"), ...args],
        { env: { PATH: process.env.PATH ?? "", SVC_API_URL: server.url, SERVICE_API_KEY: server.apiKey } },
      );
      return stdout;
    };
    await running({ name: "by-cli" });
    assert.match(await cli(["sandbox", "suspend", "by-cli"]), /status\s+suspended/);
    assert.match(await cli(["sandbox", "resume", "by-cli"]), /status\s+running/);
    const [snapshotId, status] = (await cli(["sandbox", "snapshot", "by-cli"])).trim().split(" ");
    assert.equal(status, "completed");
    assert.match(await cli(["snapshot", "list"]), new RegExp(snapshotId));
    assert.match(
      await cli(["template", "create", "cli-tmpl", "--snapshot", snapshotId]),
      /created template cli-tmpl/,
    );
    assert.match(await cli(["template", "list"]), /cli-tmpl/);
    await cli(["template", "delete", "cli-tmpl"]);
    await cli(["snapshot", "delete", snapshotId]);
    const poolId = (await cli(["pool", "create", "--warm", "0", "--max", "1", "--memory", "256"])).trim();
    assert.match(await cli(["pool", "list"]), new RegExp(poolId));
    await cli(["pool", "delete", poolId]);
  });
});
