import type { Migration } from "../store/migration.ts";

/**
 * Sandbox snapshots (a root disk copied while the sandbox was frozen), templates (named root disks, from a
 * snapshot or a tree), warm pools, and which sandboxes are a pool's warm, unclaimed ones.
 */
export const snapshotsAndPoolsMigration: Migration = {
  version: 5,
  name: "sandbox snapshots, templates and pools",
  sql: `
    CREATE TABLE sandbox_snapshots (
      id TEXT NOT NULL PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id),
      sandbox_id TEXT NOT NULL,
      base_image TEXT NOT NULL,
      snapshot_type TEXT NOT NULL,
      status TEXT NOT NULL,
      error TEXT,
      size_bytes BIGINT,
      rootfs_disk_bytes BIGINT,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX sandbox_snapshots_project ON sandbox_snapshots (project_id, created_at);
    CREATE TABLE sandbox_templates (
      id TEXT NOT NULL PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id),
      name TEXT NOT NULL,
      base_image TEXT NOT NULL,
      source TEXT NOT NULL,
      snapshot_id TEXT,
      size_bytes BIGINT,
      created_at BIGINT NOT NULL,
      UNIQUE (project_id, name)
    );
    CREATE TABLE sandbox_pools (
      id TEXT NOT NULL PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id),
      image TEXT,
      cpus DOUBLE PRECISION NOT NULL,
      memory_mb BIGINT NOT NULL,
      disk_mb BIGINT NOT NULL,
      timeout_secs BIGINT NOT NULL,
      entrypoint TEXT,
      network TEXT,
      max_containers BIGINT,
      warm_containers BIGINT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    ALTER TABLE sandboxes ADD COLUMN warm INTEGER NOT NULL DEFAULT 0;
  `,
};
