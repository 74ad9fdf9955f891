import type { Db } from "./db.ts";

/** One step of the schema. SQL that both SQLite and PostgreSQL accept; applied once, in its own transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

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
