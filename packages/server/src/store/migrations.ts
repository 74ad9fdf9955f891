import { fileSystemsMigration } from "../filesystems/migration.ts";
import { executorsMigration } from "../hosts/migration.ts";
import { imagesMigration } from "../images/migration.ts";
import { templateBuildsMigration } from "../sandboxes/build-migration.ts";
import { templateBuildRecordsMigration } from "../sandboxes/build-store-migration.ts";
import { sandboxesMigration } from "../sandboxes/migration.ts";
import { pinnedImageMigration } from "../sandboxes/pinned-image-migration.ts";
import { snapshotsAndPoolsMigration } from "../sandboxes/snapshot-migration.ts";
import { startTimelineMigration } from "../sandboxes/start-timeline-migration.ts";
import type { Db } from "./db.ts";
import type { Migration } from "./migration.ts";

export type { Migration } from "./migration.ts";

/** Every migration, in order. Append only: an applied migration is never edited. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "organizations, projects, api keys, settings",
    sql: `
      CREATE TABLE organizations (
        id TEXT NOT NULL PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE projects (
        id TEXT NOT NULL PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations (id),
        name TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        UNIQUE (organization_id, name)
      );
      CREATE INDEX projects_name ON projects (name);
      CREATE TABLE api_keys (
        id TEXT NOT NULL PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT,
        key_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        deleted_at BIGINT
      );
      CREATE INDEX api_keys_project_id ON api_keys (project_id);
      CREATE TABLE settings (
        key TEXT NOT NULL PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "documents: files, blobs, datasets, parse jobs; webhooks",
    sql: `
      CREATE TABLE document_files (
        id TEXT NOT NULL PRIMARY KEY,
        project_id TEXT NOT NULL,
        file_name TEXT,
        mime_type TEXT NOT NULL,
        file_size BIGINT NOT NULL,
        checksum_sha256 TEXT NOT NULL,
        labels TEXT,
        blob_key TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX document_files_project ON document_files (project_id, created_at, id);
      CREATE TABLE blobs (
        blob_key TEXT NOT NULL PRIMARY KEY,
        size BIGINT NOT NULL,
        complete INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE blob_chunks (
        blob_key TEXT NOT NULL,
        seq INTEGER NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (blob_key, seq)
      );
      CREATE TABLE datasets (
        id TEXT NOT NULL PRIMARY KEY,
        project_id TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT,
        settings TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        deleted_at BIGINT
      );
      CREATE UNIQUE INDEX datasets_project_name ON datasets (project_id, name) WHERE deleted_at IS NULL;
      CREATE INDEX datasets_project ON datasets (project_id, created_at, id);
      CREATE TABLE parse_jobs (
        id TEXT NOT NULL PRIMARY KEY,
        project_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        dataset_id TEXT,
        status TEXT NOT NULL,
        request TEXT NOT NULL,
        file_id TEXT,
        file_url TEXT,
        raw_text TEXT,
        file_name TEXT,
        mime_type TEXT,
        labels TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_expires_at BIGINT,
        error TEXT,
        total_pages INTEGER,
        parsed_pages_count INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX parse_jobs_project ON parse_jobs (project_id, created_at, id);
      CREATE INDEX parse_jobs_status ON parse_jobs (status, created_at);
      CREATE INDEX parse_jobs_dataset ON parse_jobs (dataset_id, status);
      CREATE TABLE parse_results (
        job_id TEXT NOT NULL PRIMARY KEY,
        result TEXT NOT NULL
      );
      CREATE TABLE webhooks (
        id TEXT NOT NULL PRIMARY KEY,
        project_id TEXT NOT NULL,
        url TEXT NOT NULL,
        secret TEXT NOT NULL,
        events TEXT NOT NULL,
        description TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        deleted_at BIGINT
      );
      CREATE INDEX webhooks_project ON webhooks (project_id);
      CREATE TABLE webhook_deliveries (
        id TEXT NOT NULL PRIMARY KEY,
        webhook_id TEXT NOT NULL,
        project_id TEXT NOT NULL,
        event TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_expires_at BIGINT,
        last_status_code INTEGER,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        delivered_at BIGINT
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
      CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at);
      CREATE TABLE webhook_attempts (
        id TEXT NOT NULL PRIMARY KEY,
        delivery_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        status_code INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempt);
    `,
  },
  sandboxesMigration,
  fileSystemsMigration,
  snapshotsAndPoolsMigration,
  executorsMigration,
  startTimelineMigration,
  templateBuildsMigration,
  imagesMigration,
  templateBuildRecordsMigration,
  pinnedImageMigration,
];

const CREATE_MIGRATIONS_TABLE = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER NOT NULL PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`;

/**
 * On PostgreSQL, servers starting together take this transaction-scoped advisory lock before reading or
 * applying migrations, so each migration is applied once. On SQLite, the driver serializes transactions in
 * the process and `BEGIN IMMEDIATE` serializes them across processes.
 */
async function lockMigrations(tx: Db): Promise<void> {
  if (tx.dialect === "postgres")
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('svc.schema_migrations'))");
}

async function appliedVersions(tx: Db): Promise<Set<number>> {
  const rows = await tx.query<{ version: number }>("SELECT version FROM schema_migrations");
  return new Set(rows.map((row) => Number(row.version)));
}

/**
 * Applies the migrations the database lacks, each in its own transaction, and returns their versions.
 * Refuses a database that a newer server has migrated past what this one knows.
 */
export async function migrate(
  db: Db,
  list: readonly Migration[] = migrations,
  now: () => number = Date.now,
): Promise<number[]> {
  const known = Math.max(0, ...list.map((migration) => migration.version));
  const applied = await db.transaction(async (tx) => {
    await lockMigrations(tx);
    await tx.executeScript(CREATE_MIGRATIONS_TABLE);
    return appliedVersions(tx);
  });
  const newest = Math.max(0, ...applied);
  if (newest > known) {
    throw new Error(`The database schema is at version ${newest}; this server knows versions up to ${known}`);
  }
  const done: number[] = [];
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    const ran = await db.transaction(async (tx) => {
      await lockMigrations(tx);
      // Another server may have applied it since the versions were read.
      if ((await appliedVersions(tx)).has(migration.version)) return false;
      await tx.executeScript(migration.sql);
      await tx.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [
        migration.version,
        migration.name,
        now(),
      ]);
      return true;
    });
    if (ran) done.push(migration.version);
  }
  return done;
}
