import type { Migration } from "../store/migration.ts";

/**
 * The executors of a deployment: one row per host that runs sandboxes, with where other hosts reach its relay,
 * what it offers and its last heartbeat. A row whose heartbeat is too old is removed with its sandboxes ended.
 */
export const executorsMigration: Migration = {
  version: 19,
  name: "executors",
  sql: `
    CREATE TABLE executors (
      id TEXT NOT NULL PRIMARY KEY,
      host_id TEXT NOT NULL,
      relay_address TEXT,
      cpus DOUBLE PRECISION NOT NULL,
      memory_mb BIGINT NOT NULL,
      registered_at BIGINT NOT NULL,
      heartbeat_at BIGINT NOT NULL
    );
    CREATE INDEX sandboxes_executor_status ON sandboxes (executor_id, status);
  `,
};
