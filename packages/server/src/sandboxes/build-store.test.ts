/**
 * Build records in the store, on SQLite and PostgreSQL: a live record is written as it changes and read the same
 * by another server of the database (another BuildBook on its own connection); the log keeps its newest 1 MiB;
 * a server that starts again ends its interrupted builds `failed` with the reason and hands their build
 * sandboxes to the cleanup, and leaves other hosts' builds alone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { eventually, onEveryStore } from "../documents/webhooks/testing.ts";
import { createBuildStore } from "./build-store.ts";
import { BUILD_LOG_MAX_BYTES, BuildBook } from "./builds.ts";

onEveryStore("template build records", (makeTarget) => {
  test("a build is stored as it runs, read from another server, its log capped", async () => {
    const target = await makeTarget();
    const store = await target.open();
    const other = await target.open();
    try {
      const org = await store.projects.ensureOrganization("default");
      const project = await store.projects.create(org.id, "p");
      const book = new BuildBook(createBuildStore(store.db), "host-a");
      const reader = new BuildBook(createBuildStore(other.db), "host-b");

      const record = await book.add(project.id, "web");
      assert.equal((await reader.get(project.id, record.id))?.status, "pending");
      assert.equal(await reader.get("another-project", record.id), null);
      record.status = "running";
      record.steps = 3;
      record.line("Step 1/4 : FROM default");
      const seen = await eventually(async () => {
        const read = await reader.get(project.id, record.id);
        return read?.log.length === 1 ? read : undefined;
      });
      assert.equal(seen.status, "running");
      assert.equal(seen.steps, 3);
      assert.equal(reader.isLive(seen), false);
      assert.equal(book.isLive(record), true);

      // More than the cap: the newest lines are kept, the dropped ones counted.
      const line = "x".repeat(1000);
      for (let i = 0; i < 1500; i++) record.line(`${i} ${line}`);
      record.end({ templateId: "tpl-1" });
      await book.flush();
      const done = await reader.get(project.id, record.id);
      assert.ok(done);
      assert.equal(done.status, "succeeded");
      assert.equal(done.templateId, "tpl-1");
      assert.ok(done.finishedAt);
      assert.equal(done.log.at(-1)?.line, `1499 ${line}`);
      assert.ok(done.dropped > 400, `dropped ${done.dropped}`);
      assert.equal(done.dropped + done.log.length, 1501);
      const bytes = done.log.reduce((sum, e) => sum + Buffer.byteLength(e.line), 0);
      assert.ok(bytes <= BUILD_LOG_MAX_BYTES && bytes > BUILD_LOG_MAX_BYTES * 0.9, `${bytes} bytes kept`);
      // A follower of another host reads the same record again.
      seen.subscribe(() => undefined);
      await reader.refresh(seen);
      assert.equal(seen.status, "succeeded");
      assert.deepEqual(seen.view(), done.view());
      assert.deepEqual(
        (await reader.list(project.id)).map((b) => b.id),
        [record.id],
      );
    } finally {
      await other.close();
      await store.close();
      await target.dispose();
    }
  });

  test("a restarted server ends its interrupted builds failed and cleans their sandboxes up", async () => {
    const target = await makeTarget();
    const store = await target.open();
    try {
      const org = await store.projects.ensureOrganization("default");
      const project = await store.projects.create(org.id, "p");
      const before = new BuildBook(createBuildStore(store.db), "host-a");
      const running = await before.add(project.id, "web");
      running.status = "running";
      running.sandboxId = "sbx-builder";
      running.line("Step 2/3 : RUN make");
      const waiting = await before.add(project.id, "sdk");
      const elsewhere = await new BuildBook(createBuildStore(store.db), "host-b").add(project.id, "b");
      await before.flush();
      await new Promise((resolve) => setTimeout(resolve, 400));
      await before.flush();

      // The same host, started again (a new book on the same store).
      const after = new BuildBook(createBuildStore(store.db), "host-a");
      const cleaned: string[] = [];
      const ended = await after.recover(async (build) => {
        cleaned.push(`${build.id} ${build.sandboxId}`);
      });
      assert.deepEqual(ended.map((b) => b.id).sort(), [running.id, waiting.id].sort());
      assert.deepEqual(cleaned, [`${running.id} sbx-builder`]);
      for (const id of [running.id, waiting.id]) {
        const read = await after.get(project.id, id);
        assert.equal(read?.status, "failed");
        assert.match(read?.error ?? "", /server running the build stopped/);
        assert.equal(read?.sandboxId, null);
        assert.match(read?.log.at(-1)?.line ?? "", /^build failed: the server running/);
      }
      assert.equal((await after.get(project.id, running.id))?.log[0].line, "Step 2/3 : RUN make");
      assert.equal((await after.get(project.id, elsewhere.id))?.status, "pending", "another host's build");
      assert.deepEqual(await after.recover(async () => assert.fail("nothing left")), []);
    } finally {
      await store.close();
      await target.dispose();
    }
  });
});
