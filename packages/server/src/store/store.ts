import { join } from "node:path";
import { type ApiKeyRepository, createApiKeyRepository } from "./api-keys.ts";
import type { Db } from "./db.ts";
import { migrate } from "./migrations.ts";
import { openPostgres } from "./postgres.ts";
import { createProjectRepository, type ProjectRepository } from "./projects.ts";
import { createSettingsRepository, type SettingsRepository } from "./settings.ts";
import { openSqlite } from "./sqlite.ts";

export interface StoreOptions {
  /** Directory of the SQLite file `svc.db`, or `":memory:"` for a database that lives as long as the store. */
  dataDir?: string;
  /** A `postgres://` or `postgresql://` URL: the store is PostgreSQL, and `dataDir` is not used for it. */
  databaseUrl?: string;
  /** The clock of timestamps written by the repositories, in epoch milliseconds; `Date.now` by default. */
  now?: () => number;
}

/** The server's persistent state: one repository per domain over one database handle. */
export interface Store {
  db: Db;
  projects: ProjectRepository;
  apiKeys: ApiKeyRepository;
  settings: SettingsRepository;
  /** Closes the database; waits for the transactions under way. */
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

function openDb(options: StoreOptions): Db {
  if (options.databaseUrl) {
    if (!isPostgresUrl(options.databaseUrl)) {
      throw new Error("The database URL must start with postgres:// or postgresql://");
    }
    return openPostgres(options.databaseUrl);
  }
  if (!options.dataDir) throw new Error("The store needs a data directory or a PostgreSQL URL");
  return openSqlite(options.dataDir === ":memory:" ? ":memory:" : join(options.dataDir, "svc.db"));
}

/** Opens the database (PostgreSQL when `databaseUrl` is given, else SQLite) and brings its schema up to date. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const db = openDb(options);
  const now = options.now ?? Date.now;
  try {
    await migrate(db, undefined, now);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    db,
    projects: createProjectRepository(db, now),
    apiKeys: createApiKeyRepository(db, now),
    settings: createSettingsRepository(db),
    close: () => db.close(),
  };
}
