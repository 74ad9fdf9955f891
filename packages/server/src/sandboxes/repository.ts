import { randomBytes } from "node:crypto";
import type {
  FileSystemMount,
  PendingReason,
  SandboxNetworkAccessControl,
  SandboxStatus,
  StartStep,
  TerminationReason,
} from "@svc/contract";
import type { Db, SqlParam } from "../store/db.ts";

/** One sandbox as stored. JSON columns are parsed; the API record is a view of this (see record.ts). */
export interface SandboxRow {
  id: string;
  projectId: string;
  name: string | null;
  status: SandboxStatus;
  pendingReason: PendingReason | null;
  outcome: string | null;
  terminationReason: TerminationReason | null;
  errorDetails: string | null;
  image: string | null;
  cpus: number;
  memoryMb: number;
  diskMb: number;
  timeoutSecs: number;
  maxPendingSecs: number | null;
  entrypoint: string[] | null;
  network: SandboxNetworkAccessControl | null;
  exposedPorts: number[] | null;
  allowUnauthenticatedAccess: boolean;
  fileSystems: FileSystemMount[];
  poolId: string | null;
  /** A pool's warm sandbox, not yet claimed: hidden from the project's listings. */
  warm: boolean;
  templateId: string | null;
  snapshotId: string | null;
  executorId: string | null;
  containerId: string | null;
  /** Where the executor reaches the daemon: `http://<sandbox address>:9501`. */
  address: string | null;
  netIndex: number | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** The last start on an executor: when it began (epoch ms) and its steps; null before any start. */
  startTimeline: { beganAt: number; steps: StartStep[] } | null;
  updatedAt: number;
}

const columns: Record<keyof SandboxRow, string> = {
  id: "id",
  projectId: "project_id",
  name: "name",
  status: "status",
  pendingReason: "pending_reason",
  outcome: "outcome",
  terminationReason: "termination_reason",
  errorDetails: "error_details",
  image: "image",
  cpus: "cpus",
  memoryMb: "memory_mb",
  diskMb: "disk_mb",
  timeoutSecs: "timeout_secs",
  maxPendingSecs: "max_pending_secs",
  entrypoint: "entrypoint",
  network: "network",
  exposedPorts: "exposed_ports",
  allowUnauthenticatedAccess: "allow_unauthenticated_access",
  fileSystems: "file_systems",
  poolId: "pool_id",
  warm: "warm",
  templateId: "template_id",
  snapshotId: "snapshot_id",
  executorId: "executor_id",
  containerId: "container_id",
  address: "address",
  netIndex: "net_index",
  createdAt: "created_at",
  startedAt: "started_at",
  endedAt: "ended_at",
  startTimeline: "start_timeline",
  updatedAt: "updated_at",
};
const jsonFields = new Set<keyof SandboxRow>([
  "entrypoint",
  "network",
  "exposedPorts",
  "fileSystems",
  "startTimeline",
]);
const SELECT = `SELECT ${Object.values(columns).join(", ")} FROM sandboxes`;

function fromRow(row: Record<string, unknown>): SandboxRow {
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(columns) as [keyof SandboxRow, string][]) {
    const value = row[column];
    if (jsonFields.has(field)) out[field] = typeof value === "string" ? JSON.parse(value) : null;
    else if (field === "allowUnauthenticatedAccess" || field === "warm") out[field] = Number(value) === 1;
    else out[field] = value ?? null;
  }
  return out as unknown as SandboxRow;
}

function toParam(field: keyof SandboxRow, value: unknown): SqlParam {
  if (jsonFields.has(field)) return value === null || value === undefined ? null : JSON.stringify(value);
  return (value ?? null) as SqlParam;
}

/** A sandbox id: `sbx-` and 20 lowercase base32 characters, safe as a host name label. */
export function newSandboxId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let out = "sbx-";
  for (const byte of randomBytes(20)) out += alphabet[byte & 31];
  return out;
}

export type NewSandbox = Omit<SandboxRow, "updatedAt">;

