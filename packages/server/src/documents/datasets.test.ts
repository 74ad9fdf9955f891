import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ServiceError } from "@svc/contract";
import type { Store } from "../store/store.ts";
import { createDatasetRepository, type DatasetRepository } from "./datasets.ts";
import { settingsWithDefaults } from "./job-request.ts";
import { onEveryStore, type StoreTarget } from "./webhooks/testing.ts";

onEveryStore("dataset repository", (makeTarget) => {
  let target: StoreTarget;
  let store: Store;
  let datasets: DatasetRepository;
  let clock = Date.UTC(2026, 0, 1);
  const now = () => clock;
  before(async () => {
    target = await makeTarget();
    store = await target.open(now);
    datasets = createDatasetRepository(store.db, now);
  });
  after(async () => {
    await store?.close();
    await target?.dispose();
  });
  const settings = settingsWithDefaults({ parsing_options: { chunking_strategy: "page" } });
  const taken = (error: unknown) => error instanceof ServiceError && error.code === "ENTITY_ALREADY_EXISTS";

  test("names are unique among a project's live datasets; deleting frees the name", async () => {
    const a = await datasets.create({
      id: "dataset_a",
      projectId: "p1",
      name: "invoices",
      description: null,
      settings,
    });
    assert.equal(a.status, "idle");
    await assert.rejects(
      datasets.create({ id: "dataset_b", projectId: "p1", name: "invoices", description: null, settings }),
      taken,
    );
    await datasets.create({
      id: "dataset_c",
      projectId: "p2",
      name: "invoices",
      description: null,
      settings,
    });
    assert.equal(await datasets.delete("p1", "dataset_a"), true);
    assert.equal(await datasets.delete("p1", "dataset_a"), false);
    assert.equal(await datasets.get("p1", "dataset_a"), undefined);
    await datasets.create({
      id: "dataset_d",
      projectId: "p1",
      name: "invoices",
      description: "again",
      settings,
    });
  });

  test("update renames (refusing a taken name), keeps fields left out, and reads settings back", async () => {
    clock += 1000;
    await datasets.create({ id: "dataset_e", projectId: "p1", name: "receipts", description: "r", settings });
    await assert.rejects(datasets.update("p1", "dataset_e", { name: "invoices" }), taken);
    clock += 1000;
    const renamed = await datasets.update("p1", "dataset_e", { name: "receipts-2" });
    assert.equal(renamed?.name, "receipts-2");
    assert.equal(renamed?.description, "r");
    assert.equal(renamed?.settings.parsing_options.chunking_strategy, "page");
    assert.equal(renamed?.updatedAt, clock);
    assert.equal(await datasets.update("p1", "dataset_missing", { name: "x" }), undefined);
  });

  test("status is processing while a job of the dataset is pending or processing; lists filter by it", async () => {
    await store.db.execute(
      `INSERT INTO parse_jobs (id, project_id, kind, dataset_id, status, request, attempts, created_at, updated_at)
       VALUES ('parse_1', 'p1', 'parse', 'dataset_d', 'pending', '{}', 0, 0, 0)`,
    );
    assert.equal((await datasets.get("p1", "dataset_d"))?.status, "processing");
    const busy = await datasets.list("p1", { status: "processing" });
    assert.deepEqual(
      busy.items.map((d) => d.id),
      ["dataset_d"],
    );
    const idle = await datasets.list("p1", { status: "idle" });
    assert.deepEqual(
      idle.items.map((d) => d.id),
      ["dataset_e"],
    );
    assert.deepEqual(
      (await datasets.list("p1", { name: "invoices" })).items.map((d) => d.id),
      ["dataset_d"],
    );
    const page = await datasets.list("p1", { limit: 1 });
    assert.equal(page.items.length, 1);
    assert.equal(page.has_more, true);
  });
});
