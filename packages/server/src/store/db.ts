/**
 * The database handle every repository is written against. Two drivers implement it: `sqlite.ts` (embedded,
 * `node:sqlite`) and `postgres.ts` (`pg`). SQL is written once, with `?` placeholders, in the subset both engines
 * accept: TEXT, INTEGER, BIGINT, `ON CONFLICT`, `RETURNING`. Timestamps are BIGINT epoch milliseconds and come
 * back as numbers from both drivers; booleans are bound as INTEGER 0/1.
 */

export type Dialect = "sqlite" | "postgres";

/** A value bound to a `?` placeholder. Booleans are bound as 0/1, so boolean columns are INTEGER. */
export type SqlParam = string | number | bigint | boolean | null | Uint8Array;

export interface Db {
  /**
   * Which engine runs the SQL, for the few statements that differ: `FOR UPDATE [SKIP LOCKED]` exists on
   * PostgreSQL only (SQLite transactions already hold the whole database), so lease queries append it when
   * `dialect === "postgres"`.
   */
  readonly dialect: Dialect;
  /** Runs one statement and returns its rows (a SELECT, or a write with RETURNING). */
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  /** Runs one statement and returns how many rows it inserted, updated or deleted. */
  execute(sql: string, params?: readonly SqlParam[]): Promise<{ rowCount: number }>;
  /** Runs a script of several statements without parameters (migrations). */
  executeScript(sql: string): Promise<void>;
  /**
   * Runs `fn` in a transaction: committed when `fn` resolves, rolled back when it throws (the error is rethrown).
   * Inside `fn`, use only `tx`: on SQLite the outer handle waits until the transaction ends, so awaiting it from
   * `fn` never finishes. Calling `tx.transaction` nests with a savepoint.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Closes the connection or pool; waits for the transactions under way. */
  close(): Promise<void>;
}

/** Binds booleans as 0/1: both engines store them in INTEGER columns. */
export function bindParams(params: readonly SqlParam[] | undefined): Exclude<SqlParam, boolean>[] {
  if (params === undefined) return [];
  return params.map((param) => (typeof param === "boolean" ? (param ? 1 : 0) : param));
}

/**
 * Runs `fn` inside `SAVEPOINT name` on a connection that is already in a transaction: released when `fn`
 * resolves, rolled back to when it throws. Both drivers nest `tx.transaction` this way.
 */
export async function runInSavepoint<T>(
  exec: (sql: string) => Promise<unknown>,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  await exec(`SAVEPOINT ${name}`);
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    await exec(`ROLLBACK TO SAVEPOINT ${name}`);
    await exec(`RELEASE SAVEPOINT ${name}`);
    throw error;
  }
  await exec(`RELEASE SAVEPOINT ${name}`);
  return result;
}

/** Thrown when a transaction handle is used after its transaction ended. */
export function finishedTransactionError(): Error {
  return new Error("This transaction has ended; use the handle only inside the transaction() callback");
}

/** Whether a driver error is a unique-constraint violation (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  return (
    e?.code === "23505" || e?.errcode === 2067 || /UNIQUE constraint failed/.test(String(e?.message ?? ""))
  );
}
