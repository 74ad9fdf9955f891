import { LIVE_STATUSES } from "../sandboxes/status.ts";
import type { Db } from "../store/db.ts";

/** One executor as registered: where its relay is, what it offers, when it last beat. */
export interface ExecutorEntry {
  id: string;
  hostId: string;
  /** `host:port` of the host relay, where other hosts' proxies reach this executor's sandboxes. */
  relayAddress: string | null;
  cpus: number;
  memoryMb: number;
  registeredAt: number;
  heartbeatAt: number;
}

/** An executor with what its live sandboxes take of it. */
export interface ExecutorLoad extends ExecutorEntry {
  usedCpus: number;
  usedMemoryMb: number;
}

/** Statuses that hold an executor's resources. */
export const HOLDING = LIVE_STATUSES;
const HOLDING_SQL = HOLDING.map((status) => `'${status}'`).join(", ");
const ENDED_BY_LOSS = ["running", "suspending", "suspended", "snapshotting"].map((s) => `'${s}'`).join(", ");

interface ExecutorRecord {
  id: string;
  host_id: string;
  relay_address: string | null;
  cpus: number;
  memory_mb: number;
  registered_at: number;
  heartbeat_at: number;
}

function fromRecord(row: ExecutorRecord): ExecutorEntry {
  return {
    id: row.id,
    hostId: row.host_id,
    relayAddress: row.relay_address,
    cpus: Number(row.cpus),
    memoryMb: Number(row.memory_mb),
    registeredAt: Number(row.registered_at),
    heartbeatAt: Number(row.heartbeat_at),
  };
}

/**
 * The executors table: registration and heartbeats of each executor host, placement of a pending sandbox on one
 * (under a row lock of the executor, so schedulers on several hosts never overfill it), and the end of an
 * executor whose heartbeat stopped.
 */
export interface ExecutorRegistry {
  /** Registers (or refreshes) an executor with a fresh heartbeat. */
  register(entry: Omit<ExecutorEntry, "registeredAt" | "heartbeatAt">): Promise<void>;
  get(id: string): Promise<ExecutorEntry | null>;
  /** Executors whose heartbeat is newer than `since`, with their load. */
  alive(since: number): Promise<ExecutorLoad[]>;
  /** Executors whose heartbeat is older than `before`. */
  stale(before: number): Promise<ExecutorEntry[]>;
  /**
   * Gives a pending, unplaced sandbox to an executor when it still has room for it: the executor's row is locked
   * while its load is summed, and the sandbox is taken only while unplaced. False when either check fails.
   */
  place(sandbox: { id: string; cpus: number; memoryMb: number }, executorId: string): Promise<boolean>;
  /**
   * Removes an executor whose heartbeat is still older than `before` (only one scheduler wins) and, in the same
   * transaction, ends its sandboxes `executor_lost` and puts back in the queue the ones it had not started.
   * Returns the ids of the sandboxes ended, or null when the executor beat meanwhile or was removed already.
   */
  declareLost(id: string, before: number): Promise<string[] | null>;
}

export function createExecutorRegistry(db: Db, now: () => number = Date.now): ExecutorRegistry {
  const forUpdate = db.dialect === "postgres" ? " FOR UPDATE" : "";
  return {
    async register(entry) {
      const at = now();
      await db.execute(
        `INSERT INTO executors (id, host_id, relay_address, cpus, memory_mb, registered_at, heartbeat_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET host_id = excluded.host_id, relay_address = excluded.relay_address,
           cpus = excluded.cpus, memory_mb = excluded.memory_mb, heartbeat_at = excluded.heartbeat_at`,
        [entry.id, entry.hostId, entry.relayAddress, entry.cpus, entry.memoryMb, at, at],
      );
    },
    async get(id) {
      const [row] = await db.query<ExecutorRecord>("SELECT * FROM executors WHERE id = ?", [id]);
      return row ? fromRecord(row) : null;
    },
    async alive(since) {
      const rows = await db.query<
        ExecutorRecord & { used_cpus: number | null; used_memory_mb: number | null }
      >(
        `SELECT e.*, u.used_cpus, u.used_memory_mb FROM executors e
         LEFT JOIN (SELECT executor_id, SUM(cpus) AS used_cpus, SUM(memory_mb) AS used_memory_mb FROM sandboxes
                    WHERE status IN (${HOLDING_SQL}) AND executor_id IS NOT NULL GROUP BY executor_id) u
           ON u.executor_id = e.id
         WHERE e.heartbeat_at >= ? ORDER BY e.id`,
        [since],
      );
      return rows.map((row) => ({
        ...fromRecord(row),
        usedCpus: Number(row.used_cpus ?? 0),
        usedMemoryMb: Number(row.used_memory_mb ?? 0),
      }));
    },
    async stale(before) {
      const rows = await db.query<ExecutorRecord>("SELECT * FROM executors WHERE heartbeat_at < ?", [before]);
      return rows.map(fromRecord);
    },
    async place(sandbox, executorId) {
      return db.transaction(async (tx) => {
        const [executor] = await tx.query<ExecutorRecord>(
          `SELECT * FROM executors WHERE id = ?${forUpdate}`,
          [executorId],
        );
        if (!executor) return false;
        const [used] = await tx.query<{ cpus: number | null; memory_mb: number | null }>(
          `SELECT SUM(cpus) AS cpus, SUM(memory_mb) AS memory_mb FROM sandboxes
           WHERE executor_id = ? AND status IN (${HOLDING_SQL})`,
          [executorId],
        );
        const fits =
          Number(used?.cpus ?? 0) + sandbox.cpus <= Number(executor.cpus) + 1e-9 &&
          Number(used?.memory_mb ?? 0) + sandbox.memoryMb <= Number(executor.memory_mb);
        if (!fits) return false;
        const taken = await tx.execute(
          `UPDATE sandboxes SET executor_id = ?, pending_reason = 'waiting_for_container', updated_at = ?
           WHERE id = ? AND status = 'pending' AND executor_id IS NULL`,
          [executorId, now(), sandbox.id],
        );
        return taken.rowCount > 0;
      });
    },
    async declareLost(id, before) {
      return db.transaction(async (tx) => {
        const removed = await tx.execute("DELETE FROM executors WHERE id = ? AND heartbeat_at < ?", [
          id,
          before,
        ]);
        if (removed.rowCount === 0) return null;
        const at = now();
        const ended = await tx.query<{ id: string }>(
          `UPDATE sandboxes SET status = 'terminated', termination_reason = 'executor_lost', outcome = 'failed',
             error_details = 'the executor host running the sandbox stopped its heartbeat', pending_reason = NULL,
             ended_at = ?, updated_at = ?
           WHERE executor_id = ? AND status IN (${ENDED_BY_LOSS}) RETURNING id`,
          [at, at, id],
        );
        await tx.execute(
          `UPDATE sandboxes SET executor_id = NULL, pending_reason = 'scheduling', updated_at = ?
           WHERE executor_id = ? AND status = 'pending'`,
          [at, id],
        );
        const ids = ended.map((row) => row.id);
        if (ids.length > 0) {
          await tx.execute(
            `UPDATE sandbox_snapshots SET status = 'failed', error = 'the executor host taking it was lost'
             WHERE status = 'in_progress' AND sandbox_id IN (${ids.map(() => "?").join(", ")})`,
            ids,
          );
        }
        return ids;
      });
    },
  };
}
