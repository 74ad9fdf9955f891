import type { Migration } from "../store/migration.ts";

/**
 * Template builds: the cache of build steps (a step's key, from its parent's key and its instruction with its
 * inputs, to the snapshot of the file system after it), and the process defaults a build gives its template.
 */
export const templateBuildsMigration: Migration = {
  version: 29,
  name: "template build cache and template process defaults",
  sql: `
    CREATE TABLE template_build_cache (
      project_id TEXT NOT NULL REFERENCES projects (id),
      step_key TEXT NOT NULL,
      snapshot_id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (project_id, step_key)
    );
    ALTER TABLE sandbox_templates ADD COLUMN config TEXT;
  `,
};
