import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Client, Sandbox } from "@svc/sdk";
import { type ImageServer, startImageServer } from "./image-server.testing.ts";
import { markedBusyboxImage } from "./registry-testbed.ts";
import { missingPrerequisite, REGISTRY_TOOLS, SANDBOX_TOOLS } from "./test-support.ts";

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
  let bed: ImageServer;
  const create = (request: Parameters<Client["sandboxes"]["create"]>[0]) =>
    bed.create({ resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 }, ...request });
  const version = async (sandbox: Sandbox) => {
    await sandbox.waitUntilRunning({ timeoutMs: START_MS });
    return (await sandbox.run("sh", { args: ["-c", 'read v < /srv/version.txt && echo "$v"'] })).stdout;
  };

  before(async () => {
    bed = await startImageServer("image-pinning", GRACE_SECS);
    bed.push("team/moving", "latest", markedBusyboxImage("version.txt", "v1"));
  });
  after(() => bed?.stop());

  test("a template (of a tree or of a snapshot) over :latest keeps v1 after v2 is pushed as :latest", {
    timeout: 6 * START_MS,
  }, async () => {
    const { client, server, registry, treeDigests } = bed;
    const latest = `${registry.address}/team/moving:latest`;
    const tree = join(bed.scratch, "tree");
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
    bed.push("team/moving", "latest", markedBusyboxImage("version.txt", "v2"));
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
    await bed.deleteSandboxes();
    bed.ageTrees(2 * GRACE_SECS);
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
