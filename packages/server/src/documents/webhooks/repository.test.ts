import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { DOCUMENT_LIMITS, generateWebhookSecret, ServiceError, type WebhookPayload } from "@svc/contract";
import type { Store } from "../../store/store.ts";
import { createWebhookRepository, type WebhookRepository, webhookJson } from "./repository.ts";
import { onEveryStore, type StoreTarget } from "./testing.ts";

const payload = (jobId: string): WebhookPayload => ({
  job_id: jobId,
  status: "successful",
  created_at: "2026-01-01T00:00:00.000Z",
  dataset_id: null,
});

onEveryStore("webhook repository", (makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  let repo: WebhookRepository;
  let clock = Date.UTC(2026, 0, 1);
  const now = () => clock;
  let projectId: string;
  let otherProjectId: string;

  before(async () => {
    target = await makeTarget();
    store = await target.open(now);
    repo = createWebhookRepository(store.db, now);
    const org = await store.projects.ensureOrganization("webhooks-org");
    projectId = (await store.projects.create(org.id, "hooks")).id;
    otherProjectId = (await store.projects.create(org.id, "other")).id;
  });
  after(async () => {
    await store?.close();
    await target?.dispose();
  });

  it("creates, reads, lists, updates and deletes webhooks within their project", async () => {
    const secret = generateWebhookSecret();
    const created = await repo.create({
      projectId,
      url: "https://hooks.example/a",
      secret,
      events: ["document_ingestion.job.completed"],
      description: "first",
    });
    assert.match(created.id, /^webhook_[a-z2-7]{26}$/);
    assert.deepEqual(created, {
      id: created.id,
      projectId,
      url: "https://hooks.example/a",
      secret,
      events: ["document_ingestion.job.completed"],
      description: "first",
      createdAt: clock,
      updatedAt: clock,
    });
    assert.deepEqual(await repo.get(projectId, created.id), created);
    assert.equal(await repo.get(otherProjectId, created.id), null);
    assert.deepEqual(
      (await repo.list(projectId)).map((webhook) => webhook.id),
      [created.id],
    );
    assert.deepEqual(await repo.list(otherProjectId), []);

    clock += 1000;
    const updated = await repo.update(projectId, created.id, {
      url: "https://hooks.example/b",
      events: ["document_ingestion.job.failed", "document_ingestion.job.completed"],
      description: null,
    });
    assert.deepEqual(updated, {
      ...created,
      url: "https://hooks.example/b",
      events: ["document_ingestion.job.failed", "document_ingestion.job.completed"],
      description: null,
      updatedAt: clock,
    });
    assert.equal(await repo.update(otherProjectId, created.id, { url: "https://x.example/" }), null);
    assert.deepEqual(webhookJson(updated as NonNullable<typeof updated>), {
      webhook_id: created.id,
      url: "https://hooks.example/b",
      description: null,
      events: ["document_ingestion.job.failed", "document_ingestion.job.completed"],
      enabled: true,
      created_at: new Date(created.createdAt).toISOString(),
      updated_at: new Date(clock).toISOString(),
    });

    assert.equal(await repo.delete(otherProjectId, created.id), false);
    assert.equal(await repo.delete(projectId, created.id), true);
    assert.equal(await repo.delete(projectId, created.id), false);
    assert.equal(await repo.get(projectId, created.id), null);
    assert.equal(await repo.update(projectId, created.id, { description: "gone" }), null);
  });

  it("keeps at most the per-project number of live webhooks", async () => {
    const org = await store.projects.ensureOrganization("limit-org");
    const limited = (await store.projects.create(org.id, "limited")).id;
    const make = () =>
      repo.create({
        projectId: limited,
        url: "https://hooks.example/",
        secret: generateWebhookSecret(),
        events: ["document_ingestion.job.completed"],
      });
    const made = await Promise.all(Array.from({ length: DOCUMENT_LIMITS.webhooksPerProject }, make));
    await assert.rejects(
      make(),
      (error: unknown) => error instanceof ServiceError && error.code === "INVALID_CONFIGURATION",
    );
    await repo.delete(limited, made[0].id);
    await make();
  });

  it("queues one delivery per webhook that takes the event", async () => {
    const org = await store.projects.ensureOrganization("queue-org");
    const project = (await store.projects.create(org.id, "queue")).id;
    const all = await repo.create({
      projectId: project,
      url: "https://all.example/",
      secret: generateWebhookSecret(),
      events: ["document_ingestion.job.completed", "document_ingestion.job.failed"],
    });
    const failedOnly = await repo.create({
      projectId: project,
      url: "https://failed.example/",
      secret: generateWebhookSecret(),
      events: ["document_ingestion.job.failed"],
    });
    const completed = await repo.enqueue({
      projectId: project,
      event: "document_ingestion.job.completed",
      payload: payload("parse_1"),
    });
    assert.equal(completed.length, 1);
    const delivery = await repo.getDelivery(completed[0]);
    assert.deepEqual(delivery, {
      id: completed[0],
      webhookId: all.id,
      projectId: project,
      event: "document_ingestion.job.completed",
      payload: JSON.stringify(payload("parse_1")),
      status: "pending",
      attempts: 0,
      nextAttemptAt: clock,
      lastStatusCode: null,
      lastError: null,
      createdAt: clock,
      deliveredAt: null,
    });
    assert.match(completed[0], /^msg_[a-z2-7]{26}$/);
    const failed = await repo.enqueue({
      projectId: project,
      event: "document_ingestion.job.failed",
      payload: payload("parse_2"),
    });
    assert.deepEqual(
      new Set(await Promise.all(failed.map(async (id) => (await repo.getDelivery(id))?.webhookId))),
      new Set([all.id, failedOnly.id]),
    );
    assert.deepEqual(
      await repo.enqueue({
        projectId: otherProjectId,
        event: "document_ingestion.job.failed",
        payload: payload("x"),
      }),
      [],
    );

    // Deleting a webhook drops its pending deliveries.
    await repo.delete(project, failedOnly.id);
    const states = await Promise.all(failed.map((id) => repo.getDelivery(id)));
    const ofDeleted = states.find((state) => state?.webhookId === failedOnly.id);
    assert.equal(ofDeleted?.status, "failed");
    assert.equal(ofDeleted?.lastError, "webhook deleted");
    assert.equal(states.find((state) => state?.webhookId === all.id)?.status, "pending");
    // Leave nothing due for the lease test below.
    await repo.delete(project, all.id);
  });

  it("leases a due delivery to one owner until the lease ends or the attempt is recorded", async () => {
    const org = await store.projects.ensureOrganization("lease-org");
    const project = (await store.projects.create(org.id, "lease")).id;
    const webhook = await repo.create({
      projectId: project,
      url: "https://lease.example/",
      secret: generateWebhookSecret(),
      events: ["document_ingestion.job.completed"],
    });
    const [id] = await repo.enqueue({
      projectId: project,
      event: "document_ingestion.job.completed",
      payload: payload("parse_lease"),
    });
    const first = await repo.claimDue({ owner: "a", leaseMs: 60_000, limit: 10 });
    assert.deepEqual(
      first.map((claimed) => [claimed.id, claimed.webhook?.id, claimed.webhook?.url]),
      [[id, webhook.id, "https://lease.example/"]],
    );
    assert.deepEqual(await repo.claimDue({ owner: "b", leaseMs: 60_000, limit: 10 }), []);

    clock += 60_001;
    const [taken] = await repo.claimDue({ owner: "b", leaseMs: 60_000, limit: 10 });
    assert.equal(taken.id, id);
    // The first owner lost its lease: its attempt is recorded, the delivery is not changed by it.
    const outcome = { at: clock, statusCode: 500, error: "webhook URL answered HTTP 500", durationMs: 12.4 };
    assert.equal(
      await repo.finishAttempt({
        deliveryId: id,
        owner: "a",
        attempt: 1,
        outcome,
        next: { status: "delivered" },
      }),
      false,
    );
    assert.equal((await repo.getDelivery(id))?.status, "pending");
    assert.equal(
      await repo.finishAttempt({
        deliveryId: id,
        owner: "b",
        attempt: 1,
        outcome,
        next: { status: "pending", nextAttemptAt: clock + 5000 },
      }),
      true,
    );
    const retrying = await repo.getDelivery(id);
    assert.equal(retrying?.status, "pending");
    assert.equal(retrying?.attempts, 1);
    assert.equal(retrying?.lastStatusCode, 500);
    assert.equal(retrying?.nextAttemptAt, clock + 5000);
    assert.deepEqual(await repo.claimDue({ owner: "a", leaseMs: 60_000, limit: 10 }), []);

    clock += 5000;
    const [again] = await repo.claimDue({ owner: "a", leaseMs: 60_000, limit: 10 });
    assert.equal(again.attempts, 1);
    assert.equal(
      await repo.finishAttempt({
        deliveryId: id,
        owner: "a",
        attempt: 2,
        outcome: { at: clock, statusCode: 204, error: null, durationMs: 3 },
        next: { status: "delivered" },
      }),
      true,
    );
    const delivered = await repo.getDelivery(id);
    assert.equal(delivered?.status, "delivered");
    assert.equal(delivered?.deliveredAt, clock);
    assert.deepEqual(await repo.claimDue({ owner: "b", leaseMs: 60_000, limit: 10 }), []);

    // Every attempt is listed, newest first, the one of the lost lease included.
    const page = await repo.listAttempts(project, webhook.id, {});
    assert.deepEqual(
      page?.items.map((item) => [
        item.attempt,
        item.status_code,
        item.succeeded,
        item.message_id,
        item.job_id,
      ]),
      [
        [2, 204, true, id, "parse_lease"],
        [1, 500, false, id, "parse_lease"],
        [1, 500, false, id, "parse_lease"],
      ],
    );
    assert.equal(page?.has_more, false);
    assert.equal(await repo.listAttempts(otherProjectId, webhook.id, {}), null);
    await repo.delete(project, webhook.id);
  });

  it("gives a claimed delivery of a deleted webhook no webhook", async () => {
    const org = await store.projects.ensureOrganization("gone-org");
    const project = (await store.projects.create(org.id, "gone")).id;
    const webhook = await repo.create({
      projectId: project,
      url: "https://gone.example/",
      secret: generateWebhookSecret(),
      events: ["document_ingestion.job.completed"],
    });
    const [id] = await repo.enqueue({
      projectId: project,
      event: "document_ingestion.job.completed",
      payload: payload("parse_gone"),
    });
    // A delivery whose webhook row is gone (a delete raced with the claim) comes back without webhook.
    await store.db.execute("UPDATE webhooks SET deleted_at = ? WHERE id = ?", [clock, webhook.id]);
    const [claimed] = await repo.claimDue({ owner: "a", leaseMs: 60_000, limit: 10 });
    assert.equal(claimed.id, id);
    assert.equal(claimed.webhook, null);
    assert.equal(await repo.abandon({ deliveryId: id, owner: "a", reason: "webhook deleted" }), true);
    assert.equal((await repo.getDelivery(id))?.status, "failed");
  });

  it("pages attempts with cursors in both directions", async () => {
    const org = await store.projects.ensureOrganization("page-org");
    const project = (await store.projects.create(org.id, "page")).id;
    const webhook = await repo.create({
      projectId: project,
      url: "https://page.example/",
      secret: generateWebhookSecret(),
      events: ["document_ingestion.job.completed"],
    });
    const [id] = await repo.enqueue({
      projectId: project,
      event: "document_ingestion.job.completed",
      payload: payload("parse_page"),
    });
    for (let attempt = 1; attempt <= 5; attempt++) {
      clock += 1000;
      await repo.claimDue({ owner: "p", leaseMs: 1000, limit: 1 });
      await repo.finishAttempt({
        deliveryId: id,
        owner: "p",
        attempt,
        outcome: { at: clock, statusCode: 500 + attempt, error: "x", durationMs: 1 },
        next: { status: "pending", nextAttemptAt: clock },
      });
    }
    const codes = (page: { items: { status_code: number | null }[] } | null) =>
      page?.items.map((item) => item.status_code);
    const first = await repo.listAttempts(project, webhook.id, { limit: 2 });
    assert.deepEqual(codes(first), [505, 504]);
    assert.equal(first?.has_more, true);
    assert.equal(first?.prev_cursor, null);
    assert.equal(first?.items[0].next_attempt_at, new Date(clock).toISOString());
    assert.equal(first?.items[1].next_attempt_at, null);
    const second = await repo.listAttempts(project, webhook.id, {
      limit: 2,
      cursor: first?.next_cursor ?? "",
    });
    assert.deepEqual(codes(second), [503, 502]);
    const third = await repo.listAttempts(project, webhook.id, {
      limit: 2,
      cursor: second?.next_cursor ?? "",
    });
    assert.deepEqual(codes(third), [501]);
    assert.equal(third?.has_more, false);
    assert.equal(third?.next_cursor, null);
    const back = await repo.listAttempts(project, webhook.id, {
      limit: 2,
      cursor: third?.prev_cursor ?? "",
      direction: "prev",
    });
    assert.deepEqual(codes(back), [503, 502]);
    const front = await repo.listAttempts(project, webhook.id, {
      limit: 2,
      cursor: back?.prev_cursor ?? "",
      direction: "backward",
    });
    assert.deepEqual(codes(front), [505, 504]);
    assert.equal(front?.has_more, false);
    await assert.rejects(
      repo.listAttempts(project, webhook.id, { cursor: "bm90IGEgY3Vyc29y" }),
      (error: unknown) => error instanceof ServiceError && error.code === "INVALID_CURSOR",
    );
    await repo.delete(project, webhook.id);
  });
});
