import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, type Sandbox, SvcError } from "@svc/sdk";
import { startTestServer, type TestServer } from "../../testing.ts";
import { parseLdd } from "./node-runtime.ts";
import { pushTestImage, type Registry, startRegistry } from "./registry-testbed.ts";
import { missingPrerequisite, REGISTRY_TOOLS, removeLeftovers, SANDBOX_TOOLS } from "./test-support.ts";

// Its sandboxes start from OCI images: no default image, so no debootstrap.
const skip = missingPrerequisite([
  ...SANDBOX_TOOLS.filter((tool) => tool !== "debootstrap"),
  ...REGISTRY_TOOLS,
  "busybox",
]);

/** A start that pulls may wait behind other work on a loaded 2-core machine. */
const START_MS = 180_000;

/** A busybox-static tree: no libc at all, so the daemon's Node can only run on the host's libraries. */
function busyboxFiles(): Record<string, Buffer | string> {
  return {
    "bin/sh": readFileSync(execFileSync("sh", ["-c", "command -v busybox"], { encoding: "utf8" }).trim()),
    "etc/passwd": "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:app:/home/app:/bin/sh\n",
    "etc/group": "root:x:0:\napp:x:1000:\n",
    "home/app/.keep": "",
  };
}

/**
 * The host's `id` (coreutils, which prints `euid=` when it differs from the uid) and the libraries it loads at
 * their paths (mode 0755: the kernel needs the loader executable), answered with their modes.
 */