/** A new sandbox, pending until the scheduler places it: these fields over the defaults of every new row. */
export function pendingSandbox(
  fields: Pick<SandboxRow, "projectId" | "cpus" | "memoryMb" | "diskMb"> & Partial<NewSandbox>,
): NewSandbox {
  return {
    id: newSandboxId(),
    name: null,
    status: "pending",
    pendingReason: "scheduling",
    outcome: null,
    terminationReason: null,
    errorDetails: null,
    image: null,
    timeoutSecs: 0,
    maxPendingSecs: null,
    entrypoint: null,
    network: null,
    exposedPorts: null,
    allowUnauthenticatedAccess: false,
    fileSystems: [],
    poolId: null,
    warm: false,
    templateId: null,
    snapshotId: null,
    executorId: null,
    containerId: null,
    address: null,
    netIndex: null,
    createdAt: Date.now(),
    startedAt: null,
    endedAt: null,
    startTimeline: null,
    ...fields,
  };
}

export interface ListPage {
  rows: SandboxRow[];
  /** Whether rows exist beyond this page in the direction of the listing. */
  more: boolean;
}

export interface SandboxRepository {
  /** Inserts a new sandbox; null when its name is taken by a live sandbox of the project. */
  insert(sandbox: NewSandbox): Promise<SandboxRow | null>;
  /** By id, else by name among the project's live sandboxes, else the newest terminated one of that name. */
  find(projectId: string, idOrName: string): Promise<SandboxRow | null>;
  get(id: string): Promise<SandboxRow | null>;
  /**
   * Newest first. `after` is a (created_at, id) position; `forward` pages to older rows, `backward` to newer.
   */
  list(options: {
    projectId: string;
    /** Only sandboxes in this state. */
    status?: "running" | "terminated";
    limit: number;
    after?: { createdAt: number; id: string };
    direction: "forward" | "backward";
  }): Promise<ListPage>;
  /**
   * Changes a sandbox's mount list as one compare-and-set: `change` sees the stored list and returns the new one
   * (or throws, changing nothing); a concurrent change makes it run again on the fresh list. Null: no such row.
   */
  updateMounts(
    id: string,
    change: (current: FileSystemMount[], row: SandboxRow) => FileSystemMount[],
  ): Promise<SandboxRow | null>;
  /** A pool's sandboxes that are not terminated, and those that ended in the last `recentMs`, oldest first. */
  ofPool(poolId: string, recentMs: number): Promise<SandboxRow[]>;
  /** Takes a pool's warm, running sandbox for a claim (compare-and-set on `warm`); null when another took it. */
  takeWarm(id: string, changes: Partial<SandboxRow>): Promise<SandboxRow | null>;
  /** The project's sandboxes that are not terminated, oldest first. */
  live(projectId: string): Promise<SandboxRow[]>;
  /** Sandboxes in these states, oldest first, across projects (scheduler and reconciliation). */
  withStatus(statuses: SandboxStatus[]): Promise<SandboxRow[]>;
  /**
   * Updates fields when the row is still in one of `from` (a compare-and-set on status, so two actors never
   * both move one sandbox); returns the new row, or null when the status had moved on.
   */
  transition(id: string, from: SandboxStatus[], changes: Partial<SandboxRow>): Promise<SandboxRow | null>;
  /** Marks a pending sandbox as being started by an executor; false when another executor got it first. */
  claim(id: string, executorId: string): Promise<boolean>;
  /** Updates fields whatever the status (settings: name, ports, network); throws a unique violation on a taken name. */
  update(id: string, changes: Partial<SandboxRow>): Promise<SandboxRow | null>;
}

