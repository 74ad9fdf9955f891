import assert from "node:assert/strict";
import { after, afterEach, before, it } from "node:test";
import { generateWebhookSecret, type WebhookEventName, type WebhookPayload } from "@svc/contract";
import type { Store } from "../../store/store.ts";
import {
  allowLoopback,
  keepTrafficOnLoopback,
  type LoopbackServer,
  startLoopbackServer,
  tableLookup,
} from "../url-fetch.testing.ts";
import { notifyJobEvent, WebhookDispatcher, type WebhookDispatcherOptions } from "./index.ts";
import { createWebhookRepository, type WebhookRepository } from "./repository.ts";
import { eventually, onEveryStore, type StoreTarget, verifyStandardWebhook } from "./testing.ts";

const COMPLETED: WebhookEventName = "document_ingestion.job.completed";

function payload(jobId: string): WebhookPayload {
  return {
    job_id: jobId,
    status: "successful",
    created_at: "2026-01-01T00:00:00.000Z",
    dataset_id: "dataset_1",
  };
}

onEveryStore("webhook dispatcher", (makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  let repo: WebhookRepository;
  let receiver: LoopbackServer;
  let net: ReturnType<typeof keepTrafficOnLoopback>;
  /** What the receiver answers, by path: a list of statuses consumed in order (the last one repeats). */
  const answers = new Map<string, number[]>();
  const dispatchers: WebhookDispatcher[] = [];

  function dispatcher(options: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
    const made = new WebhookDispatcher({
      db: store.db,
      allowPrivate: allowLoopback,
      retryDelaysMs: [20],
      jitter: 0,
      pollIntervalMs: 10,
      attemptTimeoutMs: 2000,
      ...options,
    });
    dispatchers.push(made);
    return made;
  }

  async function project(name: string): Promise<string> {
    const org = await store.projects.ensureOrganization("dispatch-org");
    return (await store.projects.create(org.id, name)).id;
  }

  before(async () => {
    net = keepTrafficOnLoopback();
    target = await makeTarget();
    store = await target.open();
    repo = createWebhookRepository(store.db);
    receiver = await startLoopbackServer((request, response) => {
      const path = request.url ?? "/";
      if (path === "/hang") return; // never answers
      const statuses = answers.get(path) ?? [204];
      const status = statuses.length > 1 ? (statuses.shift() as number) : statuses[0];
      response.writeHead(status).end(status < 300 ? "" : "nope");
    });
  });
  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((made) => made.stop()));
  });
  after(async () => {
    await receiver?.close();
    await store?.close();
    await target?.dispose();
    net?.remove();
    assert.deepEqual(net.stopped, [], "traffic tried to leave loopback");
  });

  it("POSTs the payload signed per Standard Webhooks, verified by an independent implementation", async () => {
    const projectId = await project("signed");
    const secret = generateWebhookSecret();
    const webhook = await repo.create({
      projectId,
      url: `${receiver.url}/signed`,
      secret,
      events: [COMPLETED],
    });
    assert.equal(
      await notifyJobEvent(store.db, { projectId, event: COMPLETED, payload: payload("parse_a") }),
      1,
    );
    assert.equal(
      await notifyJobEvent(store.db, {
        projectId,
        event: "document_ingestion.job.failed",
        payload: payload("parse_b"),
      }),
      0,
    );

    assert.equal(await dispatcher().runOnce(), 1);
    const requests = receiver.requests.filter((request) => request.url === "/signed");
    assert.equal(requests.length, 1);
    const [request] = requests;
    const body = request.body.toString("utf8");
    assert.equal(request.method, "POST");
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers["webhook-event"], COMPLETED);
    assert.deepEqual(JSON.parse(body), payload("parse_a"));
    assert.ok(verifyStandardWebhook(secret, request.headers, body), "signature does not verify");
    assert.ok(!verifyStandardWebhook(generateWebhookSecret(), request.headers, body), "any secret verifies");
    assert.ok(!verifyStandardWebhook(secret, request.headers, `${body} `), "any body verifies");

    const page = await repo.listAttempts(projectId, webhook.id, {});
    assert.equal(page?.items.length, 1);
    const [attempt] = page?.items ?? [];
    assert.equal(attempt.message_id, request.headers["webhook-id"]);
    assert.deepEqual(
      [attempt.attempt, attempt.status_code, attempt.succeeded, attempt.error, attempt.job_id, attempt.event],
      [1, 204, true, null, "parse_a", COMPLETED],
    );
    const delivery = await repo.getDelivery(attempt.message_id);
    assert.equal(delivery?.status, "delivered");
    assert.equal(delivery?.attempts, 1);
  });

  it("retries a failing receiver with the same message id and records every attempt", async () => {
    const projectId = await project("flaky");
    const secret = generateWebhookSecret();
    answers.set("/flaky", [500, 502, 200]);
    const webhook = await repo.create({
      projectId,
      url: `${receiver.url}/flaky`,
      secret,
      events: [COMPLETED],
    });
    await notifyJobEvent(store.db, { projectId, event: COMPLETED, payload: payload("parse_flaky") });
    const started = Date.now();
    dispatcher({ retryDelaysMs: [50, 100] }).start();

    const page = await eventually(async () => {
      const listed = await repo.listAttempts(projectId, webhook.id, {});
      return listed?.items.length === 3 ? listed : undefined;
    });
    assert.ok(Date.now() - started >= 150, "retries did not wait for the backoff");
    assert.deepEqual(
      page.items.map((item) => [item.attempt, item.status_code, item.succeeded]),
      [
        [3, 200, true],
        [2, 502, false],
        [1, 500, false],
      ],
    );
    assert.equal(page.items[1].error, "webhook URL answered HTTP 502");
    const requests = receiver.requests.filter((request) => request.url === "/flaky");
    assert.equal(requests.length, 3);
    const ids = new Set(requests.map((request) => request.headers["webhook-id"]));
    assert.deepEqual([...ids], [page.items[0].message_id]);
    for (const request of requests)
      assert.ok(verifyStandardWebhook(secret, request.headers, request.body.toString()));
    const delivery = await eventually(async () => {
      const found = await repo.getDelivery(page.items[0].message_id);
      return found?.status === "delivered" ? found : undefined;
    });
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.lastStatusCode, 200);
    assert.equal(delivery.lastError, null);
  });

  it("fails a delivery after the last attempt", async () => {
    const projectId = await project("down");
    answers.set("/down", [503]);
    const webhook = await repo.create({
      projectId,
      url: `${receiver.url}/down`,
      secret: generateWebhookSecret(),
      events: [COMPLETED],
    });
    const [id] = await repo.enqueue({ projectId, event: COMPLETED, payload: payload("parse_down") });
    const failures: unknown[] = [];
    dispatcher({ maxAttempts: 3, log: (message, fields) => failures.push({ message, ...fields }) }).start();
    const delivery = await eventually(async () => {
      const found = await repo.getDelivery(id);
      return found?.status === "failed" ? found : undefined;
    });
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.lastStatusCode, 503);
    assert.equal(delivery.lastError, "webhook URL answered HTTP 503");
    const page = await repo.listAttempts(projectId, webhook.id, {});
    assert.deepEqual(
      page?.items.map((item) => [item.attempt, item.status_code, item.next_attempt_at]),
      [
        [3, 503, null],
        [2, 503, null],
        [1, 503, null],
      ],
    );
    assert.equal(receiver.requests.filter((request) => request.url === "/down").length, 3);
    assert.deepEqual(failures, [
      {
        message: "webhook delivery failed",
        delivery_id: id,
        webhook_id: webhook.id,
        attempts: 3,
        error: "webhook URL answered HTTP 503",
      },
    ]);
  });

  it("refuses webhook URLs on non-public addresses and fails them at once", async () => {
    const projectId = await project("private");
    const lookup = tableLookup({ "hooks.example": "10.2.3.4", "loop.example": "127.0.0.1" });
    const cases = [
      ["http://10.0.0.1/hook", "webhook URL points to a private address (10.0.0.1)"],
      ["http://169.254.169.254/latest/meta-data/", "webhook URL points to a link-local"],
      [
        "https://hooks.example/hook",
        "webhook URL host hooks.example resolves to a private address (10.2.3.4)",
      ],
      [
        `http://loop.example:${receiver.port}/private`,
        "webhook URL host loop.example resolves to a loopback",
      ],
      [`${receiver.url}/private`, "webhook URL points to a loopback address (127.0.0.1)"],
    ];
    const ids: string[] = [];
    for (const [url] of cases) {
      const webhook = await repo.create({
        projectId,
        url,
        secret: generateWebhookSecret(),
        events: [COMPLETED],
      });
      ids.push(webhook.id);
    }
    const seen = receiver.requests.length;
    await notifyJobEvent(store.db, { projectId, event: COMPLETED, payload: payload("parse_private") });
    // No test hook: loopback is as private as the rest.
    const sender = dispatcher({ allowPrivate: undefined, lookup, maxAttempts: 5 });
    assert.equal(await sender.runOnce(), cases.length);
    assert.equal(await sender.runOnce(), 0, "a refused delivery was queued for retry");
    assert.equal(receiver.requests.length, seen);
    for (const [i, [, reason]] of cases.entries()) {
      const page = await repo.listAttempts(projectId, ids[i], {});
      assert.equal(page?.items.length, 1);
      const [attempt] = page?.items ?? [];
      assert.equal(attempt.status_code, null);
      assert.ok(attempt.error?.startsWith(reason), `${attempt.error} does not start with ${reason}`);
      assert.equal((await repo.getDelivery(attempt.message_id))?.status, "failed");
    }
  });

  it("times an attempt out and retries it", async () => {
    const projectId = await project("hang");
    const webhook = await repo.create({
      projectId,
      url: `${receiver.url}/hang`,
      secret: generateWebhookSecret(),
      events: [COMPLETED],
    });
    const [id] = await repo.enqueue({ projectId, event: COMPLETED, payload: payload("parse_hang") });
    const started = Date.now();
    assert.equal(await dispatcher({ attemptTimeoutMs: 200, retryDelaysMs: [60_000] }).runOnce(), 1);
    assert.ok(Date.now() - started < 2000);
    const [attempt] = (await repo.listAttempts(projectId, webhook.id, {}))?.items ?? [];
    assert.equal(attempt.error, "webhook URL did not answer within 200 ms");
    assert.equal(attempt.status_code, null);
    const delivery = await repo.getDelivery(id);
    assert.equal(delivery?.status, "pending");
    assert.ok((delivery?.nextAttemptAt ?? 0) >= Date.now() + 50_000);
    await repo.delete(projectId, webhook.id);
  });

  it("never sends one delivery twice at once from two servers", async () => {
    const projectId = await project("shared");
    answers.set("/shared", [200]);
    for (let i = 0; i < 4; i++) {
      await repo.create({
        projectId,
        url: `${receiver.url}/shared`,
        secret: generateWebhookSecret(),
        events: [COMPLETED],
      });
    }
    for (let i = 0; i < 10; i++) {
      await notifyJobEvent(store.db, { projectId, event: COMPLETED, payload: payload(`parse_${i}`) });
    }
    // A second store on the same database stands for a second server.
    const second = await target.open();
    try {
      const options = { concurrency: 3, pollIntervalMs: 5 };
      dispatcher(options).start();
      dispatcher({ ...options, db: second.db }).start();
      dispatcher(options).start();
      await eventually(async () => {
        const [{ count }] = await store.db.query<{ count: number }>(
          "SELECT COUNT(*) AS count FROM webhook_deliveries WHERE project_id = ? AND status = 'delivered'",
          [projectId],
        );
        return Number(count) === 40 ? true : undefined;
      });
      await Promise.all(dispatchers.splice(0).map((made) => made.stop()));
    } finally {
      await second.close();
    }
    const sent = receiver.requests.filter((request) => request.url === "/shared");
    assert.equal(sent.length, 40);
    assert.equal(new Set(sent.map((request) => request.headers["webhook-id"])).size, 40);
  });

  it("drops the deliveries of a deleted webhook", async () => {
    const projectId = await project("deleted");
    const webhook = await repo.create({
      projectId,
      url: `${receiver.url}/deleted`,
      secret: generateWebhookSecret(),
      events: [COMPLETED],
    });
    const [id] = await repo.enqueue({ projectId, event: COMPLETED, payload: payload("parse_deleted") });
    await repo.delete(projectId, webhook.id);
    assert.equal(await dispatcher().runOnce(), 0);
    assert.equal(receiver.requests.filter((request) => request.url === "/deleted").length, 0);
    assert.equal((await repo.getDelivery(id))?.lastError, "webhook deleted");
  });

  it("spreads retries with exponential backoff and jitter", () => {
    const made = dispatcher({ retryDelaysMs: [1000, 4000, 16_000], jitter: 0.25 });
    for (let i = 0; i < 50; i++) {
      const first = made.retryDelay(1);
      const later = made.retryDelay(7);
      assert.ok(first >= 750 && first <= 1250, String(first));
      assert.ok(later >= 12_000 && later <= 20_000, String(later));
    }
  });
});
