import type { FileMetadata, FilesPage, Labels, ListFilesQuery, MimeType } from "@svc/contract";
import type { Db } from "../store/db.ts";
import { toRfc3339 } from "../store/ids.ts";
import { pageClause, toPage } from "./cursor.ts";

/** An uploaded file: its metadata and where its bytes are. */
export interface FileRecord {
  id: string;
  projectId: string;
  fileName: string | null;
  mimeType: MimeType;
  size: number;
  sha256: string;
  labels: Labels | null;
  blobKey: string;
  createdAt: number;
}

interface FileRow {
  id: string;
  project_id: string;
  file_name: string | null;
  mime_type: string;
  file_size: number;
  checksum_sha256: string;
  labels: string | null;
  blob_key: string;
  created_at: number;
}

function toRecord(row: FileRow): FileRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    fileName: row.file_name,
    mimeType: row.mime_type as MimeType,
    size: Number(row.file_size),
    sha256: row.checksum_sha256,
    labels: row.labels === null ? null : (JSON.parse(row.labels) as Labels),
    blobKey: row.blob_key,
    createdAt: Number(row.created_at),
  };
}

export function toFileMetadata(file: FileRecord): FileMetadata {
  const createdAt = toRfc3339(file.createdAt);
  return {
    file_id: file.id,
    file_name: file.fileName,
    mime_type: file.mimeType,
    file_size: file.size,
    checksum_sha256: file.sha256,
    created_at: createdAt,
    ...(file.labels ? { labels: file.labels } : {}),
    id: file.id,
    name: file.fileName ?? "",
    fileSize: file.size,
    mimeType: file.mimeType,
    createdAt,
    updatedAt: createdAt,
  };
}

export interface FileRepository {
  insert(file: FileRecord): Promise<void>;
  /** The project's file, or undefined. */
  get(projectId: string, id: string): Promise<FileRecord | undefined>;
  list(projectId: string, query: ListFilesQuery): Promise<FilesPage>;
  /** Removes the row and returns it (its blob is the caller's to delete), or undefined when there is none. */
  delete(projectId: string, id: string): Promise<FileRecord | undefined>;
}

export function createFileRepository(db: Db): FileRepository {
  return {
    async insert(file) {
      await db.execute(
        `INSERT INTO document_files (id, project_id, file_name, mime_type, file_size, checksum_sha256, labels, blob_key, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          file.id,
          file.projectId,
          file.fileName,
          file.mimeType,
          file.size,
          file.sha256,
          file.labels ? JSON.stringify(file.labels) : null,
          file.blobKey,
          file.createdAt,
        ],
      );
    },
    async get(projectId, id) {
      const [row] = await db.query<FileRow>("SELECT * FROM document_files WHERE project_id = ? AND id = ?", [
        projectId,
        id,
      ]);
      return row ? toRecord(row) : undefined;
    },
    async list(projectId, query) {
      const limit = query.limit ?? 25;
      const page = pageClause(query);
      const where = ["project_id = ?", page.where];
      const params: (string | number)[] = [projectId, ...page.params];
      if (query.filename) {
        where.push("file_name = ?");
        params.push(query.filename);
      }
      if (query.created_after) {
        where.push("created_at > ?");
        params.push(Date.parse(query.created_after));
      }
      if (query.created_before) {
        where.push("created_at < ?");
        params.push(Date.parse(query.created_before));
      }
      const rows = await db.query<FileRow>(
        `SELECT * FROM document_files WHERE ${where.join(" AND ")} ORDER BY ${page.order} LIMIT ?`,
        [...params, limit + 1],
      );
      const listed = toPage(rows, query, limit, (row) => toFileMetadata(toRecord(row)));
      return {
        ...listed,
        hasMore: listed.has_more,
        nextCursor: listed.next_cursor ?? null,
        prevCursor: listed.prev_cursor ?? null,
      };
    },
    async delete(projectId, id) {
      const [row] = await db.query<FileRow>(
        "DELETE FROM document_files WHERE project_id = ? AND id = ? RETURNING *",
        [projectId, id],
      );
      return row ? toRecord(row) : undefined;
    },
  };
}
