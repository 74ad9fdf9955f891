/**
 * One step of the schema. SQL that both SQLite and PostgreSQL accept; applied once, in its own transaction.
 * Each domain declares its own steps (sandboxes/migration.ts, ...) and migrations.ts lists them all in order.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
