import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { bindParams, type Db, finishedTransactionError, runInSavepoint, type SqlParam } from "./db.ts";
import { Mutex } from "./mutex.ts";

export interface SqliteOptions {
  /** How long a writer waits for another process's write lock before failing, in milliseconds. */
  busyTimeoutMs?: number;
}

/**
 * One mutex per database file in this process, shared by every connection to it. `node:sqlite` is synchronous:
 * a statement that waits for another connection's lock blocks the event loop, so the connection holding the
 * lock could never finish. Serializing in-process transactions on the file avoids that; other processes are
 * kept apart by SQLite's own locks and the busy timeout.
 */
const fileMutexes = new Map<string, { mutex: Mutex; connections: number }>();

function acquireFileMutex(path: string): Mutex {
  if (path === ":memory:") return new Mutex();
  let entry = fileMutexes.get(path);
  if (!entry) {
    entry = { mutex: new Mutex(), connections: 0 };
    fileMutexes.set(path, entry);
  }
  entry.connections += 1;
  return entry.mutex;
}

function releaseFileMutex(path: string): void {
  const entry = fileMutexes.get(path);
  if (!entry) return;
  entry.connections -= 1;
  if (entry.connections === 0) fileMutexes.delete(path);
}

/**
 * Opens a SQLite database file (created with its directory if missing), or an in-memory database for
 * `":memory:"`. WAL mode lets readers run beside the one writer; foreign keys are enforced.
 *
 * Transactions hold a mutex for their whole duration: statements issued through the outer handle by other
 * callers wait until the transaction commits or rolls back, so they never see or join its uncommitted work.
 */
export function openSqlite(path: string, options: SqliteOptions = {}): Db {
  const file = path === ":memory:" ? path : resolve(path);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const database = new DatabaseSync(file, { enableForeignKeyConstraints: true, timeout: busyTimeoutMs });
  database.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  database.exec("PRAGMA foreign_keys = ON");
  if (file !== ":memory:") {
    database.exec("PRAGMA journal_mode = WAL");
    // With WAL, NORMAL syncs at checkpoints: a power loss may drop the last commits, never corrupt the file.
    database.exec("PRAGMA synchronous = NORMAL");
  }
  const mutex = acquireFileMutex(file);
  // Prepared once per SQL text: repositories use constant SQL, so the cache stays as small as the codebase.
  const statements = new Map<string, StatementSync>();
  let savepoints = 0;
  let closed = false;

  function prepare(sql: string): StatementSync {
    let statement = statements.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }

  function queryNow<T>(sql: string, params?: readonly SqlParam[]): T[] {
    // Rows of node:sqlite have a null prototype; copy them into plain objects like pg's.
    return prepare(sql)
      .all(...bindParams(params))
      .map((row) => ({ ...row }) as T);
  }

  function executeNow(sql: string, params?: readonly SqlParam[]): { rowCount: number } {
    return { rowCount: Number(prepare(sql).run(...bindParams(params)).changes) };
  }

  /** Runs a statement now when no transaction is open, else once the open transaction has ended. */
  async function outside<T>(run: () => T): Promise<T> {
    if (closed) throw new Error("The database is closed");
    if (!mutex.locked) return run();
    return mutex.run(() => {
      if (closed) throw new Error("The database is closed");
      return run();
    });
  }

  function transactionHandle(state: { open: boolean }): Db {
    const check = () => {
      if (!state.open) throw finishedTransactionError();
    };
    const tx: Db = {
      dialect: "sqlite",
      async query<T>(sql: string, params?: readonly SqlParam[]) {
        check();
        return queryNow<T>(sql, params);
      },
      async execute(sql, params) {
        check();
        return executeNow(sql, params);
      },
      async executeScript(sql) {
        check();
        database.exec(sql);
      },
      async transaction(fn) {
        check();
        savepoints += 1;
        return runInSavepoint(
          async (sql) => database.exec(sql),
          `sp_${savepoints}`,
          () => fn(tx),
        );
      },
      async close() {
        throw new Error("Close the database, not a transaction handle");
      },
    };
    return tx;
  }

  return {
    dialect: "sqlite",
    query: (sql, params) => outside(() => queryNow(sql, params)),
    execute: (sql, params) => outside(() => executeNow(sql, params)),
    executeScript: (sql) => outside(() => database.exec(sql)),
    async transaction(fn) {
      if (closed) throw new Error("The database is closed");
      const release = await mutex.acquire();
      const state = { open: true };
      try {
        if (closed) throw new Error("The database is closed");
        // IMMEDIATE takes the write lock now, so a transaction never fails later on upgrading a read lock.
        database.exec("BEGIN IMMEDIATE");
        let result: Awaited<ReturnType<typeof fn>>;
        try {
          result = await fn(transactionHandle(state));
          database.exec("COMMIT");
        } catch (error) {
          if (database.isTransaction) database.exec("ROLLBACK");
          throw error;
        }
        return result;
      } finally {
        state.open = false;
        savepoints = 0;
        release();
      }
    },
    async close() {
      if (closed) return;
      await mutex.run(() => {
        if (closed) return;
        closed = true;
        database.close();
        releaseFileMutex(file);
      });
    },
  };
}
