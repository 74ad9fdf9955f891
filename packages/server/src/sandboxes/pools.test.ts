import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { controlApi } from "../api.testing.ts";
import { missingPrerequisite, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import { startTestServer, type TestServer } from "../testing.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** Warm pools on real sandboxes: refill, claims at once with their mounts, max_containers, update, delete. */
describe("warm pools", { skip }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ executor: "local" });
  });
  after(() => server?.stop());

  const call = (method: string, path: string, body?: unknown) => controlApi(server)(method, path, body);

  /** Polls the pool until `done` holds (first starts may wait for the image build). */
  async function poolUntil(
    id: string,
    done: (pool: { containers: { state: string; id: string }[] }) => boolean,
  ) {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const pool = (await call("GET", `/sandbox-pools/${id}`)).json;
      if (done(pool)) return pool;
      if (Date.now() > deadline) assert.fail(`pool ${id}: ${JSON.stringify(pool.containers)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function idleRunning(poolId: string, count: number) {
    await poolUntil(poolId, (pool) => pool.containers.filter((c) => c.state === "Idle").length === count);
    for (;;) {
      const pool = (await call("GET", `/sandbox-pools/${poolId}`)).json;
      const idle = pool.containers.filter((c: { state: string }) => c.state === "Idle");
      const states = await Promise.all(
        idle.map(async (c: { id: string }) => (await call("GET", `/sandboxes/${c.id}`)).json.status),
      );
      if (states.length === count && states.every((s) => s === "running")) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  test("warm sandboxes are kept started; a claim answers running at once, mounts applied; max_containers holds", async () => {
    await call("POST", "/file-systems", { name: "pooled" });
    await controlApi(server)("PUT", "/file-systems/pooled/files?path=hi.txt", undefined, { raw: "pooled\n" });
    assert.equal(
      (await call("POST", "/sandbox-pools", { warm_containers: 3, max_containers: 2 })).status,
      400,
    );
    const created = await call("POST", "/sandbox-pools", {
      image: "default",
      resources: { cpus: 0.5, memory_mb: 256, ephemeral_disk_mb: 1024 },
      timeout_secs: 600,
      warm_containers: 2,
      max_containers: 3,
    });
    assert.equal(created.status, 200);
    const poolId = created.json.pool_id;
    assert.equal(created.json.namespace, "default");
    await idleRunning(poolId, 2);
    const listed = (await call("GET", "/sandboxes")).json.sandboxes;
    assert.equal(listed.length, 0, "warm sandboxes are not the project's until claimed");

    const started = performance.now();
    const claim = await call("POST", `/sandbox-pools/${poolId}/sandboxes`, {
      file_systems: [{ file_system_id: "pooled", mount_path: "/data" }],
    });
    const claimMs = performance.now() - started;
    assert.equal(claim.status, 200);
    assert.equal(claim.json.status, "running");
    assert.equal(claim.json.claim_configuration_applied, true);
    assert.ok(claimMs < 2000, `a claim answers at once (${claimMs.toFixed(0)} ms)`);
    const claimed = claim.json.sandbox_id;
    // The mount is there when the claim answers.
    const run = await fetch(`${claim.json.sandbox_url}/api/v1/processes/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ command: "cat", args: ["/data/hi.txt"] }),
    });
    assert.match(await run.text(), /pooled/);
    assert.equal((await call("GET", `/sandboxes/${claimed}`)).json.pool_id, poolId);

    // Refilled to two warm ones: three live, the pool's maximum.
    await idleRunning(poolId, 2);
    const second = await call("POST", "/sandboxes", { pool_id: poolId, name: "from-pool" });
    assert.equal(second.json.status, "running");
    assert.equal(second.json.name, "from-pool");
    const third = await call("POST", `/sandbox-pools/${poolId}/sandboxes`);
    assert.equal(third.json.status, "running");
    const pool = (await call("GET", `/sandbox-pools/${poolId}`)).json;
    assert.equal(pool.containers.length, 3);
    assert.ok(
      pool.containers.every((c: { state: string }) => c.state === "Running"),
      "no room for a warm one",
    );
    const full = await call("POST", `/sandbox-pools/${poolId}/sandboxes`);
    assert.equal(full.status, 409);
    assert.equal(full.json.code, "POOL_AT_CAPACITY");

    // Delete: refused while claimed sandboxes live.
    assert.equal((await call("DELETE", `/sandbox-pools/${poolId}`)).status, 409);
    for (const id of [claimed, second.json.sandbox_id, third.json.sandbox_id])
      await call("DELETE", `/sandboxes/${id}`);
    assert.equal((await call("DELETE", `/sandbox-pools/${poolId}`)).status, 204);
    assert.equal((await call("GET", `/sandbox-pools/${poolId}`)).status, 404);
  });

  test("an update replaces the warm sandboxes with the new settings", async () => {
    const poolId = (
      await call("POST", "/sandbox-pools", {
        resources: { memory_mb: 256, disk_mb: 1024 },
        warm_containers: 1,
      })
    ).json.pool_id;
    await idleRunning(poolId, 1);
    const before = (await call("GET", `/sandbox-pools/${poolId}`)).json.containers[0].id;
    const updated = await call("PUT", `/sandbox-pools/${poolId}`, {
      resources: { memory_mb: 384, disk_mb: 1024 },
      warm_containers: 1,
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.json.resources.memory_mb, 384);
    await idleRunning(poolId, 1);
    const after = (await call("GET", `/sandbox-pools/${poolId}`)).json.containers[0].id;
    assert.notEqual(after, before);
    assert.equal((await call("GET", `/sandboxes/${after}`)).json.resources.memory_mb, 384);
    assert.equal((await call("GET", `/sandboxes/${before}`)).json.status, "terminated");
    assert.ok(
      (await call("GET", "/sandbox-pools")).json.pools.some((p: { pool_id: string }) => p.pool_id === poolId),
    );
    assert.equal((await call("DELETE", `/sandbox-pools/${poolId}`)).status, 204);
    assert.equal(
      (await call("GET", `/sandboxes/${after}`)).json.status,
      "terminated",
      "warm ones end with the pool",
    );
  });
});
