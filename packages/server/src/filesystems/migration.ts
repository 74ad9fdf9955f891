import type { Migration } from "../store/migration.ts";

/**
 * Named file systems of a project and their permanent snapshots. The trees themselves live in the file-system
 * storage (storage.ts); these rows say which exist.
 */
export const fileSystemsMigration: Migration = {
  version: 4,
  name: "file systems and their snapshots",
  sql: `
    CREATE TABLE file_systems (
      id TEXT NOT NULL PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES projects (id),
      name TEXT NOT NULL,
      description TEXT,
      status TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      UNIQUE (project_id, name)
    );
    CREATE TABLE file_system_snapshots (
      id TEXT NOT NULL PRIMARY KEY,
      file_system_id TEXT NOT NULL REFERENCES file_systems (id) ON DELETE CASCADE,
      message TEXT,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX file_system_snapshots_fs ON file_system_snapshots (file_system_id, created_at);
  `,
};
