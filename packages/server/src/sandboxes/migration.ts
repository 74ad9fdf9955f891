import type { Migration } from "../store/migration.ts";

/** The sandbox table: one row per sandbox ever created in a project, terminated ones included (history). */
export const sandboxesMigration: Migration = {
  version: 3,
  name: "sandboxes",
  sql: `
    CREATE TABLE sandboxes (
      id TEXT NOT NULL PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id),
      name TEXT,
      status TEXT NOT NULL,
      pending_reason TEXT,
      outcome TEXT,
      termination_reason TEXT,
      error_details TEXT,
      image TEXT,
      cpus DOUBLE PRECISION NOT NULL,
      memory_mb BIGINT NOT NULL,
      disk_mb BIGINT NOT NULL,
      timeout_secs BIGINT NOT NULL,
      max_pending_secs BIGINT,
      entrypoint TEXT,
      network TEXT,
      exposed_ports TEXT,
      allow_unauthenticated_access INTEGER NOT NULL DEFAULT 0,
      file_systems TEXT NOT NULL DEFAULT '[]',
      pool_id TEXT,
      template_id TEXT,
      snapshot_id TEXT,
      executor_id TEXT,
      container_id TEXT,
      address TEXT,
      net_index INTEGER,
      created_at BIGINT NOT NULL,
      started_at BIGINT,
      ended_at BIGINT,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX sandboxes_project_created ON sandboxes (project_id, created_at, id);
    CREATE INDEX sandboxes_status ON sandboxes (status);
    CREATE UNIQUE INDEX sandboxes_live_name ON sandboxes (project_id, name)
      WHERE name IS NOT NULL AND status <> 'terminated';
  `,
};
