import pg from "pg";
import { bindParams, type Db, finishedTransactionError, runInSavepoint, type SqlParam } from "./db.ts";

export interface PostgresOptions {
  /** Most connections the pool opens. */
  maxConnections?: number;
  /** Called when an idle pooled connection fails (the pool drops it and opens another when needed). */
  onIdleError?: (error: Error) => void;
}

const INT8_OID = 20;

/**
 * BIGINT columns hold epoch milliseconds and counts, far below 2^53, so they are read as numbers (pg returns
 * strings by default). Set on this pool only, not on pg's process-wide parsers.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary"
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** The `$$` or `$tag$` that opens a dollar-quoted string at `at`, if one does. */
function dollarTag(sql: string, at: number): string | undefined {
  const pattern = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;
  pattern.lastIndex = at;
  return pattern.exec(sql)?.[0];
}

/**
 * Rewrites `?` placeholders to PostgreSQL's `$1..$n`, leaving alone the `?` inside string literals, quoted
 * identifiers, dollar-quoted strings and comments. The SQL of this codebase never uses the jsonb `?` operators.
 */
export function toPositionalPlaceholders(sql: string): string {
  let out = "";
  let index = 0;
  let i = 0;
  while (i < sql.length) {
    const char = sql[i];
    const next = sql[i + 1];
    if (char === "'" || char === '"') {
      // A quoted run; a doubled quote inside it is an escaped quote and keeps the run going.
      let end = i + 1;
      while (end < sql.length) {
        if (sql[end] === char) {
          if (sql[end + 1] === char) end += 2;
          else break;
        } else end += 1;
      }
      out += sql.slice(i, end + 1);
      i = end + 1;
    } else if (char === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (char === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (char === "$" && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? "") && dollarTag(sql, i)) {
      const tag = dollarTag(sql, i) as string;
      const end = sql.indexOf(tag, i + tag.length);
      const stop = end === -1 ? sql.length : end + tag.length;
      out += sql.slice(i, stop);
      i = stop;
    } else if (char === "?") {
      index += 1;
      out += `$${index}`;
      i += 1;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

/**
 * Opens a pool on a `postgres://` URL (libpq-style query parameters such as `sslmode` and
 * `options=-c search_path=...` are honoured). Transactions run on one checked-out connection between
 * BEGIN and COMMIT, or ROLLBACK when the callback throws.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, types });
  // Without a listener an idle connection's error would be an uncaught 'error' event and end the process.
  pool.on("error", options.onIdleError ?? (() => {}));
  const running = new Set<Promise<unknown>>();
  let closed = false;

  type Queryable = pg.Pool | pg.PoolClient;

  async function query<T>(on: Queryable, sql: string, params?: readonly SqlParam[]): Promise<T[]> {
    const result = await on.query({ text: toPositionalPlaceholders(sql), values: bindParams(params) });
    return result.rows as T[];
  }

  async function execute(on: Queryable, sql: string, params?: readonly SqlParam[]) {
    const result = await on.query({ text: toPositionalPlaceholders(sql), values: bindParams(params) });
    return { rowCount: result.rowCount ?? 0 };
  }

  function transactionHandle(client: pg.PoolClient, state: { open: boolean }): Db {
    let savepoints = 0;
    const check = () => {
      if (!state.open) throw finishedTransactionError();
    };
    const tx: Db = {
      dialect: "postgres",
      async query<T>(sql: string, params?: readonly SqlParam[]) {
        check();
        return query<T>(client, sql, params);
      },
      async execute(sql, params) {
        check();
        return execute(client, sql, params);
      },
      async executeScript(sql) {
        check();
        await client.query(sql);
      },
      async transaction(fn) {
        check();
        savepoints += 1;
        return runInSavepoint(
          (sql) => client.query(sql),
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

  async function transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    const state = { open: true };
    // A connection whose ROLLBACK failed is in an unknown state: it is destroyed, not returned to the pool.
    let broken: Error | undefined;
    try {
      const result = await fn(transactionHandle(client, state));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      state.open = false;
      client.release(broken);
    }
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    running.add(promise);
    const forget = () => running.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  function ensureOpen(): void {
    if (closed) throw new Error("The database is closed");
  }

  return {
    dialect: "postgres",
    async query<T>(sql: string, params?: readonly SqlParam[]) {
      ensureOpen();
      return query<T>(pool, sql, params);
    },
    async execute(sql, params) {
      ensureOpen();
      return execute(pool, sql, params);
    },
    async executeScript(sql) {
      ensureOpen();
      await pool.query(sql);
    },
    async transaction(fn) {
      ensureOpen();
      return track(transaction(fn));
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...running]);
      await pool.end();
    },
  };
}
