import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, type Sandbox } from "@svc/sdk";
import { startTestServer, type TestServer } from "../../testing.ts";
import { markedBusyboxImage, pushTestImage, type Registry, startRegistry } from "./registry-testbed.ts";
import { missingPrerequisite, REGISTRY_TOOLS, removeLeftovers, SANDBOX_TOOLS } from "./test-support.ts";

const skip = missingPrerequisite([
  ...SANDBOX_TOOLS.filter((tool) => tool !== "debootstrap"),
  ...REGISTRY_TOOLS,
  "busybox",
]);

/** A start that pulls may wait behind other work on a loaded 2-core machine. */
const START_MS = 180_000;
const GRACE_SECS = 3600;

/**
 * Templates and snapshots pin the digest their image's tag had when they were made: `:latest` pushed again
 * moves what new sandboxes of the tag get, not what a template's or snapshot's sandboxes start from, and the
 * image sweep keeps the pinned tree (not the tag's new one) for them.
 */
describe("templates and snapshots are pinned to their image's digest", { skip }, () => {
  let registry: Registry;
  let server: TestServer;
  let client: Client;
  const layouts: string[] = [];
  const sandboxes: Sandbox[] = [];
  const scratch = mkdtempSync(join(tmpdir(), "svc-image-pinning-test-"));
  const dataDir = join(scratch, "data");
  const trees = join(dataDir, "oci-images", "rootfs");
  const treeDigests = () => (existsSync(trees) ? readdirSync(trees).sort() : []);

  const create = async (request: Parameters<Client["sandboxes"]["create"]>[0]) => {
    const sandbox = await client.sandboxes.create({
      resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 },
      ...request,
    });
    sandboxes.push(sandbox);
    return sandbox;
  };
  const version = async (sandbox: Sandbox) => {
    await sandbox.waitUntilRunning({ timeoutMs: START_MS });
    return (await sandbox.run("sh", { args: ["-c", 'read v < /srv/version.txt && echo "$v"'] })).stdout;
  };

  before(async () => {
    registry = await startRegistry();
    mkdirSync(dataDir, { recursive: true });
    layouts.push(pushTestImage(registry, "team/moving", "latest", markedBusyboxImage("version.txt", "v1")));
    server = await startTestServer({
      executor: "local",
      allowedRegistries: [registry.address],
      dataDir,
      imageGraceSecs: GRACE_SECS,
    });
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    await client.registries.put(registry.address, {
      username: registry.username,
      password: registry.password,
    });
  });

  after(async () => {
    for (const sandbox of sandboxes) await sandbox.delete().catch(() => undefined);
    if (server) {
      await removeLeftovers(dataDir);
      await server.stop();
    }
    await registry?.stop();
    for (const layout of layouts) rmSync(dirname(layout), { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  test("a template (of a tree or of a snapshot) over :latest keeps v1 after v2 is pushed as :latest", {
    timeout: 6 * START_MS,
  }, async () => {
    const latest = `${registry.address}/team/moving:latest`;
    const tree = join(scratch, "tree");
    mkdirSync(join(tree, "srv"), { recursive: true });
    execFileSync("sh", ["-c", `echo from the tree > ${join(tree, "srv/extra.txt")}`]);
    const tar = execFileSync("tar", ["-C", tree, "-c", "."]);
    const fromTree = await client.templates.fromTree("over-latest", tar, { image: latest });
    assert.equal(fromTree.base_image, latest, "the template shows the reference as given");
    const [v1] = treeDigests();
    assert.ok(v1, "making the template pulled the tag's image");

    // A snapshot of a sandbox of the tag, and a template of it.
    const first = await create({ image: latest });
    assert.equal(await version(first), "v1\n");
    const { snapshot_id } = await first.snapshot();
    const snapshot = await client.snapshots.wait(snapshot_id, { timeoutMs: START_MS });
    assert.equal(snapshot.base_image, latest);
    await client.templates.fromSnapshot("snapshot-of-latest", snapshot_id);
    await first.delete();

    // The tag moves: a new sandbox of it gets v2 (so a template following the tag would too)...
    layouts.push(pushTestImage(registry, "team/moving", "latest", markedBusyboxImage("version.txt", "v2")));
    const ofTag = await create({ image: latest });
    assert.equal(await version(ofTag), "v2\n");
    const v2 = treeDigests().find((hex) => hex !== v1);
    assert.ok(v2, "the new push is a tree of its own");

    // ...while the templates' and the snapshot's sandboxes start from v1's digest, with their own files above it.
    const ofTree = await create({ template_id: "over-latest" });
    const ofSnapshotTemplate = await create({ template_id: "snapshot-of-latest" });
    const ofSnapshot = await create({ snapshot_id });
    assert.equal(await version(ofTree), "v1\n");
    assert.equal(
      (await ofTree.run("sh", { args: ["-c", 'read v < /srv/extra.txt && echo "$v"'] })).stdout,
      "from the tree\n",
    );
    assert.equal(await version(ofSnapshotTemplate), "v1\n");
    assert.equal(await version(ofSnapshot), "v1\n");
    const pinned = `${registry.address}/team/moving@sha256:${v1}`;
    for (const sandbox of [ofTree, ofSnapshotTemplate, ofSnapshot]) {
      assert.equal((await sandbox.refresh()).image, pinned, "started from the pinned digest");
    }
    assert.equal((await client.templates.get("over-latest")).base_image, latest);

    // Nothing running and past the grace period: the sweep keeps v1 (the templates and the snapshot pin it) and
    // removes v2, which only the tag the templates were made from points at now.
    for (const sandbox of sandboxes.splice(0)) await sandbox.delete();
    const long = new Date(Date.now() - 2 * GRACE_SECS * 1000);
    for (const hex of treeDigests()) utimesSync(join(trees, hex, "image.json"), long, long);
    const sweeper = server.sandboxes.images.sweeper;
    assert.ok(sweeper, "a server with an executor sweeps images");
    assert.deepEqual(await sweeper.sweep(), [`sha256:${v2}`]);
    assert.deepEqual(treeDigests(), [v1]);

    // A row made before pinning (no pinned image) still starts, from its tag.
    await server.store.db.execute("UPDATE sandbox_templates SET pinned_image = NULL WHERE name = ?", [
      "over-latest",
    ]);
    const unpinned = await create({ template_id: "over-latest" });
    assert.equal(await version(unpinned), "v2\n");
    assert.equal((await unpinned.refresh()).image, latest);
  });
});
