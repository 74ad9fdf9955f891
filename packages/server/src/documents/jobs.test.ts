import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PARSING_OPTION_DEFAULTS } from "@svc/contract";
import type { Store } from "../store/store.ts";
import { createDatasetRepository } from "./datasets.ts";
import { settingsWithDefaults } from "./job-request.ts";
import { createJobRepository, type JobRepository, type JobRequest } from "./jobs.ts";
import { onEveryStore, type StoreTarget } from "./webhooks/testing.ts";

const request: JobRequest = {
  kind: "parse",
  source: { type: "raw_text" },
  pageRange: null,
  mimeType: null,
  parsingOptions: { ...PARSING_OPTION_DEFAULTS, ignore_sections: [] },
  enrichmentOptions: settingsWithDefaults({}).enrichment_options,
  structuredExtractionOptions: null,
  pageClassifications: null,
};

onEveryStore("parse job repository", (makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  let clock = Date.UTC(2026, 0, 1);
  const now = () => clock;
  let jobs: JobRepository;
  let serial = 0;
  const project = "proj_jobs";

  before(async () => {
    target = await makeTarget();
    store = await target.open(now);
    jobs = createJobRepository(store.db, now);
  });
  after(async () => {
    await store?.close();
    await target?.dispose();
  });

  const addJob = async (overrides: { projectId?: string; datasetId?: string; fileName?: string } = {}) => {
    clock += 1000;
    return jobs.create({
      id: `parse_${String(++serial).padStart(4, "0")}`,
      projectId: overrides.projectId ?? project,
      datasetId: overrides.datasetId ?? null,
      request,
      rawText: `text ${serial}`,
      fileName: overrides.fileName ?? null,
      labels: { n: String(serial) },
      createdAt: clock,
    });
  };
  const clear = () => store.db.execute("DELETE FROM parse_jobs");

  test("claims the oldest pending job with a lease, counts the attempt, returns its raw text", async () => {
    await clear();
    const first = await addJob();
    await addJob();
    const claimed = await jobs.claim("a/0", 10_000, 3);
    assert.equal(claimed?.id, first.id);
    assert.equal(claimed?.status, "processing");
    assert.equal(claimed?.attempts, 1);
    assert.equal(claimed?.leaseOwner, "a/0");
    assert.equal(claimed?.rawText, `text ${serial - 1}`);
    assert.deepEqual(claimed?.request, request);
    const second = await jobs.claim("a/1", 10_000, 3);
    assert.notEqual(second?.id, first.id);
    assert.equal(await jobs.claim("a/2", 10_000, 3), undefined);
  });

  test("only the lease owner heartbeats, completes or fails; the result is stored with the job", async () => {
    await clear();
    const job = await addJob();
    await jobs.claim("a/0", 10_000, 3);
    assert.equal(await jobs.heartbeat(job.id, "b/0", 10_000), false);
    assert.equal(await jobs.heartbeat(job.id, "a/0", 10_000), true);
    assert.equal(await jobs.fail(job.id, "b/0", "no"), undefined);
    const output = {
      result: { pages: [], chunks: [{ page_number: 1, content: "x" }], usage: { pages_parsed: 1 } },
      totalPages: 1,
      parsedPagesCount: 1,
    };
    assert.equal(await jobs.complete(job.id, "b/0", output), undefined);
    const done = await jobs.complete(job.id, "a/0", output);
    assert.equal(done?.status, "successful");
    assert.equal(done?.finishedAt, clock);
    const read = await jobs.getWithResult(project, job.id);
    assert.deepEqual(read?.result, output.result);
    assert.equal(read?.job.totalPages, 1);
    assert.equal(await jobs.getWithResult("proj_other", job.id), undefined);
    assert.equal(await jobs.heartbeat(job.id, "a/0", 10_000), false);
  });

  test("a job whose lease expired is claimed again by another worker; the old owner has lost it", async () => {
    await clear();
    const job = await addJob();
    await jobs.claim("dead/0", 5_000, 3);
    assert.equal(await jobs.claim("live/0", 5_000, 3), undefined);
    clock += 5_001;
    const again = await jobs.claim("live/0", 5_000, 3);
    assert.equal(again?.id, job.id);
    assert.equal(again?.attempts, 2);
    assert.equal(await jobs.heartbeat(job.id, "dead/0", 5_000), false);
    assert.equal(
      await jobs.complete(job.id, "dead/0", {
        result: { pages: [], chunks: [], usage: { pages_parsed: 0 } },
        totalPages: 0,
        parsedPagesCount: 0,
      }),
      undefined,
    );
  });

  test("after maxAttempts expired claims the job ends failure with the reason", async () => {
    await clear();
    const job = await addJob();
    for (let attempt = 1; attempt <= 2; attempt++) {
      assert.equal((await jobs.claim(`w${attempt}/0`, 1_000, 2))?.attempts, attempt);
      clock += 1_001;
    }
    assert.equal(await jobs.claim("w3/0", 1_000, 2), undefined);
    const failed = await jobs.failExhausted(2);
    assert.deepEqual(
      failed.map((j) => j.id),
      [job.id],
    );
    const read = await jobs.get(project, job.id);
    assert.equal(read?.status, "failure");
    assert.match(read?.error ?? "", /ended its worker 2 times/);
    assert.deepEqual(await jobs.failExhausted(2), []);
  });

  test("release gives a job back, refunding the attempt on request", async () => {
    await clear();
    const job = await addJob();
    await jobs.claim("a/0", 10_000, 3);
    assert.equal(await jobs.release(job.id, "b/0", true), false);
    assert.equal(await jobs.release(job.id, "a/0", true), true);
    assert.equal((await jobs.get(project, job.id))?.status, "pending");
    assert.equal((await jobs.claim("a/0", 10_000, 3))?.attempts, 1);
    assert.equal(await jobs.release(job.id, "a/0", false), true);
    assert.equal((await jobs.claim("a/0", 10_000, 3))?.attempts, 2);
  });

  test("concurrent claimers on two connections never claim a job twice", async () => {
    await clear();
    for (let i = 0; i < 30; i++) await addJob();
    const other = await target.open(now);
    try {
      const repos = [jobs, createJobRepository(other.db, now)];
      const claimed: string[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, worker) => {
          const repo = repos[worker % 2];
          for (;;) {
            const job = await repo.claim(`w/${worker}`, 60_000, 3);
            if (!job) return;
            claimed.push(job.id);
          }
        }),
      );
      assert.equal(claimed.length, 30);
      assert.equal(new Set(claimed).size, 30);
    } finally {
      await other.close();
    }
  });

  test("lists newest first with filters and cursors both ways; delete removes job and result", async () => {
    await clear();
    const datasets = createDatasetRepository(store.db, now);
    await datasets.create({
      id: "dataset_x",
      projectId: project,
      name: "invoices",
      description: null,
      settings: settingsWithDefaults({}),
    });
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await addJob(i % 2 === 0 ? { datasetId: "dataset_x", fileName: "a.txt" } : {}));
    await addJob({ projectId: "proj_other" });
    const ids = made.map((j) => j.id).reverse();

    const first = await jobs.list(project, { limit: 2 });
    assert.deepEqual(
      first.items.map((i) => i.job.id),
      ids.slice(0, 2),
    );
    assert.equal(first.has_more, true);
    assert.equal(first.prev_cursor, null);
    const second = await jobs.list(project, { limit: 2, cursor: first.next_cursor ?? undefined });
    assert.deepEqual(
      second.items.map((i) => i.job.id),
      ids.slice(2, 4),
    );
    const back = await jobs.list(project, {
      limit: 2,
      cursor: second.prev_cursor ?? undefined,
      direction: "prev",
    });
    assert.deepEqual(
      back.items.map((i) => i.job.id),
      ids.slice(0, 2),
    );
    assert.equal(back.has_more, false);

    const inDataset = await jobs.list(project, { datasetName: "invoices" });
    assert.deepEqual(
      inDataset.items.map((i) => i.job.id),
      [ids[0], ids[2], ids[4]],
    );
    assert.equal((await jobs.list(project, { filename: "a.txt" })).items.length, 3);
    assert.equal((await jobs.list(project, { datasetName: "nope" })).items.length, 0);
    const after = made[2].createdAt;
    assert.deepEqual(
      (await jobs.list(project, { createdAfter: after })).items.map((i) => i.job.id),
      ids.slice(0, 2),
    );
    assert.deepEqual(
      (await jobs.list(project, { createdBefore: after })).items.map((i) => i.job.id),
      ids.slice(3),
    );

    await jobs.claim("a/0", 10_000, 3);
    assert.deepEqual(await jobs.countByStatus("dataset_x"), {
      pending: 2,
      processing: 1,
      successful: 0,
      failure: 0,
    });
    assert.equal((await jobs.list(project, { status: "processing" })).items.length, 1);
    assert.equal(await jobs.delete(project, ids[0]), true);
    assert.equal(await jobs.delete(project, ids[0]), false);
    assert.equal(await jobs.get(project, ids[0]), undefined);
  });
});
