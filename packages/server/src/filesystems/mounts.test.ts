import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, type Sandbox } from "@svc/sdk";
import { controlApi } from "../api.testing.ts";
import { hostResourcesOf } from "../executor/linux/local-executor.ts";
import { missingPrerequisite, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import { startTestServer, type TestServer } from "../testing.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;

/**
 * Named file systems mounted into real sandboxes: what one sandbox writes another reads, read-only is EROFS for
 * root too, a pinned snapshot never follows the head, and every way an attach is refused or fails.
 */
describe("file-system mounts in sandboxes", { skip }, () => {
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

  const call = (method: string, path: string, body?: unknown, raw?: Uint8Array, key?: string) =>
    controlApi(server)(method, path, body, { raw, key });

  async function running(request: Parameters<Client["sandboxes"]["create"]>[0]): Promise<Sandbox> {
    const sandbox = await client.sandboxes.create(request);
    sandboxes.push(sandbox);
    await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
    return sandbox;
  }

  async function sh(sandbox: Sandbox, script: string, user?: string) {
    return sandbox.run("sh", { args: ["-c", script], ...(user ? { user } : {}) });
  }

  /** Polls until the shell check succeeds inside the sandbox (an attach converges in the background). */
  async function until(sandbox: Sandbox, check: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if ((await sh(sandbox, check)).exitCode === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`never true in ${sandbox.id}: ${check}`);
  }

  async function record(id: string) {
    return (await call("GET", `/sandboxes/${id}`)).json;
  }

  test("a mount at create and one attached later share one tree, with the content API", async () => {
    await call("POST", "/file-systems", { name: "shared" });
    await call("PUT", "/file-systems/shared/files?path=hello.txt", undefined, Buffer.from("from the API\n"));
    const a = await running({ file_systems: [{ file_system_id: "shared", mount_path: "/mnt/shared/" }] });
    assert.deepEqual(a.record?.file_systems ?? (await record(a.id)).file_systems, [
      { file_system_id: "shared", mount_path: "/mnt/shared", read_only: false, prefetch: false },
    ]);
    assert.equal((await sh(a, "cat /mnt/shared/hello.txt")).stdout, "from the API\n");
    assert.equal((await sh(a, "echo from-a > /mnt/shared/from-a.txt")).exitCode, 0);

    const b = await running({});
    const attached = await b.mount({ file_system_id: "shared", mount_path: "/data" });
    assert.deepEqual(
      attached.file_systems?.map((m) => m.mount_path),
      ["/data"],
      "the record lists the mount at once",
    );
    await until(b, "test -f /data/from-a.txt");
    assert.equal((await sh(b, "cat /data/from-a.txt")).stdout, "from-a\n");
    assert.equal((await sh(b, "echo from-b > /data/from-b.txt")).exitCode, 0);
    assert.equal((await call("GET", "/file-systems/shared/files?path=from-b.txt")).text, "from-b\n");
    // Deleting a file system that sandboxes mount is refused.
    assert.equal((await call("DELETE", "/file-systems/shared")).status, 409);

    // Detach: gone from the record and from the sandbox.
    const detached = await b.unmount("/data");
    assert.deepEqual(detached.file_systems, []);
    assert.notEqual((await sh(b, "test -f /data/from-a.txt")).exitCode, 0);
  });

  test("read-only mounts are EROFS for every user, root included; a pinned snapshot never follows the head", async () => {
    await call("POST", "/file-systems", { name: "frozen" });
    await call("PUT", "/file-systems/frozen/files?path=v.txt", undefined, Buffer.from("one\n"));
    const snapshot = (await call("POST", "/file-systems/frozen/snapshots", { message: "v1" })).json
      .snapshot_id;
    await call("PUT", "/file-systems/frozen/files?path=v.txt", undefined, Buffer.from("two\n"));
    const sandbox = await running({
      file_systems: [
        { file_system_id: "frozen", mount_path: "/ro", read_only: true },
        { file_system_id: "frozen", mount_path: "/pinned", read_only: true, snapshot_id: snapshot },
      ],
    });
    for (const user of ["svc-user", "root"]) {
      const write = await sh(sandbox, "echo x > /ro/x", user);
      assert.notEqual(write.exitCode, 0, user);
      assert.match(write.stderr, /Read-only file system/, user);
    }
    const remount = await sh(sandbox, "mount -o remount,rw /ro", "root");
    assert.notEqual(remount.exitCode, 0, "root cannot remount it writable");
    assert.equal((await sh(sandbox, "cat /ro/v.txt")).stdout, "two\n");
    assert.equal((await sh(sandbox, "cat /pinned/v.txt")).stdout, "one\n");
    await call("PUT", "/file-systems/frozen/files?path=v.txt", undefined, Buffer.from("three\n"));
    assert.equal((await sh(sandbox, "cat /ro/v.txt")).stdout, "three\n", "the head is live");
    assert.equal((await sh(sandbox, "cat /pinned/v.txt")).stdout, "one\n", "the snapshot is not");
  });

  test("bad attaches: 400 for the mount itself, 409 for the sandbox's state, 404 for the sandbox; text/plain", async () => {
    await call("POST", "/file-systems", { name: "checks" });
    const sandbox = await running({ file_systems: [{ file_system_id: "checks", mount_path: "/m/a" }] });
    const attach = (body: unknown, id = sandbox.id) => call("POST", `/sandboxes/${id}/file_systems`, body);
    const cases: [unknown, number][] = [
      [{ file_system_id: "checks", mount_path: "/" }, 400],
      [{ file_system_id: "checks", mount_path: "relative" }, 400],
      [{ file_system_id: "checks", mount_path: "/x/../y" }, 400],
      [{ file_system_id: "checks", mount_path: "/proc/x" }, 400],
      [{ file_system_id: "checks", mount_path: "/opt/svc/app" }, 400],
      [{ file_system_id: "checks", mount_path: "/p", snapshot_id: "fsnap_x" }, 400],
      [{ file_system_id: "bad name", mount_path: "/p" }, 400],
      [{ file_system_id: "checks", mount_path: "/m/a" }, 409],
      [{ file_system_id: "checks", mount_path: "/m/a/inner" }, 409],
      [{ file_system_id: "checks", mount_path: "/m" }, 409],
    ];
    for (const [body, status] of cases) {
      const response = await attach(body);
      assert.equal(response.status, status, JSON.stringify(body));
      assert.match(response.type, /^text\/plain/, JSON.stringify(body));
      assert.ok(response.text.length > 0);
    }
    assert.equal(
      (await attach({ file_system_id: "checks", mount_path: "/p" }, "sbx-nosuchsandbox")).status,
      404,
    );
    for (let i = 0; i < 7; i++) {
      assert.equal(
        (await attach({ file_system_id: "checks", mount_path: `/many/${i}` })).status,
        200,
        `mount ${i}`,
      );
    }
    assert.equal((await record(sandbox.id)).file_systems.length, 8, "no attach lost another's update");
    const ninth = await attach({ file_system_id: "checks", mount_path: "/many/9" });
    assert.equal(ninth.status, 409, "8 mounts at most");
    assert.match(ninth.text, /8/);
    await sandbox.delete();
    assert.equal((await attach({ file_system_id: "checks", mount_path: "/q" })).status, 409, "not running");
    assert.deepEqual(await hostResourcesOf({ dataDir: server.dataDir, id: sandbox.id }), [], "no mount left");
  });

  test("a mount that cannot converge ends the sandbox: FileSystemNotFound, FileSystemSnapshotNotFound", async () => {
    const attached = await running({});
    const response = await call("POST", `/sandboxes/${attached.id}/file_systems`, {
      file_system_id: "ghost",
      mount_path: "/ghost",
    });
    assert.equal(response.status, 200);
    const waitEnded = async (id: string) => {
      for (let i = 0; i < 200; i++) {
        const current = await record(id);
        if (current.status === "terminated") return current;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail(`${id} did not end`);
    };
    const ended = await waitEnded(attached.id);
    assert.equal(ended.termination_reason, "FileSystemNotFound");
    assert.match(ended.error_details, /ghost/);

    await call("POST", "/file-systems", { name: "real" });
    const pinned = await client.sandboxes.create({
      file_systems: [
        { file_system_id: "real", mount_path: "/r", read_only: true, snapshot_id: "fsnap_none" },
      ],
    });
    sandboxes.push(pinned);
    const pinnedEnd = await waitEnded(pinned.id);
    assert.equal(pinnedEnd.termination_reason, "FileSystemSnapshotNotFound");

    // Another project's file system of that name does not exist for this one.
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "mounts-other");
    const otherKey = (await server.store.apiKeys.create({ projectId: other.id })).key;
    await call("POST", "/file-systems", { name: "theirs" }, undefined, otherKey);
    const mine = await client.sandboxes.create({
      file_systems: [{ file_system_id: "theirs", mount_path: "/t" }],
    });
    sandboxes.push(mine);
    assert.equal((await waitEnded(mine.id)).termination_reason, "FileSystemNotFound");
  });

  test("a guest path that a symbolic link redirects is not mounted, and the mount is dropped", async () => {
    await call("POST", "/file-systems", { name: "linked" });
    const sandbox = await running({});
    assert.equal(
      (await sh(sandbox, "mkdir -p /tmp/elsewhere && ln -s /tmp/elsewhere /tmp/link")).exitCode,
      0,
    );
    const response = await call("POST", `/sandboxes/${sandbox.id}/file_systems`, {
      file_system_id: "linked",
      mount_path: "/tmp/link",
    });
    assert.equal(response.status, 200);
    for (let i = 0; i < 200 && (await record(sandbox.id)).file_systems.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual((await record(sandbox.id)).file_systems, []);
    assert.equal((await record(sandbox.id)).status, "running");
    const mounts = await sh(sandbox, "cat /proc/self/mountinfo");
    assert.doesNotMatch(mounts.stdout, /\/tmp\/elsewhere|\/tmp\/link/);
  });
});
