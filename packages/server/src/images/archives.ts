import type { SandboxImage } from "@svc/contract";
import type { Db } from "../store/db.ts";
import { isUniqueViolation } from "../store/db.ts";

/** What an image's config asks of its processes (oci-images.ts reads it). */
export interface ImageConfig {
  env: string[];
  workingDir: string | null;
  user: string | null;
  entrypoint: string[] | null;
  cmd: string[] | null;
}

/** An image a project uploaded as an archive, by name. */
export interface ImageRow {
  projectId: string;
  name: string;
  digest: string;
  sizeBytes: number;
  config: ImageConfig;
  createdAt: number;
}

/**
 * The `image` a sandbox of an uploaded image records: the executor finds its tree by digest and never asks a
 * registry (local-executor.ts ARCHIVE_IMAGE).
 */
export function archiveImage(row: Pick<ImageRow, "name" | "digest">): string {
  return `archive:${row.name}@${row.digest}`;
}

export function toSandboxImage(row: ImageRow): SandboxImage {
  return {
    name: row.name,
    digest: row.digest,
    size_bytes: row.sizeBytes,
    env: row.config.env,
    working_dir: row.config.workingDir,
    user: row.config.user,
    entrypoint: row.config.entrypoint,
    cmd: row.config.cmd,
    created_at: row.createdAt,
  };
}

export interface ImageRepository {
  /** Null when the project already has an image of that name. */
  create(row: Omit<ImageRow, "createdAt">): Promise<ImageRow | null>;
  get(projectId: string, name: string): Promise<ImageRow | null>;
  list(projectId: string): Promise<ImageRow[]>;
  remove(projectId: string, name: string): Promise<boolean>;
}

const COLUMNS = "project_id, name, digest, size_bytes, config, created_at";

function fromRow(row: Record<string, unknown>): ImageRow {
  return {
    projectId: String(row.project_id),
    name: String(row.name),
    digest: String(row.digest),
    sizeBytes: Number(row.size_bytes),
    config: JSON.parse(String(row.config)) as ImageConfig,
    createdAt: Number(row.created_at),
  };
}

export function createImageRepository(db: Db): ImageRepository {
  return {
    async create(fields) {
      const row: ImageRow = { ...fields, createdAt: Date.now() };
      try {
        await db.execute(`INSERT INTO sandbox_images (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`, [
          row.projectId,
          row.name,
          row.digest,
          row.sizeBytes,
          JSON.stringify(row.config),
          row.createdAt,
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
      return row;
    },
    async get(projectId, name) {
      const [row] = await db.query(
        `SELECT ${COLUMNS} FROM sandbox_images WHERE project_id = ? AND name = ?`,
        [projectId, name],
      );
      return row ? fromRow(row) : null;
    },
    async list(projectId) {
      const rows = await db.query(
        `SELECT ${COLUMNS} FROM sandbox_images WHERE project_id = ? ORDER BY name`,
        [projectId],
      );
      return rows.map(fromRow);
    },
    async remove(projectId, name) {
      return (
        (await db.execute("DELETE FROM sandbox_images WHERE project_id = ? AND name = ?", [projectId, name]))
          .rowCount > 0
      );
    },
  };
}
