import type { Migration } from "../store/migration.ts";

/** A project's registry credentials (the secret encrypted, secret-box.ts) and its uploaded images. */
export const imagesMigration: Migration = {
  version: 31,
  name: "registry credentials and uploaded images",
  sql: `
    CREATE TABLE registry_credentials (
      project_id TEXT NOT NULL REFERENCES projects (id),
      registry TEXT NOT NULL,
      username TEXT NOT NULL,
      secret TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (project_id, registry)
    );
    CREATE TABLE sandbox_images (
      project_id TEXT NOT NULL REFERENCES projects (id),
      name TEXT NOT NULL,
      digest TEXT NOT NULL,
      size_bytes BIGINT NOT NULL,
      config TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (project_id, name)
    );
  `,
};
