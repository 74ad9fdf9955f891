import assert from "node:assert/strict";
import { test } from "node:test";
import { onEveryStore } from "../documents/webhooks/testing.ts";
import { createSandboxRepository, pendingSandbox } from "../sandboxes/repository.ts";
import { createSnapshotRepository } from "../sandboxes/snapshots.ts";
import { createExecutorRegistry } from "./registry.ts";

onEveryStore("executor registry", (makeTarget) => {
  test("placement fills an executor to its capacity, never past it, and one sandbox goes to one executor", async () => {
    const target = await makeTarget();
    const store = await target.open();
    const other = await target.open();
    try {
      const org = await store.projects.ensureOrganization("default");
      const project = await store.projects.create(org.id, "p");
      const repo = createSandboxRepository(store.db);
      const registry = createExecutorRegistry(store.db);
      const registry2 = createExecutorRegistry(other.db);
      await registry.register({
        id: "local-a",
        hostId: "a",
        relayAddress: "10.0.0.1:9510",
        cpus: 2,
        memoryMb: 4096,
      });
      await registry2.register({
        id: "local-b",
        hostId: "b",
        relayAddress: "10.0.0.2:9510",
        cpus: 2,
        memoryMb: 4096,
      });
      const rows = [];
      for (let i = 0; i < 5; i++) {
        const row = pendingSandbox({ projectId: project.id, cpus: 1, memoryMb: 1024, diskMb: 1024 });
        await repo.insert(row);
        rows.push(row);
      }
      // Two schedulers race for every sandbox on both executors: each sandbox lands once, on one of them.
      const results = await Promise.all(
        rows.flatMap((row) => [
          registry.place(row, "local-a"),
          registry2.place(row, "local-a"),
          registry.place(row, "local-b"),
          registry2.place(row, "local-b"),
        ]),
      );
      assert.equal(results.filter(Boolean).length, 4, "two per executor of 2 cpus, the fifth has no room");
      const placed = await Promise.all(rows.map((row) => repo.get(row.id)));
      const on = (id: string) => placed.filter((row) => row?.executorId === id).length;
      assert.equal(on("local-a"), 2);
      assert.equal(on("local-b"), 2);
      const load = await registry.alive(0);
      assert.deepEqual(
        load.map((e) => [e.id, e.usedCpus]),
        [
          ["local-a", 2],
          ["local-b", 2],
        ],
      );
    } finally {
      await other.close();
      await store.close();
      await target.dispose();
    }
  });

  test("a lost executor's sandboxes end executor_lost once, its unstarted ones are queued again", async () => {
    const target = await makeTarget();
    let clock = 1_000_000;
    const store = await target.open(() => clock);
    try {
      const org = await store.projects.ensureOrganization("default");
      const project = await store.projects.create(org.id, "p");
      const repo = createSandboxRepository(store.db, () => clock);
      const registry = createExecutorRegistry(store.db, () => clock);
      await registry.register({ id: "local-a", hostId: "a", relayAddress: null, cpus: 8, memoryMb: 8192 });
      const running = pendingSandbox({ projectId: project.id, cpus: 1, memoryMb: 512, diskMb: 512 });
      const starting = pendingSandbox({ projectId: project.id, cpus: 1, memoryMb: 512, diskMb: 512 });
      await repo.insert(running);
      await repo.insert(starting);
      assert.ok(await registry.place(running, "local-a"));
      assert.ok(await registry.place(starting, "local-a"));
      await repo.transition(running.id, ["pending"], {
        status: "snapshotting",
        address: "http://10.1.0.2:9501",
      });
      const snapshots = createSnapshotRepository(store.db);
      const snapshot = await snapshots.create({
        projectId: project.id,
        sandboxId: running.id,
        baseImage: "default",
        snapshotType: "filesystem",
        status: "in_progress",
      });
      clock += 5000;
      assert.deepEqual(await registry.declareLost("local-a", clock - 10_000), null, "its heartbeat is fresh");
      assert.equal((await registry.stale(clock - 10_000)).length, 0);
      clock += 10_000;
      assert.deepEqual(
        (await registry.stale(clock - 10_000)).map((e) => e.id),
        ["local-a"],
      );
      const [first, second] = await Promise.all([
        registry.declareLost("local-a", clock - 10_000),
        registry.declareLost("local-a", clock - 10_000),
      ]);
      assert.deepEqual(
        [first, second].filter((x) => x !== null),
        [[running.id]],
        "one scheduler wins",
      );
      const ended = await repo.get(running.id);
      assert.equal(ended?.status, "terminated");
      assert.equal(ended?.terminationReason, "executor_lost");
      const queued = await repo.get(starting.id);
      assert.equal(queued?.status, "pending");
      assert.equal(queued?.executorId, null);
      assert.equal(await registry.get("local-a"), null);
      const failed = await snapshots.get(project.id, snapshot.id);
      assert.equal(failed?.status, "failed", "the snapshot it was taking failed with it");
    } finally {
      await store.close();
      await target.dispose();
    }
  });
});
