import type { Migration } from "../store/migration.ts";

/**
 * Template builds kept in the store (so a restart or another host's API sees them): the record with the host
 * that runs it, its build sandbox and its log (the newest part, capped); snapshots marked as build cache; and
 * which cached steps each built template used, so a template's delete removes the cache no other template uses.
 */
export const templateBuildRecordsMigration: Migration = {
  version: 32,
  name: "template build records, build cache snapshots, template cache uses",
  sql: `
    CREATE TABLE template_builds (
      id TEXT NOT NULL PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id),
      template_name TEXT NOT NULL,
      status TEXT NOT NULL,
      error TEXT,
      template_id TEXT,
      steps INTEGER NOT NULL DEFAULT 0,
      cached_steps INTEGER NOT NULL DEFAULT 0,
      warnings TEXT NOT NULL,
      host_id TEXT NOT NULL,
      sandbox_id TEXT,
      log TEXT NOT NULL,
      log_dropped INTEGER NOT NULL DEFAULT 0,
      created_at BIGINT NOT NULL,
      finished_at BIGINT
    );
    CREATE INDEX template_builds_project ON template_builds (project_id, created_at);
    CREATE INDEX template_builds_status ON template_builds (status, host_id);
    ALTER TABLE sandbox_snapshots ADD COLUMN kind TEXT NOT NULL DEFAULT 'sandbox';
    CREATE TABLE template_cache_uses (
      template_id TEXT NOT NULL,
      snapshot_id TEXT NOT NULL,
      PRIMARY KEY (template_id, snapshot_id)
    );
    CREATE INDEX template_cache_uses_snapshot ON template_cache_uses (snapshot_id);
  `,
};
