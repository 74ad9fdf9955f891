import type { Snapshot } from "@svc/contract";
import type { Db } from "../store/db.ts";
import { newId } from "../store/ids.ts";

/** A sandbox snapshot as stored: its root disk lives with the executor that took it. */
export interface SnapshotRow {
  id: string;
  projectId: string;
  sandboxId: string;
  /** The image as the sandbox named it (a tag stays a tag: shown as it was given). */
  baseImage: string;
  /**
   * The image pinned to the digest the sandbox ran on (image-reference.ts pinImage), set when the snapshot
   * completes; null for a snapshot made before pinning, or of an image with nothing to pin.
   */
  pinnedImage: string | null;
  snapshotType: "filesystem" | "memory";
  status: "in_progress" | "completed" | "failed";
  error: string | null;
  sizeBytes: number | null;
  rootfsDiskBytes: number | null;
  /** `build_cache`: a cached step of a template build (build-cache.ts), listed only when asked for. */
  kind: SnapshotKind;
  createdAt: number;
}

export type SnapshotKind = "sandbox" | "build_cache";

export interface SnapshotRepository {
  create(
    row: Omit<
      SnapshotRow,
      "id" | "createdAt" | "error" | "sizeBytes" | "rootfsDiskBytes" | "kind" | "pinnedImage"
    > & {
      kind?: SnapshotKind;
    },
  ): Promise<SnapshotRow>;
  get(projectId: string, id: string): Promise<SnapshotRow | null>;
  /** The project's snapshots, oldest first: those of sandboxes, and the build cache's with `includeBuildCache`. */
  list(projectId: string, options?: { includeBuildCache?: boolean }): Promise<SnapshotRow[]>;
  /** Ends an in-progress snapshot: completed with its sizes and pinned image, or failed with why. */
  finish(
    id: string,
    outcome: { sizeBytes: number; diskBytes: number; pinnedImage?: string | null } | { error: string },
  ): Promise<void>;
  /** Snapshots still in progress (after a restart, they failed). */
  inProgress(): Promise<SnapshotRow[]>;
  remove(id: string): Promise<void>;
}

const COLUMNS =
  "id, project_id, sandbox_id, base_image, snapshot_type, status, error, size_bytes, rootfs_disk_bytes, created_at, kind, pinned_image";

function fromRow(row: Record<string, unknown>): SnapshotRow {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    sandboxId: String(row.sandbox_id),
    baseImage: String(row.base_image),
    snapshotType: row.snapshot_type as SnapshotRow["snapshotType"],
    status: row.status as SnapshotRow["status"],
    error: (row.error as string | null) ?? null,
    sizeBytes: n(row.size_bytes),
    rootfsDiskBytes: n(row.rootfs_disk_bytes),
    kind: row.kind === "build_cache" ? "build_cache" : "sandbox",
    pinnedImage: typeof row.pinned_image === "string" ? row.pinned_image : null,
    createdAt: Number(row.created_at),
  };
}

/** The API's Snapshot of a stored row. */
export function toSnapshot(row: SnapshotRow, namespace: string): Snapshot {
  return {
    snapshot_id: row.id,
    namespace,
    sandbox_id: row.sandboxId,
    base_image: row.baseImage,
    snapshot_type: row.snapshotType,
    status: row.status,
    error: row.error,
    size_bytes: row.sizeBytes,
    rootfs_disk_bytes: row.rootfsDiskBytes,
    kind: row.kind,
    created_at: row.createdAt,
  };
}

export function createSnapshotRepository(db: Db): SnapshotRepository {
  return {
    async create(fields) {
      const row: SnapshotRow = {
        ...fields,
        id: newId("snap"),
        error: null,
        sizeBytes: null,
        rootfsDiskBytes: null,
        kind: fields.kind ?? "sandbox",
        pinnedImage: null,
        createdAt: Date.now(),
      };
      await db.execute(
        `INSERT INTO sandbox_snapshots (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.id,
          row.projectId,
          row.sandboxId,
          row.baseImage,
          row.snapshotType,
          row.status,
          null,
          null,
          null,
          row.createdAt,
          row.kind,
          null,
        ],
      );
      return row;
    },
    async get(projectId, id) {
      const rows = await db.query(
        `SELECT ${COLUMNS} FROM sandbox_snapshots WHERE project_id = ? AND id = ?`,
        [projectId, id],
      );
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async list(projectId, options) {
      const kinds = options?.includeBuildCache ? "" : " AND kind = 'sandbox'";
      const rows = await db.query(
        `SELECT ${COLUMNS} FROM sandbox_snapshots WHERE project_id = ?${kinds} ORDER BY created_at, id`,
        [projectId],
      );
      return rows.map(fromRow);
    },
    async finish(id, outcome) {
      if ("error" in outcome) {
        await db.execute("UPDATE sandbox_snapshots SET status = 'failed', error = ? WHERE id = ?", [
          outcome.error,
          id,
        ]);
      } else {
        await db.execute(
          "UPDATE sandbox_snapshots SET status = 'completed', size_bytes = ?, rootfs_disk_bytes = ?, pinned_image = ? WHERE id = ?",
          [outcome.sizeBytes, outcome.diskBytes, outcome.pinnedImage ?? null, id],
        );
      }
    },
    async inProgress() {
      const rows = await db.query(
        `SELECT ${COLUMNS} FROM sandbox_snapshots WHERE status = 'in_progress'`,
        [],
      );
      return rows.map(fromRow);
    },
    async remove(id) {
      await db.execute("DELETE FROM sandbox_snapshots WHERE id = ?", [id]);
    },
  };
}