export function createSandboxRepository(db: Db, now: () => number = Date.now): SandboxRepository {
  async function one(sql: string, params: SqlParam[]): Promise<SandboxRow | null> {
    const [row] = await db.query(sql, params);
    return row ? fromRow(row) : null;
  }
  function setClause(changes: Partial<SandboxRow>): { sql: string; params: SqlParam[] } {
    const entries = Object.entries({ ...changes, updatedAt: now() }).filter(([k]) => k !== "id") as [
      keyof SandboxRow,
      unknown,
    ][];
    return {
      sql: entries.map(([field]) => `${columns[field]} = ?`).join(", "),
      params: entries.map(([field, value]) => toParam(field, value)),
    };
  }
  return {
    async insert(sandbox) {
      const row = { ...sandbox, updatedAt: now() } as SandboxRow;
      const fields = Object.keys(columns) as (keyof SandboxRow)[];
      const result = await db.execute(
        `INSERT INTO sandboxes (${fields.map((f) => columns[f]).join(", ")}) VALUES (${fields.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`,
        fields.map((f) => toParam(f, row[f])),
      );
      return result.rowCount > 0 ? row : null;
    },
    async find(projectId, idOrName) {
      return (
        (await one(`${SELECT} WHERE project_id = ? AND id = ?`, [projectId, idOrName])) ??
        (await one(
          `${SELECT} WHERE project_id = ? AND name = ? ORDER BY (status = 'terminated'), created_at DESC LIMIT 1`,
          [projectId, idOrName],
        ))
      );
    },
    get: (id) => one(`${SELECT} WHERE id = ?`, [id]),
    async list({ projectId, status, limit, after, direction }) {
      const where = ["project_id = ?"];
      const params: SqlParam[] = [projectId];
      where.push("warm = 0");
      if (status) {
        where.push("status = ?");
        params.push(status);
      }
      const older = direction === "forward";
      if (after) {
        where.push(
          older
            ? "(created_at < ? OR (created_at = ? AND id < ?))"
            : "(created_at > ? OR (created_at = ? AND id > ?))",
        );
        params.push(after.createdAt, after.createdAt, after.id);
      }
      const order = older ? "created_at DESC, id DESC" : "created_at ASC, id ASC";
      const rows = await db.query(`${SELECT} WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ?`, [
        ...params,
        limit + 1,
      ]);
      const page = rows.slice(0, limit).map(fromRow);
      if (!older) page.reverse();
      return { rows: page, more: rows.length > limit };
    },
    async updateMounts(id, change) {
      for (;;) {
        const rows = await db.query(`${SELECT} WHERE id = ?`, [id]);
        if (!rows[0]) return null;
        const stored = rows[0].file_systems as string;
        const row = fromRow(rows[0]);
        const next = change(row.fileSystems, row);
        const result = await db.execute(
          "UPDATE sandboxes SET file_systems = ?, updated_at = ? WHERE id = ? AND file_systems = ?",
          [JSON.stringify(next), Date.now(), id, stored],
        );
        if (result.rowCount > 0) return { ...row, fileSystems: next };
      }
    },
    async ofPool(poolId, recentMs) {
      const rows = await db.query(
        `${SELECT} WHERE pool_id = ? AND (status <> 'terminated' OR ended_at > ?) ORDER BY created_at, id`,
        [poolId, now() - recentMs],
      );
      return rows.map(fromRow);
    },
    async takeWarm(id, changes) {
      const set = setClause({ ...changes, warm: false });
      const result = await db.execute(
        `UPDATE sandboxes SET ${set.sql} WHERE id = ? AND warm = 1 AND status = 'running'`,
        [...set.params, id],
      );
      return result.rowCount > 0 ? one(`${SELECT} WHERE id = ?`, [id]) : null;
    },
    async live(projectId) {
      const rows = await db.query(
        `${SELECT} WHERE project_id = ? AND status <> 'terminated' ORDER BY created_at, id`,
        [projectId],
      );
      return rows.map(fromRow);
    },
    async withStatus(statuses) {
      const rows = await db.query(
        `${SELECT} WHERE status IN (${statuses.map(() => "?").join(", ")}) ORDER BY created_at, id`,
        statuses,
      );
      return rows.map(fromRow);
    },
    async transition(id, from, changes) {
      const set = setClause(changes);
      const result = await db.execute(
        `UPDATE sandboxes SET ${set.sql} WHERE id = ? AND status IN (${from.map(() => "?").join(", ")})`,
        [...set.params, id, ...from],
      );
      return result.rowCount > 0 ? one(`${SELECT} WHERE id = ?`, [id]) : null;
    },
    async claim(id, executorId) {
      const result = await db.execute(
        "UPDATE sandboxes SET executor_id = ?, pending_reason = 'waiting_for_container', updated_at = ? WHERE id = ? AND status = 'pending' AND executor_id IS NULL",
        [executorId, now(), id],
      );
      return result.rowCount > 0;
    },
    async update(id, changes) {
      const set = setClause(changes);
      await db.execute(`UPDATE sandboxes SET ${set.sql} WHERE id = ?`, [...set.params, id]);
      return one(`${SELECT} WHERE id = ?`, [id]);
    },
  };
}
