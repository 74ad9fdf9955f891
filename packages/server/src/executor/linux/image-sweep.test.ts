import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
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
 * Image trees are removed once nothing uses them: the periodic sweep and the delete of an uploaded image remove
 * a tree that no sandbox has mounted, that no uploaded image, live sandbox, pool or template names, and that was
 * not served within the grace period; a tree still in use stays, and a removed registry image is pulled again.
 * The grace period passes by dating the trees' last use back, not by waiting.
 */
describe("image trees are swept when nothing uses them", { skip }, () => {
  let bed: ImageServer;
  const layouts: string[] = [];
  const tagged = () =>
    (
      JSON.parse(readFileSync(join(bed.dataDir, "oci-images", "layout", "index.json"), "utf8")) as {
        manifests: { annotations?: Record<string, string> }[];
      }
    ).manifests.map((m) => m.annotations?.["org.opencontainers.image.ref.name"]);
  const start = async (image: string) => {
    const sandbox = await bed.create({ image, resources: { cpus: 1, memory_mb: 256, disk_mb: 256 } });
    await sandbox.waitUntilRunning({ timeoutMs: START_MS });
    return sandbox;
  };
  const newTree = (before: string[]) => {
    const added = bed.treeDigests().filter((hex) => !before.includes(hex));
    assert.equal(added.length, 1, `one new tree: ${added.join(", ")}`);
    return added[0];
  };

  before(async () => {
    bed = await startImageServer("image-sweep", GRACE_SECS);
    for (const name of ["kept", "gone", "archived"]) {
      layouts.push(bed.push(`sweep/${name}`, "v1", markedBusyboxImage("marker.txt", name)));
    }
  });
  after(() => bed?.stop());

  test("in use, named or recent: kept; otherwise removed, and pulled again when asked for", {
    timeout: 4 * START_MS,
  }, async () => {
    const { client, server, registry, treeDigests } = bed;
    const ageTrees = () => bed.ageTrees(2 * GRACE_SECS);
    const sweeper = server.sandboxes.images.sweeper;
    assert.ok(sweeper, "a server with an executor sweeps images");

    const running = await start(`${registry.address}/sweep/kept:v1`);
    const kept = newTree([]);
    const once = await start(`${registry.address}/sweep/gone:v1`);
    const gone = newTree([kept]);
    await once.delete();
    const archive = join(bed.scratch, "archived.tar");
    execFileSync("tar", ["-C", layouts[2], "-cf", archive, "."]);
    const uploaded = await client.images.upload("archived", readFileSync(archive));
    const archived = uploaded.digest.replace(/^sha256:/, "");
    assert.deepEqual(treeDigests(), [kept, gone, archived].sort());

    // Within the grace period nothing goes, used or not.
    assert.deepEqual(await sweeper.sweep(), []);
    assert.deepEqual(treeDigests(), [kept, gone, archived].sort());

    // Past it: the mounted tree and the uploaded image's stay; the tree of the deleted sandbox goes, with its tag.
    ageTrees();
    assert.deepEqual(await sweeper.sweep(), [`sha256:${gone}`]);
    assert.deepEqual(treeDigests(), [kept, archived].sort());
    assert.ok(!tagged().includes(gone), "the removed image's tag is gone from the layout");
    assert.ok(tagged().includes(kept));
    assert.equal(
      (await running.run("sh", { args: ["-c", 'read m < /srv/marker.txt && echo "$m"'] })).stdout,
      "kept\n",
    );

    // Deleting the uploaded image sweeps: its tree stays while a pool names it, and goes with the pool.
    const { pool_id } = await client.pools.create({
      image: "archived",
      resources: { memory_mb: 256, disk_mb: 256 },
      warm_containers: 0,
    });
    await client.images.delete("archived");
    assert.deepEqual(treeDigests(), [kept, archived].sort(), "a pool of the deleted image keeps its tree");
    await client.pools.delete(pool_id);
    assert.deepEqual(await sweeper.sweep(), [`sha256:${archived}`]);
    assert.deepEqual(treeDigests(), [kept]);

    // The removed registry image is pulled again and runs (the layout is whole after its blobs were collected).
    const again = await start(`${registry.address}/sweep/gone:v1`);
    assert.equal(
      (await again.run("sh", { args: ["-c", 'read m < /srv/marker.txt && echo "$m"'] })).stdout,
      "gone\n",
    );
    assert.deepEqual(treeDigests(), [kept, gone].sort());

    // A template over the tag keeps the tree its disk lies over (found through the project's pull of the tag).
    const tree = join(bed.scratch, "tree");
    mkdirSync(join(tree, "srv"), { recursive: true });
    const tar = execFileSync("tar", ["-C", tree, "-c", "."]);
    await client.templates.fromTree("over-gone", tar, { image: `${registry.address}/sweep/gone:v1` });

    // Nothing running: the tree no template names goes once past the grace period; the other with its template.
    await running.delete();
    await again.delete();
    ageTrees();
    assert.deepEqual(await sweeper.sweep(), [`sha256:${kept}`]);
    assert.deepEqual(treeDigests(), [gone]);
    await client.templates.delete("over-gone");
    assert.deepEqual(await sweeper.sweep(), [`sha256:${gone}`]);
    assert.deepEqual(treeDigests(), []);
    assert.deepEqual(tagged(), []);
    const blobs = join(bed.dataDir, "oci-images", "layout", "blobs", "sha256");
    assert.deepEqual(readdirSync(blobs), [], "no blob is left once no image is tagged");
  });
});
