/**
 * The build cache's bookkeeping on SQLite and PostgreSQL: a project keeps its newest steps and the evicted ones'
 * snapshots are answered for removal unless a template uses them or a sandbox is being created from them; a deleted template releases the build-cache
 * snapshots no other template uses; a sandbox's own snapshot is never answered.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { onEveryStore } from "../documents/webhooks/testing.ts";
import { createBuildCache, removeCacheSnapshots } from "./build-cache.ts";
import { createSandboxRepository, pendingSandbox } from "./repository.ts";
import { createSnapshotRepository } from "./snapshots.ts";

onEveryStore("template build cache", (makeTarget) => {
  test("eviction keeps the newest steps and what templates use; a template's delete releases its steps", async () => {
    const target = await makeTarget();
    const store = await target.open();
    try {
      const org = await store.projects.ensureOrganization("default");
      const project = await store.projects.create(org.id, "p");
      const other = await store.projects.create(org.id, "q");
      const snapshots = createSnapshotRepository(store.db);
      const cache = createBuildCache(store.db);
      const snap = async (kind: "sandbox" | "build_cache", projectId = project.id) =>
        (
          await snapshots.create({
            projectId,
            sandboxId: "sbx-builder",
            baseImage: "default",
            snapshotType: "filesystem",
            status: "completed",
            kind,
          })
        ).id;
      const steps: string[] = [];
      for (let i = 0; i < 5; i++) {
        const id = await snap("build_cache");
        steps.push(id);
        await cache.put(project.id, `key-${i}`, id);
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      await cache.put(other.id, "key-0", await snap("build_cache", other.id));
      // A template made through steps 0 and 1, and another through step 1 only.
      await cache.use("tpl-a", [steps[0], steps[1]]);
      await cache.use("tpl-b", [steps[1]]);

      assert.deepEqual(
        (await snapshots.list(project.id)).map((s) => s.id),
        [],
        "the plain listing has no build cache",
      );
      assert.equal((await snapshots.list(project.id, { includeBuildCache: true })).length, 5);

      // Another build resumes from step 2: its sandbox is being created from the snapshot.
      const repo = createSandboxRepository(store.db);
      const resuming = pendingSandbox({ projectId: project.id, cpus: 1, memoryMb: 1024, diskMb: 1024 });
      await repo.insert({ ...resuming, snapshotId: steps[2] });
      assert.deepEqual(
        await cache.evict(project.id, 2),
        [],
        "steps 0 and 1 are templates', 2 is starting a sandbox",
      );
      await repo.update(resuming.id, { status: "terminated" });
      const evicted = await cache.evict(project.id, 2);
      assert.deepEqual(evicted, [steps[2]], "steps 0 and 1 are used by templates; 3 and 4 are the newest");
      for (let i = 0; i < 5; i++) {
        assert.equal(await cache.get(project.id, `key-${i}`), i >= 3 ? steps[i] : null, `entry ${i}`);
      }
      assert.ok(await cache.get(other.id, "key-0"), "another project's cache is its own");
      const removedDisks: string[] = [];
      await removeCacheSnapshots(cache, snapshots, async (id) => void removedDisks.push(id), evicted);
      assert.deepEqual(removedDisks, [steps[2]]);
      assert.equal(await snapshots.get(project.id, steps[2]), null);

      assert.deepEqual(await cache.release("tpl-a"), [steps[0]], "step 1 is still tpl-b's");
      assert.deepEqual(await cache.release("tpl-b"), [steps[1]]);
      assert.deepEqual(await cache.release("tpl-b"), [], "released once");

      // A snapshot of a sandbox, even named in a template's uses, is never the cache's to remove.
      const own = await snap("sandbox");
      await cache.use("tpl-c", [own]);
      await cache.put(project.id, "key-own", own);
      assert.deepEqual(await cache.release("tpl-c"), []);
      assert.deepEqual((await cache.evict(project.id, 0)).sort(), [steps[3], steps[4]].sort());
    } finally {
      await store.close();
      await target.dispose();
    }
  });
});
