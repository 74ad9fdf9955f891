import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

/** A server whose parse workers run the test hooks; the time limit is generous unless a test is about it. */
function workersServer(jobTimeoutSecs: number): Promise<TestServer> {
  return startTestServer(
    {},
    {
      documents: {
        workers: 2,
        maxAttempts: 2,
        workerMemoryMb: 32,
        jobTimeoutSecs,
        pollIntervalMs: 50,
        testHooks: true,
      },
    },
  );
}

describe("parse workers", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    // Crashes, heaps and parallelism are not about time: a loaded machine must not turn them into time-outs.
    server = await workersServer(120);
    api = documentsApi(server);
  });
  after(() => server.stop());

  const attempts = async (id: string) =>
    Number(
      (
        await server.store.db.query<{ attempts: number }>("SELECT attempts FROM parse_jobs WHERE id = ?", [
          id,
        ])
      )[0].attempts,
    );

  test("a job that ends its worker thread is retried, then fails with the reason; the server keeps serving", async () => {
    const job = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "svc-test:exit" });
    const result = await api.finished(job.parse_id, 120_000);
    assert.equal(result.status, "failure");
    assert.match(
      result.error ?? "",
      /ended its worker 2 times; the last time the parse worker exited with code 70/,
    );
    assert.equal(await attempts(job.parse_id), 2);
    const next = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "still here" });
    assert.equal((await api.finished(next.parse_id, 120_000)).status, "successful");
  });

  test("a parse that exhausts its thread's heap fails the job, not the server", async () => {
    const job = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "svc-test:oom" });
    const result = await api.finished(job.parse_id, 60_000);
    assert.equal(result.status, "failure");
    assert.match(result.error ?? "", /ran out of memory \(limit 32 MiB\)/);
    const next = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "after oom" });
    assert.equal((await api.finished(next.parse_id, 120_000)).status, "successful");
  });

  test("jobs run in parallel on the configured workers", async () => {
    const jobs = await Promise.all(
      [1, 2].map(() => api.expect(200, "POST", "/documents/v2/parse", { raw_text: "svc-test:sleep=800" })),
    );
    // With one worker the second job waits pending while the first runs; with two, both are processing at once.
    const ids = jobs.map((job) => job.parse_id as string);
    let overlapped = false;
    for (;;) {
      const rows = await server.store.db.query<{ status: string }>(
        "SELECT status FROM parse_jobs WHERE id IN (?, ?)",
        ids,
      );
      if (rows.length === 2 && rows.every((row) => row.status === "processing")) overlapped = true;
      if (overlapped || rows.some((row) => row.status !== "pending" && row.status !== "processing")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(overlapped, "both jobs were processing at the same time");
    for (const id of ids) assert.equal((await api.finished(id, 120_000)).status, "successful");
  });

  test("one job after another runs on the same, warm, parse thread while the other worker idles", async () => {
    const threads: string[] = [];
    for (let i = 0; i < 4; i++) {
      const job = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "svc-test:thread" });
      const result = await api.finished(job.parse_id, 120_000);
      assert.equal(result.status, "successful");
      threads.push(result.chunks?.[0]?.content ?? "");
    }
    assert.match(threads[0], /^thread \d+$/);
    // With a thread per worker loop, whichever loop claimed a job (woken, or on its poll) used its own thread, and
    // a job could start one that never parsed while a warm one idled.
    assert.deepEqual(new Set(threads).size, 1, threads.join(", "));
  });
});

describe("parse workers: the time limit", () => {
  let server: TestServer;
  before(async () => {
    server = await workersServer(2);
  });
  after(() => server.stop());

  test("a parse past the time limit is stopped and fails the job", async () => {
    const api = documentsApi(server);
    // The parse would sleep ten minutes: the job can only end within the wait below if the limit stops it.
    const job = await api.expect(200, "POST", "/documents/v2/parse", { raw_text: "svc-test:sleep=600000" });
    const result = await api.finished(job.parse_id, 120_000);
    assert.equal(result.status, "failure");
    assert.match(result.error ?? "", /longer than the limit of 2 s/);
  });
});