function hostIdFiles(): { files: Record<string, Buffer>; modes: Record<string, number> } {
  const files: Record<string, Buffer> = { "usr/bin/id": readFileSync("/usr/bin/id") };
  const modes: Record<string, number> = { "usr/bin/id": 0o4755 };
  for (const lib of parseLdd(execFileSync("ldd", ["/usr/bin/id"], { encoding: "utf8" })).files) {
    const path = lib.source.replace(/^\//, "");
    files[path] = readFileSync(lib.source);
    modes[path] = 0o755;
  }
  return { files, modes };
}

describe("sandboxes from OCI images through the API", { skip }, () => {
  let registry: Registry;
  let server: TestServer;
  let client: Client;
  const layouts: string[] = [];
  const sandboxes: Sandbox[] = [];
  const scratch = mkdtempSync(join(tmpdir(), "svc-oci-sandbox-test-"));
  const dataDir = join(scratch, "data");

  const create = async (request: Parameters<Client["sandboxes"]["create"]>[0]) => {
    const sandbox = await client.sandboxes.create({
      resources: { cpus: 1, memory_mb: 512, disk_mb: 256 },
      ...request,
    });
    sandboxes.push(sandbox);
    return sandbox;
  };
  const ended = async (sandbox: Sandbox) => {
    const deadline = Date.now() + START_MS;
    for (;;) {
      const record = await sandbox.refresh();
      if (record.status === "terminated") return record;
      if (record.status === "running") assert.fail(`sandbox ${sandbox.id} runs; it should have ended`);
      if (Date.now() > deadline) assert.fail(`sandbox ${sandbox.id} still ${record.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  before(async () => {
    registry = await startRegistry();
    const hostId = hostIdFiles();
    layouts.push(
      pushTestImage(registry, "team/busybox", "v1", {
        files: { ...busyboxFiles(), "srv/app/hello.txt": "hello from the image\n" },
        modes: { "bin/sh": 0o755 },
        env: ["GREETING=hi from ENV", "PATH=/bin:/usr/bin"],
        workingDir: "/srv/app",
        user: "app",
        cmd: ["/bin/sh"],
      }),
      pushTestImage(registry, "team/entry", "v1", {
        files: { ...busyboxFiles(), "tmp/.keep": "" },
        modes: { "bin/sh": 0o755, tmp: 0o1777 },
        env: ["GREETING=hi from ENV", "PATH=/bin"],
        workingDir: "/home/app",
        user: "app",
        entrypoint: ["/bin/sh", "-c"],
        cmd: ['echo "$(id -un) in $(pwd): $GREETING"; echo ran > /tmp/entry.txt'],
      }),
      pushTestImage(registry, "team/setuid", "v1", {
        files: { ...busyboxFiles(), ...hostId.files },
        modes: { "bin/sh": 0o755, ...hostId.modes },
      }),
    );
    // A pull killed with an earlier server left its credentials file: the executor removes it at start.
    mkdirSync(join(dataDir, "oci-images", ".auth-stale"), { recursive: true });
    writeFileSync(join(dataDir, "oci-images", ".auth-stale", "auth.json"), "{}");
    server = await startTestServer({ executor: "local", allowedRegistries: [registry.address], dataDir });
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  });

  after(async () => {
    for (const sandbox of sandboxes) await sandbox.delete().catch(() => undefined);
    if (server) {
      await removeLeftovers(server.dataDir);
      await server.stop();
    }
    await registry?.stop();
    for (const layout of layouts) rmSync(dirname(layout), { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  test("registry credentials: stored encrypted, listed without the password, deleted", async () => {
    const put = await client.registries.put(registry.address, {
      username: registry.username,
      password: registry.password,
    });
    assert.equal(existsSync(join(dataDir, "oci-images", ".auth-stale")), false, "a stale auth file is gone");
    assert.equal(put.registry, registry.address);
    assert.equal(put.username, registry.username);
    assert.equal(JSON.stringify(put).includes(registry.password), false);
    const listed = await client.registries.list();
    assert.deepEqual(
      listed.map((c) => c.registry),
      [registry.address],
    );
    assert.equal(JSON.stringify(listed).includes(registry.password), false);
    // At rest: neither the database file nor its WAL holds the password in clear.
    for (const file of ["svc.db", "svc.db-wal"].map((f) => join(server.dataDir, f))) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch {
        continue;
      }
      assert.equal(bytes.includes(registry.password), false, `${file} holds the password in clear`);
    }
    await client.registries.put("other.example.com", { username: "x", password: "y" });
    await client.registries.delete("other.example.com");
    await assert.rejects(client.registries.delete("other.example.com"), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "REGISTRY_CREDENTIAL_NOT_FOUND");
      return true;
    });
  });

  test("a sandbox from a busybox image: the daemon runs without the image having a libc; ENV, WORKDIR and USER are the defaults", {
    timeout: START_MS + 60_000,
  }, async () => {
    // The pending reasons the start records (a pull can be too quick for polling to see).
    const repo = server.sandboxes.repo;
    const update = repo.update.bind(repo);
    const reasons: unknown[] = [];
    repo.update = (id, changes) => {
      if (changes.pendingReason !== undefined) reasons.push(changes.pendingReason);
      return update(id, changes);
    };
    let record: Awaited<ReturnType<Sandbox["waitUntilRunning"]>>;
    let sandbox: Sandbox;
    try {
      sandbox = await create({ image: `${registry.address}/team/busybox:v1` });
      record = await sandbox.waitUntilRunning({ timeoutMs: START_MS });
    } finally {
      repo.update = update;
    }
    assert.ok(reasons.includes("pulling_image"), `pending reasons: ${reasons.join(", ")}`);
    assert.equal(record.image, `${registry.address}/team/busybox:v1`);
    const run = await sandbox.run("sh", { args: ["-c", 'id; pwd; echo "$GREETING"; cat hello.txt'] });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.stdout, "uid=1000(app) gid=1000(app)\n/srv/app\nhi from ENV\nhello from the image\n");
    // A terminal runs as the image's user too (the host's setpriv switches to it: the image has none).
    let shown = "";
    const term = await sandbox.pty({
      command: "/bin/sh",
      args: ["-c", "id -u; pwd; exit 7"],
      onData: (data) => {
        shown += new TextDecoder().decode(data);
      },
    });
    assert.equal(await term.exited, 7);
    assert.match(shown, /1000\r?\n\/srv\/app/);
    // The request's env, working directory and user win over the image's.
    const asked = await sandbox.run("sh", {
      args: ["-c", 'id -u; pwd; echo "$GREETING"'],
      env: { GREETING: "from the request" },
      workingDir: "/",
      user: "root",
    });
    assert.equal(asked.stdout, "0\n/\nfrom the request\n");
    // Writes go to the sandbox's own layer, not the shared image tree.
    // The image's root-owned files are root's in the sandbox too; root's writes go to the sandbox's own layer.
    const denied = await sandbox.run("sh", { args: ["-c", "echo changed > hello.txt"] });
    assert.notEqual(denied.exitCode, 0);
    const write = await sandbox.run("sh", {
      args: ["-c", "echo changed > hello.txt && cat hello.txt"],
      user: "root",
    });
    assert.equal(write.stdout, "changed\n", write.stderr);
    const again = await create({ image: `${registry.address}/team/busybox:v1` });
    await again.waitUntilRunning({ timeoutMs: START_MS });
    assert.equal(
      (await again.run("sh", { args: ["-c", "cat /srv/app/hello.txt"] })).stdout,
      "hello from the image\n",
    );
  });

  test("another project gets an image this host holds only with its own credentials", {
    timeout: START_MS + 60_000,
  }, async () => {
    const admin = new Client({ adminToken: server.adminToken, baseUrl: server.url, apiKey: server.apiKey });
    await admin.projects.create("other-team");
    const { key } = await admin.keys.create({ project: "other-team", name: "test" });
    const other = new Client({ apiKey: key, baseUrl: server.url });
    const image = `${registry.address}/team/busybox:v1`;
    // The default project pulled it first (so the store holds it), with its credentials.
    const mine = await create({ image });
    await mine.waitUntilRunning({ timeoutMs: START_MS });
    const theirs = await other.sandboxes.create({
      image,
      resources: { cpus: 1, memory_mb: 512, disk_mb: 256 },
    });
    sandboxes.push(theirs);
    const denied = await ended(theirs);
    assert.equal(denied.termination_reason, "ImagePullUnauthorized");
    await other.registries.put(registry.address, {
      username: registry.username,
      password: registry.password,
    });
    const allowed = await other.sandboxes.create({
      image,
      resources: { cpus: 1, memory_mb: 512, disk_mb: 256 },
    });
    sandboxes.push(allowed);
    await allowed.waitUntilRunning({ timeoutMs: START_MS });
  });

  test("a template from a tree over an OCI image, and a pool of it, start on the image with the tree above", {
    timeout: START_MS + 60_000,
  }, async () => {
    const tree = join(scratch, "tree");
    execFileSync("mkdir", ["-p", join(tree, "srv/app")]);
    execFileSync("sh", ["-c", `echo from the template > ${join(tree, "srv/app/extra.txt")}`]);
    const tar = execFileSync("tar", ["-C", tree, "-c", "."]);
    const image = `${registry.address}/team/busybox:v1`;
    const template = await client.templates.fromTree("busybox-app", tar, { image });
    assert.equal(template.base_image, image);
    const fromTemplate = await create({ template_id: "busybox-app" });
    await fromTemplate.waitUntilRunning({ timeoutMs: START_MS });
    const both = await fromTemplate.run("sh", { args: ["-c", "cat hello.txt extra.txt"] });
    assert.equal(both.stdout, "hello from the image\nfrom the template\n", both.stderr);

    const { pool_id } = await client.pools.create({ image, warm_containers: 0, max_containers: 1 });
    try {
      const claimed = await create({ pool_id });
      await claimed.waitUntilRunning({ timeoutMs: START_MS });
      assert.equal((await claimed.run("sh", { args: ["-c", "id -un"] })).stdout, "app\n");
    } finally {
      for (const sandbox of sandboxes.splice(0)) await sandbox.delete().catch(() => undefined);
      await client.pools.delete(pool_id).catch(() => undefined);
    }
  });

  test("the image's ENTRYPOINT + CMD run as a listed background process with its USER, WORKDIR and ENV; a request's entrypoint replaces them, an empty one runs nothing", {
    timeout: 4 * START_MS,
  }, async () => {
    await client.registries.put(registry.address, {
      username: registry.username,
      password: registry.password,
    });
    const image = `${registry.address}/team/entry:v1`;
    /** The sandbox's processes once none runs any more (or the deadline). */
    const settled = async (sandbox: Sandbox) => {
      const deadline = Date.now() + START_MS;
      for (;;) {
        const listed = await sandbox.processes.list();
        if (listed.every((p) => p.status !== "running") || Date.now() > deadline) return listed;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const sandbox = await create({ image });
    await sandbox.waitUntilRunning({ timeoutMs: START_MS });
    const [entry, ...others] = await settled(sandbox);
    assert.equal(others.length, 0);
    assert.equal(entry.command, "/bin/sh");
    assert.deepEqual(entry.args, ["-c", 'echo "$(id -un) in $(pwd): $GREETING"; echo ran > /tmp/entry.txt']);
    assert.equal(entry.status, "exited");
    const stderr = (await sandbox.processes.output(entry.pid, "stderr")).lines.join("\n");
    assert.equal(entry.exit_code, 0, stderr);
    assert.deepEqual((await sandbox.processes.output(entry.pid, "stdout")).lines, [
      "app in /home/app: hi from ENV",
    ]);
    // It exited, the sandbox runs on; what it wrote is the image user's.
    assert.equal((await sandbox.refresh()).status, "running");
    const file = await sandbox.run("sh", { args: ["-c", "cat /tmp/entry.txt; stat -c %U /tmp/entry.txt"] });
    assert.equal(file.stdout, "ran\napp\n", file.stderr);

    const own = await create({ image, entrypoint: ["/bin/sh", "-c", "echo own entrypoint; sleep 600"] });
    await own.waitUntilRunning({ timeoutMs: START_MS });
    const [running, ...rest] = await own.processes.list();
    assert.equal(rest.length, 0);
    assert.deepEqual([running.command, running.status], ["/bin/sh", "running"]);
    const deadline = Date.now() + START_MS;
    while ((await own.processes.output(running.pid, "stdout")).lines.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual((await own.processes.output(running.pid, "stdout")).lines, ["own entrypoint"]);
    assert.notEqual((await own.run("sh", { args: ["-c", "test -e /tmp/entry.txt"] })).exitCode, 0);

    const none = await create({ image, entrypoint: [] });
    await none.waitUntilRunning({ timeoutMs: START_MS });
    assert.deepEqual(await none.processes.list(), []);

    // One that cannot be started ends the sandbox with the daemon's reason.
    const broken = await create({ image, entrypoint: ["/no/such/program"] });
    const failed = await ended(broken);
    assert.equal(failed.termination_reason, "start_failed");
    assert.match(failed.error_details ?? "", /entrypoint .*\/no\/such\/program/);
    for (const made of sandboxes.splice(0)) await made.delete().catch(() => undefined);
  });

  test("a setuid-root binary of an image gives no privilege; the image store is root's alone on the host", {
    timeout: START_MS + 60_000,
  }, async () => {
    const sandbox = await create({ image: `${registry.address}/team/setuid:v1` });
    await sandbox.waitUntilRunning({ timeoutMs: START_MS });
    const mode = await sandbox.run("sh", { args: ["-c", "stat -c %a /usr/bin/id"] });
    assert.equal(mode.stdout, "4755\n", "the image's setuid bit is kept in the tree");
    const asUser = await sandbox.run("/usr/bin/id", { user: "1000" });
    assert.equal(asUser.exitCode, 0, asUser.stderr);
    assert.match(asUser.stdout, /^uid=1000/);
    assert.doesNotMatch(asUser.stdout, /euid=0/, "the setuid bit raised no privilege");
    const store = statSync(join(server.dataDir, "oci-images"));
    assert.equal(store.mode & 0o077, 0, "no other host user can reach the images' setuid files");
  });

  test("a missing image ends ImageNotFound, a refused pull ImagePullUnauthorized, a bad reference is a 400", {
    timeout: START_MS + 60_000,
  }, async () => {
    const missing = await create({ image: `${registry.address}/team/missing:v1` });
    const gone = await ended(missing);
    assert.equal(gone.termination_reason, "ImageNotFound");
    assert.match(gone.error_details ?? "", /team\/missing:v1/);

    await client.registries.delete(registry.address);
    try {
      const refused = await create({ image: `${registry.address}/team/setuid:v2` });
      const denied = await ended(refused);
      assert.equal(denied.termination_reason, "ImagePullUnauthorized");
      assert.match(denied.error_details ?? "", /refused access/);
      assert.equal((denied.error_details ?? "").includes(registry.password), false);
    } finally {
      await client.registries.put(registry.address, {
        username: registry.username,
        password: registry.password,
      });
    }

    await assert.rejects(create({ image: "Bad Ref:tag" }), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "INVALID_IMAGE");
      return true;
    });
  });

  test("an uploaded OCI archive is an image by name for sandboxes", {
    timeout: START_MS + 60_000,
  }, async () => {
    const archive = join(scratch, "busybox-oci.tar");
    execFileSync("tar", ["-C", layouts[0], "-cf", archive, "."]);
    const uploaded = await client.images.upload("my-busybox", readFileSync(archive));
    assert.match(uploaded.digest, /^sha256:[a-f0-9]{64}$/);
    assert.equal(uploaded.working_dir, "/srv/app");
    assert.deepEqual(
      (await client.images.list()).map((i) => i.name),
      ["my-busybox"],
    );
    await assert.rejects(client.images.upload("my-busybox", readFileSync(archive)), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "IMAGE_EXISTS");
      return true;
    });
    await assert.rejects(
      client.images.upload("not-an-image", new TextEncoder().encode("plain text")),
      (e: unknown) => {
        assert.ok(e instanceof SvcError);
        assert.equal(e.code, "INVALID_IMAGE");
        return true;
      },
    );
    // The recorded form (served by digest alone) is the server's to write, never a request's.
    await assert.rejects(create({ image: `archive:my-busybox@${uploaded.digest}` }), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "INVALID_IMAGE");
      return true;
    });
    const sandbox = await create({ image: "my-busybox" });
    await sandbox.waitUntilRunning({ timeoutMs: START_MS });
    const run = await sandbox.run("sh", { args: ["-c", "cat hello.txt"] });
    assert.equal(run.stdout, "hello from the image\n");
    await client.images.delete("my-busybox");
    await assert.rejects(client.images.get("my-busybox"), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "IMAGE_NOT_FOUND");
      return true;
    });
  });
});
