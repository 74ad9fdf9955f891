import type { SandboxNetworkAccessControl } from "@svc/contract";
import type { Db } from "../store/db.ts";
import { newId } from "../store/ids.ts";

/** A warm pool as stored: the settings of its sandboxes, and how many to keep started. */
export interface PoolRow {
  id: string;
  projectId: string;
  image: string | null;
  cpus: number;
  memoryMb: number;
  diskMb: number;
  timeoutSecs: number;
  entrypoint: string[] | null;
  network: SandboxNetworkAccessControl | null;
  maxContainers: number | null;
  warmContainers: number;
  createdAt: number;
  updatedAt: number;
}

export type PoolSettings = Omit<PoolRow, "id" | "projectId" | "createdAt" | "updatedAt">;

export interface PoolRepository {
  create(projectId: string, settings: PoolSettings): Promise<PoolRow>;
  get(projectId: string, id: string): Promise<PoolRow | null>;
  list(projectId: string): Promise<PoolRow[]>;
  /** Every pool of every project (the keeper's pass). */
  all(): Promise<PoolRow[]>;
  update(id: string, settings: PoolSettings): Promise<PoolRow | null>;
  remove(id: string): Promise<void>;
}

const COLUMNS =
  "id, project_id, image, cpus, memory_mb, disk_mb, timeout_secs, entrypoint, network, max_containers, warm_containers, created_at, updated_at";

function fromRow(row: Record<string, unknown>): PoolRow {
  const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : null);
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    image: (row.image as string | null) ?? null,
    cpus: Number(row.cpus),
    memoryMb: Number(row.memory_mb),
    diskMb: Number(row.disk_mb),
    timeoutSecs: Number(row.timeout_secs),
    entrypoint: json(row.entrypoint),
    network: json(row.network),
    maxContainers:
      row.max_containers === null || row.max_containers === undefined ? null : Number(row.max_containers),
    warmContainers: Number(row.warm_containers),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function params(settings: PoolSettings) {
  return [
    settings.image,
    settings.cpus,
    settings.memoryMb,
    settings.diskMb,
    settings.timeoutSecs,
    settings.entrypoint === null ? null : JSON.stringify(settings.entrypoint),
    settings.network === null ? null : JSON.stringify(settings.network),
    settings.maxContainers,
    settings.warmContainers,
  ];
}

export function createPoolRepository(db: Db): PoolRepository {
  const select = `SELECT ${COLUMNS} FROM sandbox_pools`;
  return {
    async create(projectId, settings) {
      const now = Date.now();
      const id = newId("pool");
      await db.execute(
        `INSERT INTO sandbox_pools (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, projectId, ...params(settings), now, now],
      );
      return { ...settings, id, projectId, createdAt: now, updatedAt: now };
    },
    async get(projectId, id) {
      const rows = await db.query(`${select} WHERE project_id = ? AND id = ?`, [projectId, id]);
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async list(projectId) {
      return (await db.query(`${select} WHERE project_id = ? ORDER BY created_at, id`, [projectId])).map(
        fromRow,
      );
    },
    async all() {
      return (await db.query(`${select} ORDER BY created_at, id`, [])).map(fromRow);
    },
    async update(id, settings) {
      await db.execute(
        "UPDATE sandbox_pools SET image = ?, cpus = ?, memory_mb = ?, disk_mb = ?, timeout_secs = ?, entrypoint = ?, network = ?, max_containers = ?, warm_containers = ?, updated_at = ? WHERE id = ?",
        [...params(settings), Date.now(), id],
      );
      const rows = await db.query(`${select} WHERE id = ?`, [id]);
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async remove(id) {
      await db.execute("DELETE FROM sandbox_pools WHERE id = ?", [id]);
    },
  };
}
