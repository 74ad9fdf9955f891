import type { Db } from "../store/db.ts";
import { isUniqueViolation } from "../store/db.ts";
import { newId } from "../store/ids.ts";

/** A named file system as stored. */
export interface FileSystemRow {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  status: "ready" | "deleting";
  createdAt: number;
  updatedAt: number;
}

/** A permanent snapshot of a file system: its tree as it was, never changed afterwards. */
export interface FileSystemSnapshotRow {
  id: string;
  fileSystemId: string;
  message: string | null;
  createdAt: number;
}

export interface FileSystemRepository {
  /** Null when the project already has a file system of that name. */
  create(projectId: string, name: string, description: string | null): Promise<FileSystemRow | null>;
  /** By id or by name, within the project. */
  find(projectId: string, idOrName: string): Promise<FileSystemRow | null>;
  list(projectId: string): Promise<FileSystemRow[]>;
  setStatus(id: string, status: FileSystemRow["status"]): Promise<void>;
  touch(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  addSnapshot(fileSystemId: string, message: string | null): Promise<FileSystemSnapshotRow>;
  removeSnapshot(snapshotId: string): Promise<void>;
  snapshots(fileSystemId: string): Promise<FileSystemSnapshotRow[]>;
  snapshot(fileSystemId: string, snapshotId: string): Promise<FileSystemSnapshotRow | null>;
}

function fileSystem(row: Record<string, unknown>): FileSystemRow {
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    name: String(row.name),
    description: (row.description as string | null) ?? null,
    status: row.status as FileSystemRow["status"],
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function snapshot(row: Record<string, unknown>): FileSystemSnapshotRow {
  return {
    id: String(row.id),
    fileSystemId: String(row.file_system_id),
    message: (row.message as string | null) ?? null,
    createdAt: Number(row.created_at),
  };
}

const FS_COLUMNS = "id, project_id, name, description, status, created_at, updated_at";

export function createFileSystemRepository(db: Db): FileSystemRepository {
  return {
    async create(projectId, name, description) {
      const now = Date.now();
      const id = newId("fs");
      try {
        await db.execute(`INSERT INTO file_systems (${FS_COLUMNS}) VALUES (?, ?, ?, ?, 'ready', ?, ?)`, [
          id,
          projectId,
          name,
          description,
          now,
          now,
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
      return { id, projectId, name, description, status: "ready", createdAt: now, updatedAt: now };
    },
    async find(projectId, idOrName) {
      const rows = await db.query(
        `SELECT ${FS_COLUMNS} FROM file_systems WHERE project_id = ? AND (id = ? OR name = ?)`,
        [projectId, idOrName, idOrName],
      );
      return rows[0] ? fileSystem(rows[0]) : null;
    },
    async list(projectId) {
      const rows = await db.query(
        `SELECT ${FS_COLUMNS} FROM file_systems WHERE project_id = ? ORDER BY created_at, id`,
        [projectId],
      );
      return rows.map(fileSystem);
    },
    async setStatus(id, status) {
      await db.execute("UPDATE file_systems SET status = ?, updated_at = ? WHERE id = ?", [
        status,
        Date.now(),
        id,
      ]);
    },
    async touch(id) {
      await db.execute("UPDATE file_systems SET updated_at = ? WHERE id = ?", [Date.now(), id]);
    },
    async remove(id) {
      await db.execute("DELETE FROM file_system_snapshots WHERE file_system_id = ?", [id]);
      await db.execute("DELETE FROM file_systems WHERE id = ?", [id]);
    },
    async addSnapshot(fileSystemId, message) {
      const row = { id: newId("fsnap"), fileSystemId, message, createdAt: Date.now() };
      await db.execute(
        "INSERT INTO file_system_snapshots (id, file_system_id, message, created_at) VALUES (?, ?, ?, ?)",
        [row.id, fileSystemId, message, row.createdAt],
      );
      return row;
    },
    async removeSnapshot(snapshotId) {
      await db.execute("DELETE FROM file_system_snapshots WHERE id = ?", [snapshotId]);
    },
    async snapshots(fileSystemId) {
      const rows = await db.query(
        "SELECT id, file_system_id, message, created_at FROM file_system_snapshots WHERE file_system_id = ? ORDER BY created_at, id",
        [fileSystemId],
      );
      return rows.map(snapshot);
    },
    async snapshot(fileSystemId, snapshotId) {
      const rows = await db.query(
        "SELECT id, file_system_id, message, created_at FROM file_system_snapshots WHERE file_system_id = ? AND id = ?",
        [fileSystemId, snapshotId],
      );
      return rows[0] ? snapshot(rows[0]) : null;
    },
  };
}
